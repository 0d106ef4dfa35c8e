"""`agentkit play` in a real browser: headless Chromium (Debian's) driven over the DevTools protocol.

The participant's page must load, start an arena on Space, step the world while an arrow key is
held (keyboard mode) or send a typed script on Ctrl+Enter (script mode), move on from the tutorial
to the task and end the sitting, with no script error and no Content-Security-Policy breach. The
stored episodes must replay exactly, and the experimenter page must show the sitting done. A tab
that leaves must stop the world, and a new tab resume the same sitting where it was. Screenshots of
the play page and the experimenter page are kept in ``test-artifacts/``.
The DevTools client is the viewer tests' (tests/test_viewer_browser.py), loaded as they load it.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

from agentkit.offline.replay import replay_episode
from agentkit.play import PlayOptions, PlayServer
from agentkit.reports.aai_report import build_report
from agentkit.reports.baselines import shipped_baselines
from agentkit.reports.human_runs import cluster_by_participant, read_humans
from agentkit.transcripts import TranscriptStore

pytest.importorskip("websockets.sync.client", reason="websockets is in the test extra")
_spec = importlib.util.spec_from_file_location(
    "viewer_browser_for_play", Path(__file__).with_name("test_viewer_browser.py")
)
assert _spec is not None and _spec.loader is not None
browsing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browsing)
pytestmark = pytest.mark.skipif(
    browsing.CHROMIUM is None, reason="no chromium on PATH (./dev setup installs Debian's)"
)

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
CHILD_TASK = "07-16-01"  # children40: straight ahead ends it in 4 steps
KEY_CODES = {"ArrowUp": 38, "ArrowLeft": 37, " ": 32, "Enter": 13}


@pytest.fixture(scope="module")
def browser():
    b = browsing.Browser(browsing.CHROMIUM)
    try:
        yield b
    finally:
        b.close()


@pytest.fixture
def store(tmp_path):
    s = TranscriptStore(f"sqlite:///{tmp_path / 'play.db'}")
    yield s
    s.close()


def _key(browser, kind: str, key: str, modifiers: int = 0) -> None:
    code = "Space" if key == " " else key
    browser.send(
        "Input.dispatchKeyEvent",
        type=kind,
        key=key,
        code=code,
        windowsVirtualKeyCode=KEY_CODES[key],
        modifiers=modifiers,
    )


def _hold_until(browser, key: str, condition: str) -> None:
    _key(browser, "keyDown", key)
    try:
        browser.wait_for(condition, timeout=60)
    finally:
        _key(browser, "keyUp", key)


def _overlay(browser) -> str:
    return browser.evaluate(
        "document.getElementById('overlay').hidden ? '' : document.getElementById('overlay').textContent"
    )


def test_keyboard_sitting_in_chromium(browser, store):
    server = PlayServer(
        store,
        PlayOptions(
            participant="kid-7", tasks=[CHILD_TASK], mode="keyboard", condition="browser-test", size=128
        ),
    )
    url = server.start()
    try:
        browser.goto(url)
        browser.wait_for("window.playState && document.getElementById('frame').naturalWidth > 0")
        assert "Tutorial 1 of 2" in browser.evaluate("document.getElementById('arena').textContent")
        assert "Press Space" in _overlay(browser)
        browser.screenshot(ARTIFACTS / "play-page.png")

        _key(browser, "keyDown", " ")
        _key(browser, "keyUp", " ")
        _hold_until(browser, "ArrowUp", "document.body.dataset.taskIndex === '1'")
        assert "pass (goal" in _overlay(browser) and "Press Space" in _overlay(browser)
        _key(browser, "keyDown", " ")
        _key(browser, "keyUp", " ")
        _hold_until(browser, "ArrowUp", "document.body.dataset.finished === 'true'")
        assert "All arenas played" in _overlay(browser)
        assert browser.evaluate("document.querySelectorAll('#outcomes li').length") == 2
        run_id = browser.evaluate("window.playState.run_id")
        assert not browser.problems(), browser.problems()
        browser.goto(url + "experimenter")  # the experimenter sees the sitting, done, with each outcome
        row = "document.querySelector('tr[data-participant=\"kid-7\"]')"
        browser.wait_for(f"{row} && {row}.textContent.includes('done')")
        assert "01-01-01 pass" in browser.evaluate(f"{row}.textContent")
        browser.screenshot(ARTIFACTS / "play-experimenter.png")
        assert not browser.problems(), browser.problems()
        # Leave the page before its server goes: it polls every 2 s, and a poll of a closed server
        # would be a console error the next test (same browser) counts as its own.
        browser.goto("about:blank")
    finally:
        server.close()

    run = store.get_run(run_id)
    assert (
        run.model == "human:kid-7" and run.config["condition"] == "browser-test" and run.status == "finished"
    )
    episodes = {e.task: e for e in store.list_episodes(run_id=run_id)}
    assert set(episodes) == {"01-01-01", CHILD_TASK}
    assert episodes["01-01-01"].end_reason == "goal" and episodes[CHILD_TASK].end_reason == "died"
    for episode in episodes.values():
        answers = {t.answer for t in store.get_turns(episode.id, with_messages=False)}
        assert answers <= {"forward", "stay"} and "forward" in answers
        report = replay_episode(store, episode.id)
        assert report.matches, report.mismatches

    # The sitting is a column of the Animal-AI report beside the 2022 children; the tutorial never counts.
    people = read_humans(store, [run_id])
    aai = build_report(shipped_baselines(), ["01-01-01", CHILD_TASK], [people])
    cluster_by_participant(aai, people)
    data = aai.to_json()
    assert data["labels"]["humans"] == "humans (n=1)"
    assert data["overall"]["n"]["runs"]["humans"] == 1  # the child task only; it ended 'died': not passed


def test_script_sitting_in_chromium(browser, store):
    server = PlayServer(
        store, PlayOptions(participant="adult-1", tasks=[CHILD_TASK], mode="script", size=128)
    )
    url = server.start()
    try:
        browser.goto(url)
        browser.wait_for("window.playState && document.getElementById('frame').naturalWidth > 0")
        assert "Turn 1 of at most" in browser.evaluate("document.getElementById('prompt').textContent")
        for expected in ("'1'", "'true'"):
            browser.evaluate("document.getElementById('script').focus()")
            browser.send("Input.insertText", text="Go(10)")
            _key(browser, "keyDown", "Enter", modifiers=2)  # Ctrl+Enter sends
            _key(browser, "keyUp", "Enter", modifiers=2)
            key = "taskIndex" if expected == "'1'" else "finished"
            browser.wait_for(f"document.body.dataset.{key} === {expected}", timeout=60)
        assert not browser.problems(), browser.problems()
        run_id = browser.evaluate("window.playState.run_id")
    finally:
        server.close()
    episodes = store.list_episodes(run_id=run_id)
    assert sorted(e.end_reason for e in episodes) == ["died", "goal"]
    for episode in episodes:
        assert [t.answer for t in store.get_turns(episode.id, with_messages=False)] == ["Go(10)"]
        assert replay_episode(store, episode.id).matches


def test_a_closed_tab_pauses_the_world_and_a_new_one_resumes(browser, store):
    server = PlayServer(store, PlayOptions(participant="kid-8", tasks=[CHILD_TASK], mode="keyboard", size=64))
    url = server.start()
    try:
        browser.goto(url)
        browser.wait_for("window.playState && document.getElementById('frame').naturalWidth > 0")
        _key(browser, "keyDown", " ")
        _key(browser, "keyUp", " ")
        _hold_until(browser, "ArrowLeft", "window.playState.step >= 5")  # turning on the spot: nothing ends
        browser.goto("about:blank")  # the tab leaves: nobody asks for frames
        session = server.sessions()[0]
        left_at = server.seat(session["session"]).session.state()["step"]
        time.sleep(0.6)  # ten steps' worth of Animal-AI time
        assert server.seat(session["session"]).session.state()["step"] == left_at
        browser.goto(url)  # a new tab: the same sitting, where it was, waiting for Space
        browser.wait_for("window.playState && window.playState.step > 0")
        assert browser.evaluate("window.playState.step") == left_at
        assert browser.evaluate("window.playState.run_id") == session["run_id"]
        assert "Press Space" in _overlay(browser)
        assert not browser.problems(), browser.problems()
    finally:
        server.close()
