"""Who plays a turn: the one call the loop makes to get a script, whatever answers it.

Why: a model answers chat messages with text that must be parsed; the reference agent reads the
Observation's privileged state and knows its commands already. Both are participants of the loop,
so neither has to pretend to be the other: the loop hands each turn the messages and the
Observation, and gets back the reply (whose text the transcript keeps) and the script it means.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from agentkit.actions import ParseError, Script, Vocabulary, parse_script
from agentkit.actions.tool_calls import script_from_tool_calls
from agentkit.messages import Message
from agentkit.models.base import Model
from agentkit.observers import Observation
from agentkit.records import ModelReply

__all__ = ["Answer", "Participant", "ModelParticipant", "as_participant"]


@dataclass
class Answer:
    """One turn's answer: the reply (its text is stored as the answer) and the script it means, or
    why it means none. ``parse_s`` is the time spent reading the text (zero when none was read)."""

    reply: ModelReply
    parsed: Script | ParseError
    parse_s: float = 0.0

    @property
    def script(self) -> Script | None:
        return self.parsed if isinstance(self.parsed, Script) else None

    @property
    def parse_error(self) -> ParseError | None:
        return self.parsed if isinstance(self.parsed, ParseError) else None


@runtime_checkable
class Participant(Protocol):
    """Plays one turn. May raise :class:`~agentkit.models.base.ModelError` (the episode then ends)."""

    name: str

    def answer(self, messages: list[Message], observation: Observation, vocabulary: Vocabulary) -> Answer: ...


class ModelParticipant:
    """A model's turn: it answers the messages (never sees the Observation) and its text is parsed.

    With ``action_format="tools"`` the answer's tool calls are read instead, by the same rules
    (``agentkit.actions.tool_calls``); an answer that calls no tool is refused, never read as text.
    """

    def __init__(self, model: Model, action_format: str = "text") -> None:
        self.model = model
        self.name = model.name
        self.action_format = action_format

    def answer(self, messages: list[Message], observation: Observation, vocabulary: Vocabulary) -> Answer:
        reply = self.model.complete(messages)
        start = time.perf_counter()
        if self.action_format == "tools":
            parsed = script_from_tool_calls(list(reply.tool_calls), vocabulary)
        else:
            parsed = parse_script(reply.text, vocabulary)
        return Answer(reply, parsed, time.perf_counter() - start)


def as_participant(source: Model | Participant, action_format: str = "text") -> Participant:
    """``source`` itself when it plays turns, else the model wrapped to play them (reading tool
    calls when ``action_format`` is ``"tools"``)."""
    return source if isinstance(source, Participant) else ModelParticipant(source, action_format)
