"""Where a person playing ``--model human`` sees the frames the model would have been shown.

Why: a human baseline is only comparable when the person sees what a model sees. A terminal cannot
show an image, so the frames of each turn go to one of three places, chosen by ``--human-frames``:

- ``window``: a browser window (only where a display exists) on the page below;
- ``page``: a page on 127.0.0.1 that reloads itself with the newest frame (stdlib ``http.server``
  in a thread), its address printed once;
- ``files``: PNG files in a folder, each named on the terminal ("frame saved: PATH").

``auto`` (the default) takes the first of these that can work here. Every mode also keeps the
frames as files, so nothing a person saw is lost. Frames are PNG whatever the prompt's encoding
(a JPEG is decoded and written losslessly, so the pixels are those the model would decode).
No GUI toolkit is needed: a window is the system's browser, opened through :mod:`webbrowser`.
"""

from __future__ import annotations

import html
import io
import logging
import os
import sys
import tempfile
import threading
import webbrowser
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

FrameMode = Literal["auto", "window", "page", "files"]
FRAME_MODES: tuple[str, ...] = ("auto", "window", "page", "files")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PAGE_REFRESH_S = 1  # how often the page reloads itself


class FrameDisplayError(ValueError):
    """The asked mode cannot work here; the message is one line naming the option."""


@dataclass(frozen=True)
class Frame:
    """One image of one turn, as PNG bytes, and the file it was saved to."""

    turn: int
    index: int
    png: bytes
    path: Path


def as_png(data: bytes) -> bytes:
    """``data`` as PNG bytes: PNG kept as it is, any other image format decoded and re-encoded."""
    if data.startswith(PNG_MAGIC):
        return data
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue()


def display_available() -> bool:
    """Whether a window can be opened: macOS and Windows always, elsewhere an X or Wayland display."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _browser_found() -> bool:
    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


class FrameDisplay:
    """Saves each turn's frames as PNG files and names them (the ``files`` mode; the base of the others)."""

    mode = "files"

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = (
            Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="agentkit-frames-"))
        )
        self.frames: list[Frame] = []

    def show(self, turn: int, images: list[bytes]) -> list[str]:
        """Deliver the frames of ``turn``; return the lines to print on the terminal."""
        self.folder.mkdir(parents=True, exist_ok=True)
        new = []
        for index, data in enumerate(images, start=1):
            try:
                png = as_png(data)
            except Exception as exc:  # an undecodable image is named, not fatal
                log.warning("frame %d of turn %d could not be decoded: %s", index, turn, exc)
                continue
            path = self.folder / f"turn{turn:03d}_{index}.png"
            repeat = 1
            while path.exists():  # a later episode's turn of the same number: keep both
                repeat += 1
                path = self.folder / f"turn{turn:03d}_{index}-{repeat}.png"
            path.write_bytes(png)
            new.append(Frame(turn, index, png, path))
        self.frames.extend(new)
        return self._lines(new)

    def _lines(self, new: list[Frame]) -> list[str]:
        return [f"frame saved: {frame.path}" for frame in new]

    def close(self) -> None:
        """Release what the display holds (the files stay)."""


class PageFrameDisplay(FrameDisplay):
    """Serves the newest frames on a page at 127.0.0.1 that reloads itself every second."""

    mode = "page"

    def __init__(self, folder: str | Path | None = None, port: int = 0) -> None:
        super().__init__(folder)
        self._lock = threading.Lock()
        display = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the http.server name
                display._answer(self)

            def log_message(self, format: str, *args: object) -> None:  # the http.server name
                log.debug("frame page: " + format, *args)

        try:
            self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        except OSError as exc:
            raise FrameDisplayError(
                f"--human-frames page: cannot serve on 127.0.0.1:{port} ({exc.strerror})"
            ) from None
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="human-frames", daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self._announced = False

    def _latest(self) -> list[Frame]:
        with self._lock:
            if not self.frames:
                return []
            turn = self.frames[-1].turn
            return [f for f in self.frames if f.turn == turn]

    def _answer(self, request: BaseHTTPRequestHandler) -> None:
        path = request.path.split("?", 1)[0]
        latest = self._latest()
        if path == "/":
            body = self._page(latest).encode("utf-8")
            kind = "text/html; charset=utf-8"
        elif path.startswith("/frame/") and path.endswith(".png") and path[7:-4].isdigit():
            index = int(path[7:-4])
            match = [f.png for f in latest if f.index == index]
            if not match:
                request.send_error(404, "no such frame yet")
                return
            body, kind = match[0], "image/png"
        else:
            request.send_error(404)
            return
        request.send_response(200)
        request.send_header("Content-Type", kind)
        request.send_header("Content-Length", str(len(body)))
        request.send_header("Cache-Control", "no-store")
        request.end_headers()
        request.wfile.write(body)

    def _page(self, latest: list[Frame]) -> str:
        if latest:
            turn = latest[0].turn
            images = "".join(
                f'<img src="/frame/{f.index}.png?turn={turn}" alt="frame {f.index} of turn {turn}">'
                for f in latest
            )
            heading = f"turn {turn}"
        else:
            images, heading = "<p>no frame yet</p>", "waiting for the first frame"
        return (
            f'<!doctype html><html><head><meta charset="utf-8">'
            f'<meta http-equiv="refresh" content="{PAGE_REFRESH_S}"><title>agentkit: {html.escape(heading)}</title>'
            "<style>body{background:#111;color:#ddd;font-family:sans-serif}img{image-rendering:pixelated;"
            "max-width:48%;margin:4px}</style></head>"
            f"<body><h3>{html.escape(heading)}</h3>{images}</body></html>"
        )

    def show(self, turn: int, images: list[bytes]) -> list[str]:
        with self._lock:
            return super().show(turn, images)

    def _lines(self, new: list[Frame]) -> list[str]:
        lines = []
        if not self._announced:
            lines.append(f"frames: {self.url} (the page reloads itself; files in {self.folder})")
            self._announced = True
        if new:
            lines.append(f"frame(s) of turn {new[0].turn} on {self.url}")
        return lines

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class WindowFrameDisplay(PageFrameDisplay):
    """The page, opened in a browser window once the first frames are there."""

    mode = "window"

    def _lines(self, new: list[Frame]) -> list[str]:
        first = not self._announced
        lines = super()._lines(new)
        if first and not webbrowser.open(self.url, new=1):
            lines.append(f"no window could be opened: open {self.url} yourself")
        return lines


def open_frame_display(mode: str, folder: str | Path | None = None) -> FrameDisplay:
    """The display for ``mode`` (``auto``: a window where one can open, else the page, else files)."""
    check_frame_mode(mode)
    if mode == "files":
        return FrameDisplay(folder)
    if mode == "page":
        return PageFrameDisplay(folder)
    if mode == "window":
        return WindowFrameDisplay(folder)
    if display_available() and _browser_found():
        try:
            return WindowFrameDisplay(folder)
        except FrameDisplayError as exc:
            log.info("%s", exc)
    try:
        return PageFrameDisplay(folder)
    except FrameDisplayError as exc:
        log.info("%s; frames go to files", exc)
        return FrameDisplay(folder)


_shared: dict[str, FrameDisplay] = {}
_shared_lock = threading.Lock()


def shared_frame_display(mode: str) -> FrameDisplay:
    """One display per mode for the whole process, so the page keeps its address from episode to episode."""
    with _shared_lock:
        if mode not in _shared:
            _shared[mode] = open_frame_display(mode)
        return _shared[mode]


def check_frame_mode(mode: str) -> None:
    """Refuse, in one line, a mode that is unknown or cannot work on this machine."""
    if mode not in FRAME_MODES:
        raise FrameDisplayError(f"--human-frames: {mode!r} is not one of {', '.join(FRAME_MODES)}")
    if mode == "window" and not display_available():
        raise FrameDisplayError(
            "--human-frames window: no display here ($DISPLAY and $WAYLAND_DISPLAY are unset); "
            "use page (a local page to open in a browser) or files"
        )
    if mode == "window" and not _browser_found():
        raise FrameDisplayError("--human-frames window: no browser found to open a window; use page or files")
