"""The viewer in a real browser: headless Chromium (Debian's package) driven over the DevTools protocol.

A researcher opens the index, picks an episode and steps through it with the keyboard; on each
turn the frame must have loaded, and the prompt, the answer and the parsed script (or the parse
error) must be on the page. The page must raise no script error and break no Content-Security-Policy
rule. A screenshot of a turn is kept in ``test-artifacts/`` for people to look at.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from viewer_sample import sample_database

from agentkit.transcripts import TranscriptStore
from agentkit.viewer import ViewerServer, open_readonly

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")

websockets_sync = pytest.importorskip("websockets.sync.client", reason="websockets is in the test extra")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on PATH (./dev setup installs Debian's)"
)


class Browser:
    """Just enough of the Chrome DevTools protocol to load pages, read them, type keys and take screenshots."""

    def __init__(self, binary: str) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="agentkit-chromium-"))
        self.proc = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--mute-audio",
                "--window-size=1400,1500",
                f"--user-data-dir={self.profile}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.05)
        port = int(port_file.read_text().split("\n")[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
            targets = json.load(resp)
        page = next(t for t in targets if t["type"] == "page")
        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(
            websockets_sync.connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10)
        )
        self._id = 0
        self.events: list[dict[str, Any]] = []
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=30))
            if message.get("id") == self._id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except RuntimeError:  # the page is being replaced (navigation): ask again
                value = None
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {expression}")

    def goto(self, url: str) -> None:
        self.send("Page.navigate", url=url)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'")

    def key(self, key: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code)

    def screenshot(self, path: Path) -> None:
        import base64

        size = self.send("Page.getLayoutMetrics")["cssContentSize"]  # the whole page, not just the window
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 4000), "scale": 1}
        data = self.send("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)[
            "data"
        ]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def problems(self) -> list[str]:
        """Script exceptions and console errors (CSP violations are reported as the latter)."""
        found = []
        for e in self.events:
            if e.get("method") == "Runtime.exceptionThrown":
                found.append(json.dumps(e["params"]["exceptionDetails"])[:300])
            elif e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error":
                found.append(e["params"]["entry"]["text"])
        return found

    def close(self) -> None:
        try:
            if getattr(self, "ws", None) is not None:
                try:
                    self.send("Browser.close")
                except Exception:  # closing anyway
                    pass
                self._stack.close()
        finally:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "viewer-sample.db"  # shared with the other viewer tests
    return path, sample_database(path)


@pytest.fixture(scope="module")
def viewer(recorded):
    path, _ = recorded
    with ViewerServer(open_readonly(f"sqlite:///{path}"), port=0) as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    b = Browser(CHROMIUM)
    try:
        yield b
    finally:
        b.close()


def _text(browser: Browser, selector: str) -> str:
    return browser.evaluate(f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent || ''")


def _frames_loaded(browser: Browser) -> bool:
    return browser.evaluate(
        "Array.from(document.querySelectorAll('img.frame')).length > 0 && "
        "Array.from(document.querySelectorAll('img.frame')).every(i => i.complete && i.naturalWidth > 0)"
    )


def test_step_through_an_episode_in_chromium(viewer, browser, recorded):
    path, ids = recorded
    store = TranscriptStore(f"sqlite:///{path}")
    episode = next(e for e in store.list_episodes(run_id=ids["scripted"]) if e.task == "BabyAI-GoToLocal-v0")
    turns = store.get_turns(episode.id, with_messages=False)
    store.close()

    browser.goto(viewer.url)
    assert ids["scripted"] in _text(browser, "table.runs")
    browser.evaluate(f"document.querySelector('a.ep-link[href=\"/episodes/{episode.id}\"]').click()")
    browser.wait_for(f"location.pathname === '/episodes/{episode.id}' && document.readyState === 'complete'")

    for index in range(4):
        browser.wait_for(
            f"(document.getElementById('turn-label') || {{}}).textContent === 'turn {index + 1} of {len(turns)}'"
        )
        browser.wait_for("document.readyState === 'complete'")
        assert _frames_loaded(browser), f"turn {index}: the frame did not load"
        prompt = _text(browser, "section.prompt details[open]")
        assert f"Turn {index + 1} of at most" in prompt and "Mission:" in prompt
        # the turn's frame is shown once, in the frames panel; the prompt says where it is
        assert (
            browser.evaluate("document.querySelectorAll('section.prompt details[open] img.msg-img').length")
            == 0
        )
        assert "shown under Frames sent" in prompt
        assert _text(browser, "#answer") == turns[index].answer
        if turns[index].parse_error:
            assert turns[index].parse_error["message"][:40] in _text(browser, "#parse-error")
        else:
            script = _text(browser, "#script")
            assert script and all(c["name"] in script for c in turns[index].script)
        assert browser.evaluate("!!document.querySelector('svg.map .agent')")
        assert browser.evaluate("document.querySelectorAll('svg.chart').length") >= 3
        if index == 2:  # the unparseable answer: the page explains why nothing ran
            browser.screenshot(ARTIFACTS / "viewer-episode.png")
        browser.key("ArrowRight", 39)

    assert browser.problems() == []
    assert (ARTIFACTS / "viewer-episode.png").stat().st_size > 20_000


def test_playback_plays_and_pauses_the_frames_in_chromium(viewer, browser, recorded):
    path, ids = recorded
    store = TranscriptStore(f"sqlite:///{path}")
    episode = next(e for e in store.list_episodes(run_id=ids["scripted"]) if e.task == "BabyAI-GoToLocal-v0")
    turns = store.get_turns(episode.id, with_messages=False)
    store.close()
    shas = [t.observation["images"][0]["sha256"] for t in turns]
    assert len(set(shas)) > 2  # the agent moves: its frames differ

    browser.goto(f"{viewer.url}episodes/{episode.id}?turn=0")
    browser.wait_for("!document.querySelector('#playback .player-controls').hidden")
    assert browser.evaluate("document.getElementById('playback').dataset.playing") == "no"
    assert _text(browser, "#playback .at").startswith("turn 1 (1 of")
    browser.evaluate("document.querySelector('#playback select.speed').value = '4'")
    browser.evaluate("document.querySelector('#playback button.play').click()")
    assert _text(browser, "#playback button.play") == "pause"
    browser.wait_for("Number(document.getElementById('playback').dataset.shown) >= 3")
    browser.evaluate("document.querySelector('#playback button.play').click()")  # pause
    assert browser.evaluate("document.getElementById('playback').dataset.playing") == "no"
    held = int(browser.evaluate("document.getElementById('playback').dataset.shown"))
    time.sleep(1.0)  # paused: at 4x a running player would have moved on by several turns
    assert int(browser.evaluate("document.getElementById('playback').dataset.shown")) == held
    src = browser.evaluate("document.querySelector('#playback img.frame').getAttribute('src')")
    assert src == f"/blob/{shas[held - 1]}"  # the frame of the turn it shows
    assert _frames_loaded(browser)
    # played to the end, it stops on the last turn
    browser.evaluate("document.querySelector('#playback button.play').click()")
    browser.wait_for(
        f"document.getElementById('playback').dataset.shown === '{len(turns)}' && "
        "document.getElementById('playback').dataset.playing === 'no'"
    )
    assert browser.problems() == []


def test_comparison_page_in_chromium(viewer, browser, recorded):
    _, ids = recorded
    browser.goto(f"{viewer.url}compare?a={ids['reference']}&b={ids['scripted']}")
    assert browser.evaluate("document.querySelectorAll('td.cell').length") == 4
    assert browser.evaluate("!!document.querySelector('svg.rates')")
    browser.evaluate("document.querySelector('a.div-link').click()")
    browser.wait_for("location.pathname === '/diverge' && document.readyState === 'complete'")
    assert "First difference at turn 1" in _text(browser, "#divergence")
    assert browser.evaluate(
        "Array.from(document.querySelectorAll('img.frame')).every(i => i.complete && i.naturalWidth > 0)"
    )
    browser.screenshot(ARTIFACTS / "viewer-diverge.png")
    assert browser.problems() == []


def test_static_export_opens_from_disk(browser, recorded, tmp_path):
    from agentkit.viewer import export_bundle

    path, ids = recorded
    out = tmp_path / "bundle"
    export_bundle(open_readonly(f"sqlite:///{path}"), out, run_ids=[ids["scripted"]])
    browser.goto((out / "index.html").as_uri())
    first = browser.evaluate("document.querySelector('a.ep-link').href")
    browser.goto(first)
    assert _frames_loaded(browser)
    assert _text(browser, "#answer")
    browser.key("ArrowRight", 39)
    browser.wait_for("location.href.endsWith('turn-00001.html') && document.readyState === 'complete'")
    assert _frames_loaded(browser)
    assert browser.problems() == []
