"""A person at a terminal as the model: human baselines under the same conditions as models.

Why: a human score is only comparable when the person sees what the model sees (the same prompt
text, the same images) and answers in the same script language, through the same parser.

Input protocol (kept simple on purpose): type the script over one or more lines and finish with
an empty line. Empty lines before the first script line are ignored. End of input (Ctrl-D) after
some lines submits them; end of input with nothing typed raises ``ModelError("human ended input")``
so the loop ends the episode. Ctrl-C is not caught: the loop treats it as a cancellation.
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from agentkit.models.base import ModelError
from agentkit.observers import Observation
from agentkit.records import ModelReply, Usage

_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/jpg": "jpg", "image/webp": "webp", "image/gif": "gif"}


def _content_text(content: Any) -> str:
    """The text of a message's content, whether a string or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _image_urls(content: Any) -> list[str]:
    if not isinstance(content, list):
        return []
    urls = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            urls.append(str(url or ""))
    return urls


class HumanModel:
    """Shows the prompt of each turn at a console and reads the person's script from ``input_fn``.

    ``input_fn`` has the signature of :func:`input` (tests pass a fake). ``output`` is where the
    prompt is shown (a rich Console). With ``image_dir``, attached images are written there as
    files (``turn003_1.png``) and their paths shown, so the person can open them.
    """

    def __init__(
        self,
        input_fn: Callable[[str], str] = input,
        output: Console | None = None,
        name: str = "human",
        image_dir: str | Path | None = None,
    ) -> None:
        self.name = name
        self.input_fn = input_fn
        self.console = output if output is not None else Console()
        self.image_dir = Path(image_dir) if image_dir is not None else None
        self._turn = 0
        self._instructions_shown = False

    def complete(self, messages: list[dict[str, Any]], observation: Observation) -> ModelReply:
        """Show the latest user message (and, once, the system instructions); return the typed script."""
        self._show(messages)
        start = time.perf_counter()
        text = self._read_script()
        self._turn += 1
        return ModelReply(
            text=text, usage=Usage(), latency_s=time.perf_counter() - start, model=self.name, raw={"human": True}
        )

    # ----------------------------------------------------------------- display
    def _show(self, messages: list[dict[str, Any]]) -> None:
        if not self._instructions_shown:
            system = [m for m in messages if m.get("role") == "system"]
            if system:
                self.console.rule("instructions")
                self.console.print(Text(_content_text(system[0].get("content"))))
            self._instructions_shown = True
        user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
        self.console.rule(f"turn {self._turn}")
        if user is None:
            self.console.print(Text("(no user message this turn)"))
        else:
            self.console.print(Text(_content_text(user.get("content"))))
            urls = _image_urls(user.get("content"))
            if urls:
                self.console.print(Text(f"[{len(urls)} image(s) attached]", style="bold"))
                for path in self._save_images(urls):
                    self.console.print(Text(f"  image: {path}"))
        self.console.print(Text("Type your script; finish with an empty line (Ctrl-D to stop).", style="dim"))

    def _save_images(self, urls: list[str]) -> list[Path]:
        """Write data-URL images to ``image_dir``; other URLs are shown only as a count."""
        if self.image_dir is None:
            return []
        self.image_dir.mkdir(parents=True, exist_ok=True)
        paths = []
        for i, url in enumerate(urls, start=1):
            if not url.startswith("data:") or ";base64," not in url:
                continue
            header, payload = url[5:].split(";base64,", 1)
            try:
                data = base64.b64decode(payload, validate=True)
            except (binascii.Error, ValueError):
                continue
            path = self.image_dir / f"turn{self._turn:03d}_{i}.{_EXTENSIONS.get(header, 'bin')}"
            path.write_bytes(data)
            paths.append(path)
        return paths

    # ----------------------------------------------------------------- input
    def _read_script(self) -> str:
        lines: list[str] = []
        while True:
            try:
                line = self.input_fn("script> " if not lines else "......> ")
            except EOFError:
                if lines:
                    break
                raise ModelError("human ended input") from None
            if not line.strip():
                if lines:
                    break
                continue
            lines.append(line.rstrip("\r\n"))
        return "\n".join(lines)
