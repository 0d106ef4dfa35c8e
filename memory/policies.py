"""The four history policies researchers compare, behind one two-method interface.

- ``full``: every earlier prompt and answer (what the LLM-AAI paper does).
- ``window:K``: only the last K turns.
- ``last-images:K``: every turn's text, but images only for the last K turns (the cost of images
  grows fastest, so this keeps the narrative while bounding image tokens).
- ``markovian``: the current observation only.

They read and return typed messages (``agentkit.messages.Message``) only, as the loop and rerender
make them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from agentkit.messages import ImagePart, Message, TextPart

IMAGE_PLACEHOLDER = "[an image was shown here]"


_PLACEHOLDER_PART = TextPart(IMAGE_PLACEHOLDER)
_STRIPPED_SIZE = (
    4096  # typed messages whose image-free form is remembered (last-images:K strips each every turn)
)
_stripped: dict[Message, Message] = {}


@dataclass(frozen=True)
class TurnMessages:
    """One finished turn as it was sent and answered. ``results`` are the ``tool`` messages
    answering the assistant's tool calls (``--action-format tools``): kept in the turn, so every
    policy keeps or drops a call and its results together (an API refuses a result without its call,
    and a call without its results)."""

    user: Message
    assistant: Message
    results: tuple[Message, ...] = ()


def strip_images(message: Message) -> Message:
    """The message with image parts replaced by a short text marker (text parts kept as they were)."""
    stripped = _stripped.get(message)
    if stripped is None:  # each turn strips the same older messages again: remembered by value
        if isinstance(message.content, str) or not message.images:
            return message
        parts = tuple(_PLACEHOLDER_PART if isinstance(p, ImagePart) else p for p in message.content)
        stripped = Message(message.role, parts)
        if len(_stripped) >= _STRIPPED_SIZE:
            try:  # forget the oldest; another thread may be doing the same
                _stripped.pop(next(iter(_stripped)), None)
            except (RuntimeError, StopIteration):
                pass
        _stripped[message] = stripped
    return stripped


class MemoryPolicy(ABC):
    """Chooses the history messages that go between the system message and the current turn."""

    spec: str

    @abstractmethod
    def select(self, turns: list[TurnMessages]) -> list[Message]: ...


def _flatten(turns: list[TurnMessages]) -> list[Message]:
    out: list[Message] = []
    for t in turns:
        out.append(t.user)
        out.append(t.assistant)
        out.extend(t.results)
    return out


class FullHistory(MemoryPolicy):
    spec = "full"

    def select(self, turns: list[TurnMessages]) -> list[Message]:
        return _flatten(turns)


class Markovian(MemoryPolicy):
    spec = "markovian"

    def select(self, turns: list[TurnMessages]) -> list[Message]:
        return []


class Window(MemoryPolicy):
    def __init__(self, k: int) -> None:
        if k < 1:
            raise ValueError("window size must be at least 1 (use 'markovian' for no history)")
        self.k = k
        self.spec = f"window:{k}"

    def select(self, turns: list[TurnMessages]) -> list[Message]:
        return _flatten(turns[-self.k :])


class LastKImages(MemoryPolicy):
    def __init__(self, k: int) -> None:
        if k < 0:
            raise ValueError("image window must be >= 0")
        self.k = k
        self.spec = f"last-images:{k}"

    def select(self, turns: list[TurnMessages]) -> list[Message]:
        cut = len(turns) - self.k
        out: list[Message] = []
        for i, t in enumerate(turns):
            out.append(t.user if i >= cut else strip_images(t.user))
            out.append(t.assistant)
            out.extend(t.results)
        return out


def memory_policy_from_spec(spec: str) -> MemoryPolicy:
    """Parse ``full``, ``markovian``, ``window:K`` or ``last-images:K`` (a clear error otherwise)."""
    name, _, arg = spec.strip().partition(":")
    try:
        if name == "full" and not arg:
            return FullHistory()
        if name == "markovian" and not arg:
            return Markovian()
        if name == "window":
            return Window(int(arg))
        if name == "last-images":
            return LastKImages(int(arg))
    except ValueError as exc:
        raise ValueError(f"memory policy {spec!r}: {exc}") from None
    raise ValueError(f"unknown memory policy {spec!r}; use full, markovian, window:K or last-images:K")
