"""A person at a terminal as the model: human baselines under the same conditions as models.

Why: a human score is only comparable when the person sees what the model sees (the same prompt
text, the same images) and answers in the same script language, through the same parser.

Input protocol (kept simple on purpose): type the script over one or more lines and finish with
an empty line. Empty lines before the first script line are ignored. End of input (Ctrl-D) after
some lines submits them; end of input with nothing typed raises ``ModelError("human ended input")``
so the loop ends the episode. Ctrl-C is not caught: the loop treats it as a cancellation.

The frames attached to a turn go to a :class:`~agentkit.models.human_frames.FrameDisplay` (a
window, a page on 127.0.0.1 or files, see that module). While the person reads and types, every
live display of the run (the progress bar) is held still through ``hold``, so nothing redraws over
the prompt or the typed text.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from agentkit.messages import Message
from agentkit.models.base import ModelError
from agentkit.models.human_frames import FrameDisplay
from agentkit.records import ModelReply, Usage

HUMAN = "human"  # the model id of a person at the terminal


def human_play_refusal(model: str, workers: str, max_concurrency: int) -> str | None:
    """One line refusing a human run that cannot share the terminal, or None when it can.

    A person answers at this process's terminal: a worker process has none (its input is not the
    terminal), and two episodes at once would interleave their prompts and take turns reading what
    one person types. So ``--model human`` plays one episode at a time, in this process.
    """
    if model != HUMAN:
        return None
    if workers == "processes":
        return (
            "--workers processes: --model human answers at this terminal, which worker processes cannot "
            "share (give --workers threads or auto)"
        )
    if max_concurrency > 1:
        return (
            f"--max-concurrency {max_concurrency}: --model human plays one episode at a time (parallel "
            "episodes would share one terminal and one person); give --max-concurrency 1"
        )
    return None


def human_setup_refusal(config: Any) -> str | None:
    """One line when a run configuration (``agentkit.config.RunConfig``: ``model``, ``workers``,
    ``max_concurrency``, ``human_frames``) makes a person play in a way that cannot work: worker
    processes or parallel episodes sharing one terminal, or a frame display that cannot open here
    (an unknown mode, a window without a display); None otherwise, and for every other model."""
    from agentkit.models.human_frames import FrameDisplayError, check_frame_mode

    refusal = human_play_refusal(config.model, config.workers, config.max_concurrency)
    if refusal is None and config.model == HUMAN:
        try:
            check_frame_mode(config.human_frames)
        except FrameDisplayError as exc:
            refusal = str(exc)
    return refusal


def _attached(message: Message) -> tuple[int, list[bytes]]:
    """How many images the message attaches, and their bytes (to show them)."""
    return len(message.images), [image.data for image in message.images]


def _read_line_prompting_on_stderr(prompt: str) -> str:
    """:func:`input` with its prompt on stderr, for when stdout is not the terminal (``--json > run.json``)."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


class HumanModel:
    """Shows the prompt of each turn at a console and reads the person's script from ``input_fn``.

    ``input_fn`` has the signature of :func:`input` (tests pass a fake). ``output`` is where the
    prompt is shown (a rich Console). By default both use the terminal's stdout, or stderr when
    stdout is redirected, so ``--json`` output stays one JSON document. ``frames`` shows the attached images (default: PNG files
    in ``image_dir``, or in a new temporary folder, named on the console). ``hold`` is entered
    while the prompt is shown and the script typed (the runner's progress display steps aside).
    """

    def __init__(
        self,
        input_fn: Callable[[str], str] | None = None,
        output: Console | None = None,
        name: str = "human",
        image_dir: str | Path | None = None,
        frames: FrameDisplay | None = None,
        hold: Callable[[], AbstractContextManager[object]] | None = None,
    ) -> None:
        self.name = name
        on_terminal = _stdout_is_terminal()
        self.input_fn = input_fn or (input if on_terminal else _read_line_prompting_on_stderr)
        self.console = output if output is not None else Console(stderr=not on_terminal)
        self.image_dir = Path(image_dir) if image_dir is not None else None
        self._frames = frames
        self.hold = hold or contextlib.nullcontext
        self._turn = 0
        self._instructions_shown = False

    def complete(self, messages: Sequence[Message]) -> ModelReply:
        """Show the latest user message (and, once, the system instructions); return the typed script."""
        with self.hold():
            self._show(messages)
            start = time.perf_counter()
            text = self._read_script()
        self._turn += 1
        raw = {"human": True, "frames": self._frames.mode if self._frames is not None else None}
        return ModelReply(
            text=text, usage=Usage(), latency_s=time.perf_counter() - start, model=self.name, raw=raw
        )

    @property
    def frames(self) -> FrameDisplay:
        """The frame display, made on first use when none was given."""
        if self._frames is None:
            self._frames = FrameDisplay(self.image_dir)
        return self._frames

    def close(self) -> None:
        """Stop the frame display (its page server, if any); the saved frames stay."""
        if self._frames is not None:
            self._frames.close()

    # ----------------------------------------------------------------- display
    def _show(self, messages: Sequence[Message]) -> None:
        if not self._instructions_shown:
            system = [m for m in messages if m.role == "system"]
            if system:
                self.console.rule("instructions")
                self.console.print(Text(system[0].text))
            self._instructions_shown = True
        user = next((m for m in reversed(messages) if m.role == "user"), None)
        self.console.rule(f"turn {self._turn}")
        if user is None:
            self.console.print(Text("(no user message this turn)"))
        else:
            self.console.print(Text(user.text))
            count, images = _attached(user)
            if count:
                self.console.print(Text(f"[{count} image(s) attached]", style="bold"))
                for line in self.frames.show(self._turn, images):
                    self.console.print(Text(f"  {line}"))
        self.console.print(Text("Type your script; finish with an empty line (Ctrl-D to stop).", style="dim"))

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
