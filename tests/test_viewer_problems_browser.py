"""The run list's problem counts and the compare page's reward and token differences, in headless Chromium.

A researcher opens the index at 1400x1000: each run's parse errors (by code) and model errors must
be on screen beside its passes, the table must fit the window (no sideways scrolling), and the
page must raise no script error nor break the Content-Security-Policy. The same for the compare
page with its reward and token differences. Both are kept as screenshots in ``test-artifacts/``
(``docs/figures/viewer-index.png`` and ``viewer-compare.png`` are copies of them), and so are three
episode pages, an arena one, a gridworld one and a reference agent's (``viewer-episode-*.png``).
"""

from __future__ import annotations

import base64
import importlib.util
import json
from pathlib import Path

import pytest
from problem_runs import record_problem_run
from viewer_sample import ScriptedModel, record_run, record_sample

from agentkit.transcripts import TranscriptStore
from agentkit.viewer import ViewerServer, open_readonly

pytest.importorskip("websockets.sync.client", reason="websockets is in the test extra")
_spec = importlib.util.spec_from_file_location(
    "viewer_browser_for_problems", Path(__file__).with_name("test_viewer_browser.py")
)
assert _spec is not None and _spec.loader is not None
browsing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browsing)
pytestmark = pytest.mark.skipif(
    browsing.CHROMIUM is None, reason="no chromium on PATH (./dev setup installs Debian's)"
)

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
WIDTH, HEIGHT = 1400, 1000
# A weak arena player, for the arena episode's screenshot.
ARENA_ANSWERS = ("Turn(90); Go(5);", 'Think("the goal may be behind me"); Turn(180); Go(10);', "Go(8);")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The viewer sample's two runs (two tasks, two seeds) and a run with parse and model errors."""
    path = tmp_path_factory.mktemp("problems-browser") / "runs.db"
    store = TranscriptStore(f"sqlite:///{path}")
    try:
        ids = record_sample(store)
        ids["problems"] = record_problem_run(store)
        ids["problems_reference"] = record_run(store, ["BabyAI-GoToLocal-v0"], episodes=3, max_scripts=4)
        ids["arena"] = record_run(
            store,
            ["04-03-01"],
            episodes=1,
            model=ScriptedModel(ARENA_ANSWERS),
            max_scripts=5,
            env="aai-arena",
        )
    finally:
        store.close()
    return path, ids


@pytest.fixture(scope="module")
def viewer(recorded):
    path, _ = recorded
    with ViewerServer(open_readonly(f"sqlite:///{path}"), port=0) as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    b = browsing.Browser(browsing.CHROMIUM)
    try:
        b.send(
            "Emulation.setDeviceMetricsOverride",
            width=WIDTH,
            height=HEIGHT,
            deviceScaleFactor=1,
            mobile=False,
        )
        yield b
    finally:
        b.close()


def _window_shot(browser, path: Path) -> None:
    """What the window shows, 1400x1000, as a PNG."""
    clip = {"x": 0, "y": 0, "width": WIDTH, "height": HEIGHT, "scale": 1}
    data = browser.send("Page.captureScreenshot", format="png", clip=clip)["data"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(data))


def _text(browser, selector: str) -> str:
    return browser.evaluate(f"(document.querySelector({json.dumps(selector)}) || {{}}).innerText || ''")


def _fits(browser) -> bool:
    return browser.evaluate(f"document.documentElement.scrollWidth <= {WIDTH}")


def test_index_shows_problem_counts_within_the_window(viewer, browser, recorded):
    _, ids = recorded
    browser.goto(viewer.url)
    row = f"document.querySelector('a.run-link[href=\"/runs/{ids['problems']}\"]').closest('tr')"
    parse = browser.evaluate(f"{row}.querySelector('td.parse-errors').innerText")
    assert "no_commands" in parse and "unknown_command" in parse and "out_of_range" in parse
    assert browser.evaluate(f"{row}.querySelector('td.model-errors').innerText").strip() == "1"
    scripted = f"document.querySelector('a.run-link[href=\"/runs/{ids['scripted']}\"]').closest('tr')"
    assert "no_commands" in browser.evaluate(f"{scripted}.querySelector('td.parse-errors').innerText")
    # the counts are on screen without scrolling: the runs table's right edge is inside the window
    assert browser.evaluate(
        f"document.querySelector('table.runs').getBoundingClientRect().right <= {WIDTH}"
    ), "the run list is wider than the window"
    assert _fits(browser)
    _window_shot(browser, ARTIFACTS / "viewer-index.png")
    assert browser.problems() == []


def test_compare_page_shows_reward_and_token_differences_within_the_window(viewer, browser, recorded):
    _, ids = recorded
    browser.goto(f"{viewer.url}compare?a={ids['reference']}&b={ids['scripted']}")
    difference = _text(browser, "#total-difference")
    assert difference.startswith("B − A") and "pts" in difference
    assert browser.evaluate("document.querySelectorAll('td.reward-delta').length") == 2  # one per task
    assert browser.evaluate("document.querySelectorAll('td.tokens-delta').length") == 2
    assert all(
        c.startswith("+")
        for c in browser.evaluate(
            "Array.from(document.querySelectorAll('td.tokens-delta')).map(c => c.innerText)"
        )
    )  # the scripted model spends tokens, the reference agent none
    assert _fits(browser)
    _window_shot(browser, ARTIFACTS / "viewer-compare.png")
    assert browser.problems() == []


@pytest.mark.parametrize(
    "name,run,turn",
    [("arena", "arena", 2), ("gridworld", "scripted", 3), ("reference", "reference", 0)],
)
def test_episode_pages_read_within_the_window(viewer, browser, recorded, name, run, turn):
    """An episode page of each kind at 1400x1000: the page's turn is the one asked for, numbered
    from 1, nothing scrolls sideways; kept as the docs' screenshots."""
    path, ids = recorded
    with TranscriptStore(f"sqlite:///{path}") as store:
        episode = store.list_episodes(run_id=ids[run])[0]
    browser.goto(f"{viewer.url}episodes/{episode.id}?turn={turn}")
    assert f"turn {turn + 1} of" in browser.evaluate("document.body.innerText")
    assert _fits(browser)
    _window_shot(browser, ARTIFACTS / f"viewer-episode-{name}.png")
    assert browser.problems() == []
