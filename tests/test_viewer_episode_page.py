"""The episode page on episodes of every backend: positions, lines that apply, one turn numbering,
frames once, readable figures, folded errors, a map without images, and the GIF of the frames.

Episodes are recorded with the real `agentkit run` (the reference agent: Animal-AI on its built-in
arena build, the pybullet arena, TriFinger, gridworld; no images) and the shared gridworld sample
(a weak scripted model with images and unusable answers); pages are read from a `ViewerApp` over a
read-only store, the GIF through a real HTTP server and the `view --export-gif` command.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import sqlite3
import urllib.error
import urllib.request

import pytest
from PIL import Image
from viewer_sample import sample_database

from agentkit.testing.cli_runner import run_cli, run_json
from agentkit.transcripts import TranscriptStore
from agentkit.viewer import ViewerApp, ViewerServer, open_readonly
from agentkit.viewer.episode_parts import fold_error

RUNS = {  # backend -> the `agentkit run` arguments of one short reference episode, without images
    "animalai": ["--env", "animalai", "--aai-build", "builtin", "--task", "04-03-01", "--max-scripts", "3"],
    "aai-arena": ["--env", "aai-arena", "--task", "04-03-01", "--max-scripts", "3"],
    "trifinger": ["--env", "trifinger", "--task", "pushing", "--max-scripts", "3"],
    "gridworld": ["--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--max-scripts", "3"],
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("episode-page")
    db = f"sqlite:///{folder / 'runs.db'}"
    episodes = {}
    for env, args in RUNS.items():
        data = run_json(["run", *args, "--no-images", "--db", db], folder)
        episodes[env] = data["episodes"][0]["episode_id"]
    return folder / "runs.db", episodes


@pytest.fixture(scope="module")
def app(recorded):
    return ViewerApp(open_readonly(f"sqlite:///{recorded[0]}"))


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "viewer-sample.db"  # shared with the other viewer tests
    return path, sample_database(path)


@pytest.fixture(scope="module")
def scripted(sample):
    """The sample's weak-model gridworld episode (images, unusable answers) and a viewer app on it."""
    path, ids = sample
    store = TranscriptStore(f"sqlite:///{path}")
    try:
        episode = next(
            e for e in store.list_episodes(run_id=ids["scripted"]) if e.task == "BabyAI-GoToLocal-v0"
        )
        turns = store.get_turns(episode.id, with_messages=False)
    finally:
        store.close()
    return episode, turns, ViewerApp(open_readonly(f"sqlite:///{path}"))


def _page(app: ViewerApp, path: str) -> str:
    response = app.handle("GET", path)
    assert response.status == 200, response.body[:300]
    return response.body.decode()


@pytest.mark.parametrize("env", list(RUNS))
def test_every_backend_draws_its_positions_on_a_map(app, recorded, env):
    _, episodes = recorded
    html = _page(app, f"/episodes/{episodes[env]}?turn=0")
    assert 'class="map"' in html and 'class="agent"' in html, env
    assert "no-positions" not in html and "no-path" not in html, env
    assert "no position" not in html, env
    # no image was sent (--no-images, the reference agent): the map takes the frames' place
    assert 'class="panel frames"' not in html and "Map <small>no image was sent" in html
    if env == "trifinger":  # what moves across TriFinger's floor is its block, and the page says so
        assert "where block 0 was when the model was asked" in html
    else:
        assert "where the agent stood when the model was asked" in html


def test_the_clock_line_appears_only_where_a_clock_was_run_out(app, recorded, scripted):
    _, episodes = recorded
    arena = _page(app, f"/episodes/{episodes['aai-arena']}")
    assert 'class="meta clock"' in arena and "idle steps" in arena  # Animal-AI ran its clock out
    episode, _, sample_app = scripted
    assert (episode.metrics or {}).get("clock_run_out", {}).get("idle_steps") == 0  # gridworld: no clock
    grid = _page(sample_app, f"/episodes/{episode.id}")
    assert 'class="meta clock"' not in grid and "idle steps" not in grid
    trifinger = _page(app, f"/episodes/{episodes['trifinger']}")
    assert "health" not in re.sub(r"<section class=\"panel prompt\">.*?</section>", "", trifinger, flags=re.S)


def test_turns_are_numbered_from_one_as_the_prompts_number_them(scripted):
    episode, turns, app = scripted
    n = len(turns)
    first = _page(app, f"/episodes/{episode.id}?turn=0")
    assert f'id="turn-label">turn 1 of {n}<' in first and "Turn 1 of at most" in first
    assert "(last " not in first and "turn 0" not in first
    chips = re.findall(r'class="chip[^"]*"[^>]*>(\d+)</a>', first)
    assert chips == [str(i) for i in range(1, n + 1)]
    assert "<title>turn 1</title>" in first  # the figures' columns
    assert f"<title>turn {n}</title>" in first
    # the "go to" box takes the page's number; links keep the stored index
    assert _page(app, f"/episodes/{episode.id}?number=3") == _page(app, f"/episodes/{episode.id}?turn=2")
    missing = app.handle("GET", f"/episodes/{episode.id}?number={n + 1}")
    assert missing.status == 404 and f"no turn {n + 1} (it has {n}: turns 1-{n}" in missing.body.decode()


def test_a_turns_frames_are_shown_once(scripted):
    episode, turns, app = scripted
    for index in (0, 1):
        html = _page(app, f"/episodes/{episode.id}?turn={index}")
        (frame,) = turns[index].observation["images"]
        sha = frame["sha256"]
        assert len(re.findall(rf'<img[^>]+src="/blob/{sha}"', html)) == 1, index
        assert "shown under Frames sent" in html  # where the prompt carried it
        assert 'class="msg-img"' not in html.split('class="panel prompt"')[1].split("</details>")[-1]


def test_figures_are_tall_and_their_axes_named(scripted):
    episode, _, app = scripted
    html = _page(app, f"/episodes/{episode.id}")
    heights = [int(h) for h in re.findall(r'class="chart" viewBox="0 0 640 (\d+)"', html)]
    assert len(heights) >= 3 and min(heights) >= 170
    for axis in ("reward", "tokens", "seconds", "turn"):
        assert f'class="axis-title">{axis}</text>' in html, axis
    assert "in (prompt)" in html and "out (answer)" in html  # the token bars' key


def test_an_episode_error_is_one_line_with_its_chain_on_demand(recorded, tmp_path):
    db_path, episodes = recorded
    copy = tmp_path / "errored.db"
    shutil.copy(db_path, copy)
    chain = (
        "ModelError: the model call failed after 3 attempts\n"
        "  caused by: APIConnectionError: Connection refused\n"
        "  caused by: ConnectionRefusedError: [Errno 111] Connection refused"
    )
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE episodes SET error = ? WHERE id = ?", (chain, episodes["gridworld"]))
    html = _page(ViewerApp(open_readonly(f"sqlite:///{copy}")), f"/episodes/{episodes['gridworld']}")
    head = html.split('<nav class="turnnav"')[0]
    assert (
        '<details class="error-chain" id="episode-error"><summary class="err">'
        "ModelError: the model call failed after 3 attempts</summary>" in head
    )
    assert "ConnectionRefusedError: [Errno 111]" in head.split("<summary")[1].split("</summary>")[1]
    long = fold_error("x" * 500)
    assert long is not None and len(long.line) <= 160 and long.folded
    short = fold_error("one line")
    assert short is not None and not short.folded and fold_error("  \n") is None


def test_the_frames_of_an_episode_play_back_and_export_as_a_gif(scripted, sample, tmp_path):
    episode, turns, app = scripted
    html = _page(app, f"/episodes/{episode.id}?turn=1")
    assert 'id="playback"' in html and 'data-start="2"' in html and "playback.js" in html
    assert f'href="/episodes/{episode.id}/frames.gif"' in html
    path, _ = sample
    with ViewerServer(open_readonly(f"sqlite:///{path}"), port=0) as server:
        with urllib.request.urlopen(f"{server.url}episodes/{episode.id}/frames.gif", timeout=60) as resp:
            assert resp.headers["Content-Type"] == "image/gif"
            assert "attachment" in resp.headers["Content-Disposition"]
            served = resp.read()
    with Image.open(io.BytesIO(served)) as gif:
        assert gif.format == "GIF" and gif.n_frames == len(turns) and gif.info["loop"] == 0
        assert min(gif.size) >= 200  # small cameras are enlarged to be seen
    out = tmp_path / "episode.gif"
    run_cli(
        ["view", "--db", f"sqlite:///{path}", "--export-gif", str(out), "--episode", episode.id], tmp_path
    )
    assert out.read_bytes()[:6] == b"GIF89a" and out.stat().st_size == len(served)
    missing = run_cli(["view", "--db", f"sqlite:///{path}", "--export-gif", str(out)], tmp_path, check=False)
    assert missing.returncode != 0 and "--episode" in missing.stderr and "Traceback" not in missing.stderr


def test_an_episode_without_images_has_no_player_and_no_gif(app, recorded):
    _, episodes = recorded
    html = _page(app, f"/episodes/{episodes['aai-arena']}")
    assert 'id="playback"' not in html and "frames.gif" not in html
    response = app.handle("GET", f"/episodes/{episodes['aai-arena']}/frames.gif")
    assert response.status == 404 and b"sent no images" in response.body


def test_an_old_transcript_without_positions_says_so_once(recorded, tmp_path):
    """A transcript stored before its backend kept a pose: the page says why there is no map,
    without claiming the backend has no positions."""
    db_path, episodes = recorded
    copy = tmp_path / "old.db"
    shutil.copy(db_path, copy)
    with sqlite3.connect(copy) as conn:
        rows = conn.execute("SELECT id, observation FROM turns WHERE episode_id = ?", (episodes["animalai"],))
        for turn_id, text in rows.fetchall():
            observation = json.loads(text)
            observation.pop("pose", None)
            observation["structured"] = None
            conn.execute("UPDATE turns SET observation = ? WHERE id = ?", (json.dumps(observation), turn_id))
        conn.execute(
            "UPDATE episode_contexts SET world_map = NULL WHERE episode_id = ?", (episodes["animalai"],)
        )
    html = _page(ViewerApp(open_readonly(f"sqlite:///{copy}")), f"/episodes/{episodes['animalai']}")
    assert html.count("store no position") == 1 and "no positions are stored for this backend" not in html


def test_trifinger_observations_carry_the_block_pose_and_a_map(recorded):
    db_path, episodes = recorded
    store = TranscriptStore(f"sqlite:///{db_path}")
    try:
        (first, *_) = store.get_turns(episodes["trifinger"], with_messages=False)
        drawing = store.get_world_map(episodes["trifinger"]).to_json()
    finally:
        store.close()
    pose = first.observation["pose"]
    assert pose["label"] == "block 0" and len(pose["position"]) == 2
    assert all(abs(v) < 0.2 for v in pose["position"])  # metres on the floor disc
    labels = [s["label"] for s in drawing["shapes"]]
    assert labels[0] == "arena floor" and "goal 0" in labels and "block 0 at the start" in labels


@pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])
def test_the_gif_route_refuses_unknown_episodes(recorded):
    db_path, _ = recorded
    with ViewerServer(open_readonly(f"sqlite:///{db_path}"), port=0) as server:
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{server.url}episodes/nosuchepisode/frames.gif", timeout=30)
        assert err.value.code == 404


def test_the_player_of_a_long_episode_holds_a_window_around_the_turn():
    from agentkit.viewer.episode_parts import PLAYBACK_TURNS, playback
    from agentkit.viewer.frame_refs import FrameRef
    from agentkit.viewer.links import LiveLinks
    from agentkit.viewer.queries import TurnPoint

    def point(i: int) -> TurnPoint:
        frame = FrameRef(f"{i:064x}", "image/png", "camera")
        return TurnPoint(i, 0.0, 0.0, None, False, True, False, 1, 1, 1, 0.0, 0.1, False, None, (frame,))

    points = [point(i) for i in range(3000)]
    media: dict[str, str] = {}
    held = playback(points, LiveLinks(), media, current=1800)
    numbers = [t["turn"] for t in held]
    assert len(held) == PLAYBACK_TURNS and numbers == list(range(numbers[0], numbers[0] + PLAYBACK_TURNS))
    assert 1801 in numbers and abs(numbers.index(1801) - PLAYBACK_TURNS // 2) <= 1
    assert len(media) == PLAYBACK_TURNS  # only the held frames are collected (a static export's images)
    end = playback(points, LiveLinks(), {}, current=2999)
    assert end[-1]["turn"] == 3000 and len(end) == PLAYBACK_TURNS
    assert playback(points[:1], LiveLinks(), {}) == []  # one turn with frames: nothing to play


def test_a_hostile_frame_label_cannot_leave_the_players_data_block(tmp_path):
    """A label comes from the database: written into the page's JSON block it must not end it."""
    db = f"sqlite:///{tmp_path / 'hostile.db'}"
    store = TranscriptStore(db)
    run = store.create_run("gridworld", ["T"], "m", {}, {"system.j2": "s", "turn.j2": "t"})
    episode = store.start_episode(run, "T", 0)
    from agentkit.messages import Message
    from agentkit.records import TurnRecord, Usage

    for i in range(2):
        label = '</script><script>alert("x")</script>'
        images = [{"label": label, "media_type": "image/png", "sha256": f"{i:064x}", "width": 8, "height": 8}]
        obs = {"step": i, "images": images, "status_text": "", "reward": 0.0, "total_reward": 0.0}
        store.add_turn(
            episode,
            TurnRecord(
                index=i,
                observation=obs,
                messages=[Message("user", "t")],
                answer="Go(1);",
                usage=Usage(1, 1, 0.0),
                latency_s=0.1,
                cached=False,
                script=[{"name": "Go", "args": [1]}],
                parse_error=None,
                compile_error=None,
                actions=[2],
                reward=0.0,
                total_reward=0.0,
                health=None,
                done=False,
                timings={},
            ),
        )
    store.close()
    html = _page(ViewerApp(open_readonly(db)), f"/episodes/{episode}")
    block = html.split('<script type="application/json" id="playback-data">')[1].split("</script>")[0]
    assert json.loads(block)[0]["frames"][0]["label"] == '</script><script>alert("x")</script>'
    assert "<script>alert" not in html
