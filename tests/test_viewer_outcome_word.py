"""One outcome word in the viewer: Animal-AI episodes are "pass"/"fail" on every page, counted as
`agentkit eval` and `agentkit report aai` count them; the compare page colours pass and fail and
sums them per level.

Two runs of the reference agent are stored with `agentkit eval` (a real subprocess), one of them
with its ``success`` column made to disagree with its ``pass`` metric, as runs stored before the
two were made to agree do (the issue's 87 "success" against 93 "pass"). The viewer is a real HTTP
server on 127.0.0.1; the colours are read from headless Chromium where it is installed.
"""

from __future__ import annotations

import importlib.util
import re
import sqlite3
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agentkit.outcome_words import stored_outcome
from agentkit.reports.levels import level_title
from agentkit.testing.cli_runner import run_json
from agentkit.transcripts import TranscriptStore
from agentkit.viewer import ViewerServer, open_readonly
from agentkit.viewer.queries import ViewerData

# At 6 scripts the reference agent passes 01-04-03 and 07-17-01 and fails 04-03-01; at 1 script it
# fails 01-04-03 and 07-17-01 too (the compare page's "lost" cells).
TASKS = ["01-04-03", "04-03-01", "07-17-01"]
EXPERIMENT = """name: outcome-word
env: aai-arena
tasks: [{tasks}]
model: reference
trials: 2
seed: 0
max_scripts: {scripts}
include_images: false
"""


class _Text(HTMLParser):
    """The text a reader sees (no tags, no attribute values, no <pre> configuration dumps)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("pre", "script", "style", "details"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("pre", "script", "style", "details"):
            self._skip = max(0, self._skip - 1)

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _visible(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """(db path, eval JSON of run A (6 scripts), eval JSON of run B (1 script))."""
    folder = tmp_path_factory.mktemp("outcome-word")
    db = folder / "runs.db"
    runs = []
    for scripts in (6, 1):
        spec = folder / f"exp{scripts}.yaml"
        spec.write_text(EXPERIMENT.format(tasks=", ".join(TASKS), scripts=scripts), encoding="utf-8")
        runs.append(run_json(["eval", str(spec), "--db", f"sqlite:///{db}"], folder))
    a, b = runs
    # Run A as an older version stored it: a failed episode with success = 1 beside pass = false.
    failed = next(e for e in a["episodes"] if e["pass"] is False)
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE episodes SET success = 1 WHERE id = ?", (failed["episode_id"],))
    con.close()
    return db, a, b


@pytest.fixture(scope="module")
def viewer(stored):
    db, _, _ = stored
    with ViewerServer(open_readonly(f"sqlite:///{db}"), port=0) as server:
        yield server


def _get(server: ViewerServer, path: str) -> str:
    with urllib.request.urlopen(server.url.rstrip("/") + path, timeout=20) as resp:
        return resp.read().decode("utf-8")


def _badges(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<span class="badge b-([\w-]+)">([^<]*)</span>', html)


def test_the_viewer_counts_what_eval_and_the_report_count(stored, viewer, tmp_path):
    db, a, _ = stored
    passed = sum(e["pass"] is True for e in a["episodes"])
    judged = sum(e["pass"] is not None for e in a["episodes"])
    assert a["outcome"] == "pass" and a["pass_rate"] == passed / judged and 0 < passed < judged
    report = run_json(
        [
            "report",
            "aai",
            "--runs",
            a["run_id"],
            "--tasks",
            ",".join(TASKS),
            "--db",
            f"sqlite:///{db}",
            "--no-figure",
        ],
        tmp_path,
    )
    overall = report["overall"]
    assert (overall["passed"]["runs"][a["run_id"]], overall["n"]["runs"][a["run_id"]]) == (passed, judged)

    index = _get(viewer, "/")
    row = next(r for r in re.findall(r"<tr>.*?</tr>", index, re.S) if a["run_id"] in r)
    assert f"{passed}/{judged} pass" in _visible(row)  # not 6/8 "success" from the tampered success column
    run_page = _get(viewer, f"/runs/{a['run_id']}")
    words = [w for _, w in _badges(run_page)]
    assert words.count("pass") == passed and words.count("fail") == judged - passed
    only_pass = _get(viewer, f"/runs/{a['run_id']}?outcome=pass")
    assert {w for _, w in _badges(only_pass)} == {"pass"} and len(_badges(only_pass)) == passed
    assert len(_badges(_get(viewer, f"/runs/{a['run_id']}?outcome=success"))) == passed  # the old filter name


def test_no_page_says_success_for_an_animal_ai_episode(stored, viewer):
    _, a, b = stored
    failed = next(e for e in a["episodes"] if e["pass"] is False)
    pages = {
        "runs": _get(viewer, "/"),
        "run": _get(viewer, f"/runs/{a['run_id']}"),
        "episode": _get(viewer, f"/episodes/{failed['episode_id']}"),
        "compare": _get(viewer, f"/compare?a={a['run_id']}&b={b['run_id']}"),
    }
    for name, html in pages.items():
        text = _visible(html)
        assert not re.search(r"\bsuccess(es)?\b|\bfailure\b", text, re.I), (
            name,
            re.findall(r".{40}success.{40}", text),
        )
        assert re.search(r"\b(pass|fail)\b", text), name
    assert _badges(pages["episode"]) == [("fail", "fail")]
    # the filter offers the backend's words
    assert (
        '<option value="pass">pass</option>' in pages["run"]
        and '<option value="fail">fail</option>' in pages["run"]
    )


def test_stored_outcome_and_its_sql_twin_agree(stored):
    db, _, _ = stored
    store = TranscriptStore(f"sqlite:///{db}")
    try:
        data = ViewerData(store)
        rows = {r.id: r.outcome for r in data.episodes(limit=100).items}
        for episode in store.list_episodes():
            rule = store.get_run(episode.run_id).config.get("pass_rule")
            assert rows[episode.id] == stored_outcome(
                episode.status, episode.success, episode.end_reason, episode.metrics, rule
            )
        # broken and interrupted episodes are judged from their end reason, as the report does
        assert stored_outcome("finished", True, "model_error", {"pass": True}, "aai") == "fail"
        assert stored_outcome("finished", False, "model_error", {"pass": None}, "llm-aai") == "no-verdict"
        assert stored_outcome("finished", True, "cancelled", {}, "aai") == "no-verdict"
        assert stored_outcome("finished", True, "goal", {}, None) == "pass"  # no pass metric: success
        assert stored_outcome("running", None, None, None, "aai") == "incomplete"
    finally:
        store.close()


def test_compare_page_colours_pass_and_fail_and_sums_levels(stored, viewer):
    _, a, b = stored
    html = _get(viewer, f"/compare?a={a['run_id']}&b={b['run_id']}")
    marks = re.findall(r'class="mark m-(pass|fail|incomplete|no-verdict)" title="([^"]*)">([^<]*)<', html)
    want_pass = sum(e["pass"] is True for e in a["episodes"] + b["episodes"])
    assert sum(kind == "pass" for kind, _, _ in marks) == want_pass
    assert all(
        (kind, title, symbol) in {("pass", "pass", "✓"), ("fail", "fail", "✗")}
        for kind, title, symbol in marks
    )
    assert "ch-lost" in html  # run B (one script) loses tasks run A passes
    levels = re.search(r'<table class="list levels">.*?</table>', html, re.S).group(0)
    for level in sorted({e["level"] for e in a["episodes"]}):
        ea = [e for e in a["episodes"] if e["level"] == level]
        eb = [e for e in b["episodes"] if e["level"] == level]
        row = re.search(rf"<th>{level_title(level)}</th>(.*?)</tr>", levels, re.S).group(1)  # "L4 Avoidance"
        cells = re.findall(r"(\d+)/(\d+)", row)
        assert cells == [
            (str(sum(e["pass"] for e in ea)), str(len(ea))),
            (str(sum(e["pass"] for e in eb)), str(len(eb))),
        ]
    assert re.search(r"<th>all tasks</th>", levels) and 'class="num down"' in levels


def test_compare_colours_in_chromium(stored, viewer):
    # The DevTools client of the browser tests (tests/ is not a package: load it by its path).
    spec = importlib.util.spec_from_file_location(
        "viewer_browser", Path(__file__).with_name("test_viewer_browser.py")
    )
    browsing = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(browsing)
    CHROMIUM, Browser = browsing.CHROMIUM, browsing.Browser
    if CHROMIUM is None:
        pytest.skip("no chromium on PATH (./dev setup installs Debian's)")
    _, a, b = stored
    browser = Browser(CHROMIUM)
    try:
        browser.goto(f"{viewer.url}compare?a={a['run_id']}&b={b['run_id']}")
        colour = "(s => getComputedStyle(document.querySelector(s)).color)"
        ok, bad = browser.evaluate(f"[{colour}('td.cell .m-pass'), {colour}('td.cell .m-fail')]")
        assert ok == "rgb(31, 138, 59)" and bad == "rgb(192, 57, 43)"  # --ok and --bad of viewer.css
        assert browser.problems() == []
    finally:
        browser.close()


def test_the_static_export_says_the_same(stored, tmp_path):
    from agentkit.viewer import export_bundle

    db, a, _ = stored
    export_bundle(open_readonly(f"sqlite:///{db}"), tmp_path / "bundle", run_ids=[a["run_id"]])
    words = [w for _, w in _badges((tmp_path / "bundle" / "index.html").read_text(encoding="utf-8"))]
    assert sorted(words) == sorted("pass" if e["pass"] else "fail" for e in a["episodes"])


def test_other_backends_use_the_same_words(tmp_path):
    """A gridworld run (no pass metric: its success flag is the verdict) says pass/fail too, never
    success/failure (issue 30 item 6: one vocabulary everywhere)."""
    db = f"sqlite:///{tmp_path / 'grid.db'}"
    data = run_json(
        ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--episodes", "2", "--db", db],
        tmp_path,
    )
    assert data["outcome"] == "pass"
    passed = sum(bool(e["success"]) for e in data["episodes"])
    with ViewerServer(open_readonly(db), port=0) as server:
        run_page = _get(server, f"/runs/{data['run_id']}")
        index = _get(server, "/")
    words = [w for _, w in _badges(run_page)]
    assert len(words) == 2 and set(words) <= {"pass", "fail"} and words.count("pass") == passed
    assert f"{passed}/2 pass" in _visible(index)
    assert '<option value="pass">pass</option>' in run_page
    assert "success" not in _visible(run_page) and "failure" not in _visible(run_page)


def test_a_relaunched_trial_counts_once_as_in_the_report(stored, tmp_path):
    """A trial relaunched after a failed attempt counts by its latest attempt, in the viewer as in the report."""
    import shutil

    from agentkit.reports.run_results import read_run

    db, a, _ = stored
    copy = tmp_path / "relaunched.db"
    shutil.copy(db, copy)
    failed = next(e for e in a["episodes"] if e["pass"] is False)
    con = sqlite3.connect(copy)
    with con:
        cols = [r[1] for r in con.execute("PRAGMA table_info(episodes)")]
        row = dict(
            zip(cols, con.execute("SELECT * FROM episodes WHERE id = ?", (failed["episode_id"],)).fetchone())
        )
        row.update(
            id="relaunched0001",
            attempt=row["attempt"] + 1,
            success=1,
            metrics=row["metrics"].replace('"pass": false', '"pass": true'),
        )
        assert '"pass": true' in row["metrics"]
        con.execute(
            f"INSERT INTO episodes ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
            [row[c] for c in cols],
        )
    con.close()
    passed = sum(e["pass"] is True for e in a["episodes"]) + 1
    judged = sum(e["pass"] is not None for e in a["episodes"])
    store = open_readonly(f"sqlite:///{copy}")
    report = read_run(store, a["run_id"])
    assert (sum(p.passed for p in report.by_task.values()), sum(p.n for p in report.by_task.values())) == (
        passed,
        judged,
    )
    row = next(r for r in ViewerData(store).runs().items if r.id == a["run_id"])
    assert (row.passed, row.judged, row.episodes) == (passed, judged, judged)


def test_transcripts_list_says_pass_or_fail_not_the_goal_flag(stored, tmp_path):
    """`agentkit transcripts list` showed the ``success`` column (True for the failed episode of run A)."""
    import json

    from agentkit.testing.cli_runner import cli_env, run_cli

    db, a, _ = stored
    failed = next(e for e in a["episodes"] if e["pass"] is False)
    args = ["transcripts", "list", "--db", f"sqlite:///{db}", "--run", a["run_id"]]
    [listed] = json.loads(run_cli([*args, "--json"], tmp_path).stdout)
    assert {e["id"]: e["outcome"] for e in listed["episodes"]} == {
        e["episode_id"]: "pass" if e["pass"] else "fail" for e in a["episodes"]
    }
    table = run_cli(args, tmp_path, env=cli_env(COLUMNS="200")).stdout
    assert "outcome" in table and "success" not in table
    row = next(line for line in table.splitlines() if failed["episode_id"] in line)
    assert " fail " in row and "True" not in row, row
