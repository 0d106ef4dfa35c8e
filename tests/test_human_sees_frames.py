"""A person playing the arena as ``--model human`` sees its frames, and types over a still terminal.

The episode runs as a real `agentkit run` in a pseudo-terminal (the progress bar is live there, as
for a person at a terminal); the test types the scripts, fetches the frames from the page on
127.0.0.1 (or reads the named files), and reads back what the terminal showed.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from agentkit.models.human_frames import (
    PNG_MAGIC,
    FrameDisplay,
    FrameDisplayError,
    PageFrameDisplay,
    check_frame_mode,
)
from agentkit.runs import terminal_hold

AGENTKIT = Path(sys.executable).with_name("agentkit")
TASK = "01-04-03"  # one of the 40 tasks the children played (envs/animalai_common/suites.py CHILDREN_40)
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """A child process on a pseudo-terminal: what it wrote, and a way to type."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        master, slave = os.openpty()
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        for name in (
            "NO_COLOR",
            "TERM_PROGRAM",
            "CI",
            "GITHUB_ACTIONS",
            "FORCE_COLOR",
            "TTY_COMPATIBLE",
            "DISPLAY",
            "WAYLAND_DISPLAY",
        ):
            env.pop(name, None)
        self.proc = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True
        )
        os.close(slave)
        self.master = master
        self.data = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if not ready:
                if self.proc.poll() is not None:
                    return
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self.data.extend(chunk)

    def output(self) -> bytes:
        with self._lock:
            return bytes(self.data)

    def wait_for(self, pattern: bytes, count: int = 1, timeout: float = 60) -> bytes:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            out = self.output()
            if out.count(pattern) >= count:
                return out
            if self.proc.poll() is not None and self.output().count(pattern) < count:
                break
            time.sleep(0.05)
        raise AssertionError(
            f"{pattern!r} (x{count}) never shown; the terminal shows:\n"
            f"{self.output().decode(errors='replace')[-3000:]}"
        )

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=60)
        self._reader.join(timeout=5)
        os.close(self.master)


def _run_args(tmp_path: Path, frames: str, scripts: int) -> list[str]:
    return [
        str(AGENTKIT),
        "run",
        "--env",
        "aai-arena",
        "--task",
        TASK,
        "--model",
        "human",
        "--human-frames",
        frames,
        "--max-scripts",
        str(scripts),
        "--db",
        f"sqlite:///{tmp_path / 'h.db'}",
    ]


def _get(url: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.headers.get("Content-Type", ""), answer.read()


def _assert_prompts_clean(out: bytes, typed: list[str]) -> None:
    """Each prompt is followed directly by the echo of what was typed: no redraw in between."""
    for script in typed:
        assert f"script> {script}".encode() in out, out.decode(errors="replace")[-2000:]
    for line in (b"Type your script; finish with an empty line",):
        assert out.count(line) == len(typed)
    # While the person types, the bar must not be drawn: from each prompt to the end of the echoed
    # script there is no escape sequence (a redraw moves the cursor and erases lines).
    for match in re.finditer(rb"script> ", out):
        segment = out[match.end() : out.find(b"\n", match.end())]
        assert not ANSI.search(segment), segment


@pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])
def test_human_episode_in_the_arena_gets_its_frames_on_a_page(tmp_path: Path) -> None:
    scripts = ["Go(3);", "Turn(30);"]
    term = Terminal(_run_args(tmp_path, "page", len(scripts)), tmp_path)
    try:
        out = term.wait_for(b"script> ")
        url = re.search(rb"frames: (http://127\.0\.0\.1:\d+/)", out).group(1).decode()
        kind, page = _get(url)
        assert kind.startswith("text/html") and b'http-equiv="refresh"' in page and b"turn 0" in page
        src = re.search(rb'<img src="([^"]+)"', page).group(1).decode()
        kind, first = _get(url.rstrip("/") + src)
        assert kind == "image/png" and first.startswith(PNG_MAGIC)
        time.sleep(0.6)  # a live progress bar would redraw several times here, over the prompt
        term.type(scripts[0] + "\n\n")
        term.wait_for(b"script> ", count=2)
        _, page = _get(url)
        assert b"turn 1" in page  # the page now shows the newest frame
        _, second = _get(url.rstrip("/") + re.search(rb'<img src="([^"]+)"', page).group(1).decode())
        assert second.startswith(PNG_MAGIC) and second != first  # three steps forward: another view
        time.sleep(0.6)
        term.type(scripts[1] + "\n\n")
        assert term.proc.wait(timeout=60) == 0
        term.wait_for(b"pass rate")
        _assert_prompts_clean(term.output(), scripts)
    finally:
        term.close()


def test_human_episode_names_its_frame_files_and_records_the_mode(tmp_path: Path) -> None:
    from agentkit.transcripts import TranscriptStore

    term = Terminal(_run_args(tmp_path, "files", 1), tmp_path)
    try:
        term.wait_for(b"script> ")
        time.sleep(0.4)
        term.type("Go(2);\n\n")
        assert term.proc.wait(timeout=60) == 0
        out = ANSI.sub(b"", term.output()).decode(errors="replace")
        paths = re.findall(r"frame saved: (\S+\.png)", out)
        assert paths, out[-2000:]
        assert all(Path(p).read_bytes().startswith(PNG_MAGIC) for p in paths)
        _assert_prompts_clean(term.output(), ["Go(2);"])
    finally:
        term.close()
    store = TranscriptStore(f"sqlite:///{tmp_path / 'h.db'}")
    try:
        (run,) = store.list_runs()
        assert store.get_run(run.id).config["human_frames"] == "files"
    finally:
        store.close()


def test_a_window_without_a_display_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run(
        _run_args(tmp_path, "window", 1),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "--human-frames window: no display" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "h.db").exists()
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(FrameDisplayError, match="not one of"):
        check_frame_mode("popup")


def test_jpeg_frames_become_png_files(tmp_path: Path) -> None:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(buffer, format="JPEG")
    display = FrameDisplay(tmp_path)
    (line,) = display.show(0, [buffer.getvalue()])
    path = Path(line.removeprefix("frame saved: "))
    assert path.read_bytes().startswith(PNG_MAGIC)
    display.show(0, [buffer.getvalue()])  # the same turn number again (a later episode): both kept
    assert len(list(tmp_path.glob("turn000_1*.png"))) == 2


@pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])
def test_page_answers_404_before_the_first_frame(tmp_path: Path) -> None:
    display = PageFrameDisplay(tmp_path)
    try:
        _, page = _get(display.url)
        assert b"no frame yet" in page
        with pytest.raises(urllib.error.HTTPError) as caught:
            _get(display.url + "frame/1.png")
        assert caught.value.code == 404
    finally:
        display.close()


def test_held_stops_registered_displays_and_starts_them_again() -> None:
    events: list[str] = []

    class Display:
        def start(self) -> None:
            events.append("start")

        def stop(self) -> None:
            events.append("stop")

    with terminal_hold.showing(Display()):
        with terminal_hold.held():
            with terminal_hold.held():  # nested (two human episodes at once): one stop, one start
                events.append("typing")
    assert events == ["stop", "typing", "start"]


@pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])
def test_auto_opens_a_window_where_a_display_exists_else_serves_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import webbrowser

    from PIL import Image

    from agentkit.models.human_frames import WindowFrameDisplay, open_frame_display

    opened: list[str] = []

    class Recorder(webbrowser.BaseBrowser):  # the system's browser, as webbrowser's registry offers it
        def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
            opened.append(url)
            return True

    png = io.BytesIO()
    Image.new("RGB", (4, 4), (0, 120, 0)).save(png, format="PNG")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if sys.platform not in ("darwin", "win32"):
        page = open_frame_display("auto", tmp_path / "a")
        try:
            assert page.mode == "page"
        finally:
            page.close()
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr(webbrowser, "_tryorder", ["agentkit-test"])
    monkeypatch.setattr(webbrowser, "_browsers", {"agentkit-test": [None, Recorder("agentkit-test")]})
    window = open_frame_display("auto", tmp_path / "b")
    try:
        assert isinstance(window, WindowFrameDisplay)
        window.show(0, [png.getvalue()])
        window.show(1, [png.getvalue()])
        assert opened == [window.url]  # one window, which reloads itself with each turn
        kind, body = _get(window.url + "frame/1.png")
        assert kind == "image/png" and body == png.getvalue()
    finally:
        window.close()


def test_with_stdout_redirected_the_prompts_go_to_stderr_and_json_stays_pure(tmp_path: Path) -> None:
    import json

    done = subprocess.run(
        [*_run_args(tmp_path, "files", 1), "--json"],
        input="Go(1);\n\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)  # one JSON document, nothing of the prompt
    assert document["model"] == "human" and len(document["episodes"]) == 1
    assert "script> " in done.stderr and "frame saved: " in done.stderr
