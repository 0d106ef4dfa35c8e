"""The viewer on a real recorded database: pages, read-only access, refusals, comparison, export, long episodes
(the key pages and queries also on a PostgreSQL copy of it: ``sample_url``)."""

from __future__ import annotations

import hashlib
import http.client
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from viewer_sample import sample_database

from agentkit.messages import Message, ToolCall
from agentkit.observers import Pose
from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptStore
from agentkit.viewer import DatabaseNotFound, ViewerApp, ViewerServer, export_bundle, open_readonly
from agentkit.viewer.compare import compare_runs, first_divergence
from agentkit.viewer.queries import ViewerData
from agentkit.viewer.svg import MAX_COLUMNS
from agentkit.viewer.trajectory import grid_of, pose_of


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """A recorded reference run and scripted-model run, shared by the viewer's test modules."""
    path = tmp_path_factory.getbasetemp() / "viewer-sample.db"
    return path, sample_database(path)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def sample_url(request, sample):
    """The sample's URL: the SQLite file, then a PostgreSQL copy of it (the key query tests run on both)."""
    path, _ = sample
    if request.param == "sqlite":
        return f"sqlite:///{path}"
    from postgres_server import copy_database

    url = request.getfixturevalue("postgres_server").new_database()
    copy_database(f"sqlite:///{path}", url)
    return url


@pytest.fixture(scope="module")
def any_app(sample_url):
    """The viewer on the sample, on SQLite and on PostgreSQL."""
    return ViewerApp(open_readonly(sample_url))


@pytest.fixture(scope="module")
def app(sample):
    path, _ = sample
    return ViewerApp(open_readonly(f"sqlite:///{path}"))


@pytest.fixture(scope="module")
def server(sample):
    path, _ = sample
    with ViewerServer(open_readonly(f"sqlite:///{path}"), port=0) as srv:
        yield srv


def _db_digest(path: Path) -> str:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return hashlib.sha256("\n".join(con.iterdump()).encode()).hexdigest()
    finally:
        con.close()


def _raw(
    server: ViewerServer,
    method: str,
    target: str,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """A request sent as written (http.client does not normalise the path)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", (headers or {}).get("Host", f"127.0.0.1:{server.port}"))
        for k, v in (headers or {}).items():
            if k != "Host":
                conn.putheader(k, v)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def _episodes(sample, run: str):
    path, ids = sample
    store = TranscriptStore(f"sqlite:///{path}")
    try:
        return store.list_episodes(run_id=ids[run])
    finally:
        store.close()


# --- pages ------------------------------------------------------------------------------------------


def test_index_lists_runs_and_filters_episodes(any_app, sample):
    _, ids = sample
    page = any_app.handle("GET", "/").body.decode()
    assert ids["reference"] in page and ids["scripted"] in page
    assert "scripted/wanderer" in page and "BabyAI-PickupLoc-v0" in page
    only_ok = any_app.handle("GET", "/?outcome=success").body.decode()
    assert ids["reference"] in only_ok and "badge b-fail" not in only_ok
    by_model = any_app.handle("GET", "/?model=scripted%2Fwanderer&task=BabyAI-GoToLocal-v0").body.decode()
    assert re.search(r"(\d+) match", by_model).group(1) == "2"


def test_run_page_shows_config_templates_and_paged_episodes(any_app, sample):
    _, ids = sample
    page = any_app.handle("GET", f"/runs/{ids['scripted']}").body.decode()
    assert "template turn.j2" in page and "configuration" in page and "compare with" in page
    assert page.count('class="ep-link"') == 4
    filtered = any_app.handle("GET", f"/runs/{ids['scripted']}?task=BabyAI-PickupLoc-v0").body.decode()
    assert filtered.count('class="ep-link"') == 2


def test_episode_page_shows_frames_prompt_answer_script_and_figures(any_app, sample):
    episode = next(e for e in _episodes(sample, "scripted") if e.task == "BabyAI-GoToLocal-v0")
    html = any_app.handle("GET", f"/episodes/{episode.id}?turn=0").body.decode()
    assert re.search(r'<img class="frame" src="/blob/[0-9a-f]{64}"', html)
    assert (
        "Mission: go to" in html and "You control an agent" in html
    )  # the turn's prompt and the system message
    assert "Think(&#34;I should look around first&#34;); Turn(90);" in html  # answer, escaped
    assert 'id="script">Think(&#34;I should look around first&#34;);\nTurn(90);</pre>' in html
    assert 'class="map"' in html and 'class="agent"' in html  # the trajectory map
    assert html.count('class="chart"') >= 3  # reward, tokens, latency (and cost)
    assert "data:image" not in html  # images are links, never inlined
    step2 = any_app.handle("GET", f"/episodes/{episode.id}?turn=2").body.decode()
    assert 'id="parse-error"' in step2  # the scripted model's prose answer did not parse
    assert "earlier history" not in step2 and step2.count('class="msg role-assistant"') == 2


def test_turn_out_of_range_and_unknown_episode_are_404(app, sample):
    episode = _episodes(sample, "scripted")[0]
    assert app.handle("GET", f"/episodes/{episode.id}?turn=99").status == 404
    assert app.handle("GET", "/episodes/doesnotexist").status == 404
    assert app.handle("GET", "/runs/doesnotexist").status == 404


def test_blobs_are_served_by_hash_with_caching_headers(app, sample):
    episode = _episodes(sample, "scripted")[0]
    html = app.handle("GET", f"/episodes/{episode.id}").body.decode()
    sha = re.search(r'src="/blob/([0-9a-f]{64})"', html).group(1)
    r = app.handle("GET", f"/blob/{sha}")
    assert r.status == 200 and r.content_type == "image/jpeg" and hashlib.sha256(r.body).hexdigest() == sha
    assert "immutable" in r.headers["Cache-Control"] and r.headers["ETag"] == f'"{sha}"'
    again = app.handle("GET", f"/blob/{sha}", {"If-None-Match": f'"{sha}"'})
    assert again.status == 304 and again.body == b""
    assert app.handle("GET", "/blob/" + "0" * 64).status == 404


def test_message_json_blobs_are_not_served(app, sample):
    path, _ = sample
    con = sqlite3.connect(path)
    sha = con.execute("SELECT sha256 FROM blobs WHERE media_type = 'application/json' LIMIT 1").fetchone()[0]
    con.close()
    assert app.handle("GET", f"/blob/{sha}").status == 404


def test_every_response_carries_a_strict_content_security_policy(app):
    r = app.handle("GET", "/")
    assert "default-src 'none'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert app.handle("GET", "/nope").headers["X-Frame-Options"] == "DENY"


def test_static_assets_and_head(app):
    css = app.handle("GET", "/static/viewer.css")
    assert css.status == 200 and css.content_type.startswith("text/css")
    head = app.handle("HEAD", "/static/viewer.js")
    assert head.status == 200 and head.body == b"" and int(head.headers["Content-Length"]) > 100
    assert app.handle("GET", "/static/pages/base.html").status in (400, 404)  # templates are not assets


# --- refusals ----------------------------------------------------------------------------------------

TRAVERSALS = [
    "/static/../../../etc/passwd",
    "/static/%2e%2e/%2e%2e/etc/passwd",
    "/static/..%2f..%2fetc%2fpasswd",
    "/blob/..%2F..%2Fetc%2Fpasswd",
    "/%2e%2e/%2e%2e/pyproject.toml",
    "/static/..%5c..%5cviewer.css",
    "/static/%252e%252e/%252e%252e/etc/passwd",
    "/static/./viewer.css",
    "//etc/passwd",
    "/static/viewer.css%00.png",
    "/runs/..",
    "/episodes/%2e%2e",
]


@pytest.mark.parametrize("target", TRAVERSALS)
def test_path_traversal_is_refused(server, target):
    status, headers, body = _raw(server, "GET", target)
    assert status in (400, 404), (target, status)
    assert b"root:" not in body and b"[project]" not in body
    assert "default-src 'none'" in headers["content-security-policy"]


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"])
def test_write_methods_are_refused_and_change_nothing(server, sample, method):
    path, ids = sample
    before = _db_digest(path)
    for target in ("/", f"/runs/{ids['scripted']}", "/blob/" + "a" * 64, "/static/viewer.css"):
        status, headers, _ = _raw(server, method, target, body=b'{"status": "deleted"}')
        assert status == 405, (method, target, status)
        assert headers["allow"] == "GET, HEAD"
    assert _db_digest(path) == before


SQLISH = [
    "/runs/1'%20OR%20'1'='1",
    "/runs/x%3BDROP%20TABLE%20runs",
    "/episodes/1%20UNION%20SELECT%20*%20FROM%20blobs",
    "/episodes/abc%22--",
    "/compare?a=1'%20OR%201=1--&b=x",
    "/diverge?a=x&b=y;DELETE%20FROM%20turns",
    "/?task=x'%20OR%201=1--&outcome=success",
    "/?outcome=1%20OR%201",
    "/episodes/abc?turn=1%20OR%201=1",
    "/runs/" + "a" * 200,
]


@pytest.mark.parametrize("target", SQLISH)
def test_sql_like_ids_are_refused_or_match_nothing(server, sample, target):
    path, _ = sample
    before = _db_digest(path)
    status, _, body = _raw(server, "GET", target)
    assert status in (200, 400, 404), (target, status)
    if status == 200:  # a filter value is a bound parameter: it matches nothing
        assert b"no episodes match" in body
    assert _db_digest(path) == before


def test_foreign_host_headers_are_refused(server):
    status, _, _ = _raw(server, "GET", "/", {"Host": "attacker.example:80"})
    assert status == 421
    assert _raw(server, "GET", "/", {"Host": f"localhost:{server.port}"})[0] == 200


def test_the_store_is_opened_read_only(sample, tmp_path):
    path, ids = sample
    store = open_readonly(f"sqlite:///{path}")
    with pytest.raises(Exception, match="readonly|read-only|query_only|attempt to write"):
        store.finish_run(ids["scripted"], "tampered")
    assert store.get_run(ids["scripted"]).status == "finished"
    missing = tmp_path / "nothing-here.db"
    with pytest.raises(DatabaseNotFound):
        open_readonly(f"sqlite:///{missing}")
    assert not missing.exists()


# --- comparison --------------------------------------------------------------------------------------


def test_comparison_matrix_and_tallies(sample, sample_url):
    _, ids = sample
    data = ViewerData(open_readonly(sample_url))
    c = compare_runs(data, ids["reference"], ids["scripted"])
    assert [t for t, _ in c.rows] == ["BabyAI-GoToLocal-v0", "BabyAI-PickupLoc-v0"] and c.seeds == [0, 1]
    assert all(cell.change == "lost" for _, cells in c.rows for cell in cells)
    assert (c.total.a_pass, c.total.a_total, c.total.b_pass) == (4, 4, 0)
    assert [t.a_rate for t in c.per_task] == [1.0, 1.0]


def test_first_divergence_of_paired_episodes(sample, sample_url):
    _, ids = sample
    data = ViewerData(open_readonly(sample_url))
    ref = {(e.task, e.seed): e for e in data.all_episodes(ids["reference"])}
    scr = {(e.task, e.seed): e for e in data.all_episodes(ids["scripted"])}
    a, b = ref[("BabyAI-GoToLocal-v0", 0)], scr[("BabyAI-GoToLocal-v0", 0)]
    div = first_divergence(data, a.id, b.id)
    assert div.turn == 0 and "answer" in div.differences and "observation" not in div.differences
    assert first_divergence(data, b.id, b.id).turn is None


def test_compare_and_diverge_pages(app, sample):
    _, ids = sample
    page = app.handle("GET", f"/compare?a={ids['reference']}&b={ids['scripted']}").body.decode()
    assert "Pass/fail by task and seed" in page and page.count('class="cell ch-lost"') == 4
    link = re.search(r'href="(/diverge\?a=[^"]+)"', page).group(1).replace("&amp;", "&")
    div = app.handle("GET", link).body.decode()
    # turns numbered as the prompts number them
    assert "First difference at <strong>turn 1</strong>" in div and "turn 0" not in div
    # the reference run sent no frames: its side says so rather than leaving a gap; the other shows its frame
    assert div.count("No frame was recorded") == 1 and div.count('class="frame small"') == 1
    assert app.handle("GET", "/compare?a=nope&b=nope").status == 404


# --- trajectory ----------------------------------------------------------------------------------------


def test_positions_come_from_structured_pose_or_ascii_views():
    assert pose_of({"structured": {"position": [3, 4], "orientation": "north"}}) == Pose(3.0, 4.0, "north")
    assert pose_of({"structured": {"position": [1.5, 0.2, 7.0]}}) == Pose(1.5, 7.0, None)  # y-up world: x, z
    assert pose_of({"pose": {"position": [2, 9], "heading": 90}}) == Pose(2.0, 9.0, 90)
    ascii_map = (
        "#####\n#.>.#\n#####\n\nLegend:\n> = you, facing east, at x=2, y=1 (x counts columns)\n# = wall"
    )
    assert pose_of({"ascii": ascii_map}) == Pose(2.0, 1.0, "east")
    assert pose_of({"ascii": "#####\n#..v#\n#####"}) == Pose(3.0, 1.0, "south")
    assert pose_of({"status_text": "Step: 1"}) is None and pose_of(None) is None
    grid = grid_of({"ascii": ascii_map})
    assert grid.rows == ("#####", "#.>.#", "#####") and ("#", "wall") in grid.legend


def test_both_position_sources_agree_on_recorded_episodes(sample):
    """The scripted run stores the structured view too: its position must match the ASCII legend."""
    path, ids = sample
    store = open_readonly(f"sqlite:///{path}")
    for e in store.list_episodes(run_id=ids["scripted"]):
        for t in store.get_turns(e.id, with_messages=False):
            structured = pose_of(t.observation)
            from_ascii = pose_of({"ascii": t.observation["ascii"]})
            assert structured == from_ascii


# --- long episodes ----------------------------------------------------------------------------------------


def test_a_turn_page_of_a_long_episode_stays_small(tmp_path):
    db = f"sqlite:///{tmp_path / 'long.db'}"
    store = TranscriptStore(db)
    run = store.create_run("gridworld", ["T"], "m", {}, {"system.j2": "s", "turn.j2": "t"})
    episode = store.start_episode(run, "T", 0)
    system = Message("system", "rules " * 50)
    history: list[Message] = []
    for i in range(2500):
        user = Message("user", f"turn {i}: the map\n" + "#....#\n" * 8)
        x = i % 6
        obs = {
            "step": i,
            "images": [],
            "status_text": f"Step: {i}",
            "ascii": None,
            "language": None,
            "structured": {"position": [x, 3], "orientation": "east", "grid_size": {"width": 8, "height": 8}},
            "mission": "go",
            "reward": 0.0,
            "total_reward": i / 2500,
            "health": None,
            "done": False,
            "success": None,
        }
        store.add_turn(
            episode,
            TurnRecord(
                index=i,
                observation=obs,
                messages=[system, *history[-40:], user],
                answer="Go(1);",
                usage=Usage(100 + i, 5, 0.001),
                latency_s=0.5,
                cached=False,
                script=[{"name": "Go", "args": [1]}],
                parse_error=None,
                compile_error=None,
                actions=[2],
                reward=1 / 2500,
                total_reward=(i + 1) / 2500,
                health=None,
                done=False,
                timings={},
            ),
        )
        history += [user, Message("assistant", "Go(1);")]
    store.close()
    app = ViewerApp(open_readonly(db))
    page = app.handle("GET", f"/episodes/{episode}?turn=1800")
    html = page.body.decode()
    assert page.status == 200 and "turn 1801 of 2500" in html
    assert len(page.body) < 400_000
    assert html.count('class="chip') <= 61  # a window of the turn strip, not 2,500 links
    assert html.count('class="hit"') <= 5 * MAX_COLUMNS  # bucketed figure columns
    assert html.count('class="msg role-') <= 2 + 6 + 1  # system, a few history messages, the turn's own


# --- static export ---------------------------------------------------------------------------------------


def _targets(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"#?]+)', html)


def test_static_export_is_self_contained(sample, tmp_path):
    path, ids = sample
    store = open_readonly(f"sqlite:///{path}")
    ref_episode = store.list_episodes(run_id=ids["reference"])[0]
    out = tmp_path / "bundle"
    counts = export_bundle(store, out, run_ids=[ids["scripted"]], episode_ids=[ref_episode.id])
    exported = [*store.list_episodes(run_id=ids["scripted"]), ref_episode]
    assert counts["episodes"] == 5 and counts["images"] > 0
    assert counts["pages"] == sum(max(1, len(store.get_turns(e.id, with_messages=False))) for e in exported)
    pages = sorted(out.rglob("*.html"))
    assert len(pages) == counts["pages"] + 1
    for page in pages:
        html = page.read_text()
        assert (
            "/blob/" not in html
            and "data:image" not in html
            and "http://" not in html.replace("http://www.w3.org", "")
        )
        for target in _targets(html):
            assert not target.startswith("/"), (page, target)
            assert (page.parent / target).resolve().is_file(), (page, target)
    for image in (out / "images").iterdir():
        assert hashlib.sha256(image.read_bytes()).hexdigest() == image.stem
    # shared without the database
    shutil.copytree(out, tmp_path / "elsewhere")
    assert (tmp_path / "elsewhere" / "index.html").read_text().count('class="ep-link"') == 5


def test_export_refuses_to_replace_a_folder_that_is_not_a_bundle(sample, tmp_path):
    path, ids = sample
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError):
        export_bundle(open_readonly(f"sqlite:///{path}"), precious, run_ids=[ids["reference"]])
    assert (precious / "notes.txt").read_text() == "keep me"
    assert [p.name for p in tmp_path.iterdir()] == ["precious"]  # no temporary folder left behind


# --- live databases and the command ------------------------------------------------------------------


def test_the_viewer_follows_an_episode_that_is_still_being_written(tmp_path):
    db = f"sqlite:///{tmp_path / 'live.db'}"
    writer = TranscriptStore(db)
    run = writer.create_run("gridworld", ["T"], "m", {}, {"system.j2": "s", "turn.j2": "t"})
    episode = writer.start_episode(run, "T", 0)

    def add(i: int) -> None:
        obs = {
            "step": i,
            "images": [],
            "status_text": "",
            "ascii": None,
            "language": None,
            "structured": None,
            "mission": None,
            "reward": 0.0,
            "total_reward": 0.0,
            "health": None,
            "done": False,
            "success": None,
        }
        writer.add_turn(
            episode,
            TurnRecord(
                i,
                obs,
                [Message("user", f"t{i}")],
                f"Go({i + 1});",
                Usage(),
                0.1,
                False,
                [{"name": "Go", "args": [i + 1]}],
                None,
                None,
                [2],
                0.0,
                0.0,
                None,
                False,
                {},
            ),
        )

    add(0)
    app = ViewerApp(open_readonly(db))
    assert "turn 1 of 1" in app.handle("GET", f"/episodes/{episode}").body.decode()
    add(1)
    add(2)
    page = app.handle("GET", f"/episodes/{episode}?turn=2").body.decode()
    assert "turn 3 of 3" in page and "Go(3);" in page
    assert "running" in app.handle("GET", "/").body.decode()
    writer.close()


def test_view_command_serves_until_interrupted_and_exports(sample, tmp_path):
    import signal
    import subprocess
    import urllib.request

    from agentkit.testing.cli_runner import AGENTKIT, cli_env, ctrl_c_reaches_the_command, run_cli

    path, ids = sample
    proc = subprocess.Popen(
        [*AGENTKIT, "view", "--db", f"sqlite:///{path}", "--port", "0"],
        cwd=tmp_path,
        preexec_fn=ctrl_c_reaches_the_command,  # a Ctrl-C, even under a background runner
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", line).group(1)
        with urllib.request.urlopen(url, timeout=10) as resp:
            assert resp.status == 200 and ids["scripted"] in resp.read().decode()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    missing = run_cli(["view"], tmp_path, check=False)  # no agentkit.db here: nothing is created
    assert missing.returncode == 2 and "no transcript database" in missing.stderr
    assert not (tmp_path / "agentkit.db").exists()
    proc2 = run_cli(
        ["view", "--db", f"sqlite:///{path}", "--export", str(tmp_path / "out"), "--run", ids["reference"]],
        tmp_path,
    )
    assert "exported 4 episodes" in proc2.stderr and (tmp_path / "out" / "index.html").is_file()
    bad = run_cli(["view", "--db", f"sqlite:///{path}", "--run", ids["reference"]], tmp_path, check=False)
    assert bad.returncode == 2 and "--export" in bad.stderr


def test_transcript_text_is_escaped_everywhere(tmp_path):
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    db = f"sqlite:///{tmp_path / 'evil.db'}"
    store = TranscriptStore(db)
    run = store.create_run("gridworld", [evil], evil, {"note": evil}, {"system.j2": evil, "turn.j2": "t"})
    episode = store.start_episode(run, evil, 0)
    ascii_map = f"#<#\n#>.\n\nLegend:\n> = you, facing east, at x=1, y=1\n< = {evil}\n# = wall"
    obs = {
        "step": 0,
        "images": [],
        "status_text": evil,
        "ascii": ascii_map,
        "language": evil,
        "structured": None,
        "mission": evil,
        "reward": 0.0,
        "total_reward": 0.0,
        "health": None,
        "done": False,
        "success": None,
    }
    store.add_turn(
        episode,
        TurnRecord(
            0,
            obs,
            [Message("system", evil), Message(evil, evil, (ToolCall(evil, evil, evil),), evil)],
            evil,
            Usage(),
            0.0,
            False,
            None,
            {"code": evil, "message": evil, "position": None, "snippet": evil},
            evil,
            [],
            0.0,
            0.0,
            None,
            False,
            {evil: 1.0},
        ),
    )
    store.close()
    app = ViewerApp(open_readonly(db))
    for target in (
        "/",
        f"/runs/{run}",
        f"/episodes/{episode}",
        f"/compare?a={run}&b={run}",
        f"/diverge?a={episode}&b={episode}",
        "/?task=%3Cscript%3E",
    ):
        html = app.handle("GET", target).body.decode()
        assert "<script>alert" not in html and "<img src=x" not in html, target
        assert html.count("<script") == 1  # only the viewer's own script tag
