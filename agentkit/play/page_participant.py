"""The loop's participant whose answers come from a web page: the bridge between two threads.

Why: the loop calls ``answer`` and waits for a script, exactly as it waits for a model; the page
hands answers over HTTP. This object lets the episode thread wait until the page sends the next
answer (held keys in keyboard mode, a typed script in script mode), and lets the request thread
wait until the world has stepped and the next frame is ready. Nothing moves unless a request
arrives: a closed tab leaves the episode thread waiting, the world paused where it was.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from agentkit.actions import Script, Vocabulary
from agentkit.models.answer_reader import SCRIPT_READER, AnswerReader
from agentkit.models.base import ModelError
from agentkit.models.participant import Answer
from agentkit.observers import Observation
from agentkit.records import ModelReply, Usage


@dataclass
class View:
    """What the page shows now: the frame the participant sees and the numbers beside it."""

    frame: str = ""  # a data URL of the observation's image (what a model would be shown)
    step: int = 0
    reward: float = 0.0
    health: float | None = None  # None: the world has no health (the gridworld)
    prompt: str = ""  # the turn's prompt text (script mode shows it: the model's conditions)
    feedback: str = ""  # why the last script was refused, as the model would be told

    def to_json(self) -> dict[str, Any]:
        return {
            "frame": self.frame,
            "step": self.step,
            "reward": round(self.reward, 4),
            "health": None if self.health is None else round(self.health, 2),
            "prompt": self.prompt,
            "feedback": self.feedback,
        }


def _message_text(message: Any) -> tuple[str, str]:
    """(role, text) of a typed message or an OpenAI-shaped dict."""
    if isinstance(message, dict):
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(
                str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text"
            )
        return str(message.get("role", "")), str(content or "")
    return str(getattr(message, "role", "")), str(getattr(message, "text", "") or "")


def prompt_text(messages: list[Any]) -> str:
    """The text of the latest user message (the turn's prompt as a model reads it)."""
    for message in reversed(messages):
        role, text = _message_text(message)
        if role == "user":
            return text
    return ""


@dataclass
class _Board:
    """State shared by the episode thread and the request threads, guarded by ``cond``."""

    cond: threading.Condition = field(default_factory=threading.Condition)
    view: View = field(default_factory=View)
    version: int = 0  # counts frames: a request waits for the one after the answer it handed over
    waiting: bool = False  # the episode thread waits for an answer
    pending: str | None = None
    closed: bool = False
    finished: bool = False  # every episode of the session is over


class PageParticipant:
    """Plays the turns the page answers. ``keyboard`` mode answers primitive action names (one step
    each, under frame-by-frame control); ``script`` mode answers Go/Turn scripts. Either is read by
    the episode's reader, which the loop hands over before the first turn (``reading_with``)."""

    def __init__(self, name: str, mode: str) -> None:
        if mode not in ("keyboard", "script"):
            raise ValueError(f"play mode must be keyboard or script, not {mode!r}")
        self.name = name
        self.mode = mode
        self.reader = SCRIPT_READER
        self.board = _Board()

    def reading_with(self, reader: AnswerReader) -> PageParticipant:
        """Read the page's answers with the episode's ``reader`` (keyboard mode's run is played frame
        by frame, so its reader takes one primitive action name); the same object plays on, since
        the page's requests hand their answers to it."""
        self.reader = reader
        return self

    # ------------------------------------------------------------ episode thread
    def answer(self, messages: list[Any], observation: Observation, vocabulary: Vocabulary) -> Answer:
        board = self.board
        image = observation.images[0].data_url() if observation.images else ""
        with board.cond:
            board.view = View(
                frame=image,
                step=observation.step,
                reward=observation.total_reward,
                health=None if observation.health is None else float(observation.health),
                prompt=prompt_text(messages) if self.mode == "script" else "",
                feedback=board.view.feedback,
            )
            board.version += 1
            board.waiting = True
            board.cond.notify_all()
            while board.pending is None and not board.closed:
                board.cond.wait()
            if board.pending is None:
                raise ModelError("the participant's session was closed")
            text, board.pending, board.waiting = board.pending, None, False
        reply = ModelReply(
            text=text, usage=Usage(), latency_s=0.0, model=self.name, raw={"human": True, "play": self.mode}
        )
        start = time.perf_counter()
        parsed = self.reader.read(reply, vocabulary)
        with board.cond:
            board.view.feedback = "" if isinstance(parsed, Script) else parsed.message
        return Answer(reply, parsed, time.perf_counter() - start)

    # ------------------------------------------------------------ request threads
    def hand_over(self, text: str, timeout_s: float = 10.0) -> bool:
        """Give the waiting episode thread ``text`` and wait for the frame that follows (or the end
        of the session). False when the world was not waiting for an answer within ``timeout_s``."""
        board = self.board
        deadline = time.monotonic() + timeout_s
        with board.cond:
            while not board.waiting and not board.finished and not board.closed:
                if not board.cond.wait(max(0.0, deadline - time.monotonic())):
                    return False
            if board.finished or board.closed:
                return False
            seen = board.version
            board.pending = text
            board.cond.notify_all()
            while board.version == seen and not board.finished and not board.closed:
                if not board.cond.wait(max(0.0, deadline - time.monotonic())):
                    return False
            return True

    def wait_first_frame(self, timeout_s: float = 30.0) -> bool:
        """Wait until the world shows its first frame (or the session is over)."""
        with self.board.cond:
            return self.board.cond.wait_for(
                lambda: self.board.version > 0 or self.board.finished or self.board.closed, timeout_s
            )

    def close(self) -> None:
        """End the wait of the episode thread (the server stops): its episode ends as a model error."""
        with self.board.cond:
            self.board.closed = True
            self.board.cond.notify_all()

    def mark_finished(self) -> None:
        with self.board.cond:
            self.board.finished = True
            self.board.cond.notify_all()
