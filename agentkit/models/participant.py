"""Who plays a turn: the one call the loop makes to get a script, whatever answers it.

Why: a model answers chat messages with text that must be parsed; the reference agent reads the
Observation's privileged state and knows its commands already. Both are participants of the loop,
so neither has to pretend to be the other: the loop hands each turn the messages and the
Observation, and gets back the reply (whose text the transcript keeps) and the script it means.

A reply is read once, by the participant, with the episode's reader
(:mod:`agentkit.models.answer_reader`), which the loop chooses at set-up for the control mode and
the action format and hands over when it makes the episode's player (:func:`as_participant`).
What the participant returns is what the turn executes and stores.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from agentkit.actions import ParseError, Script, Vocabulary
from agentkit.messages import Message
from agentkit.models.answer_reader import SCRIPT_READER, AnswerReader
from agentkit.models.base import Model
from agentkit.observers import Observation
from agentkit.records import ModelReply

__all__ = ["Answer", "Participant", "ModelParticipant", "TakesReader", "as_participant"]


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


@runtime_checkable
class TakesReader(Protocol):
    """A participant made before its episode (by a ``model_factory``) whose replies need reading: the
    loop hands it the episode's reader before the first turn, and plays the participant it returns."""

    def reading_with(self, reader: AnswerReader) -> Participant: ...


class ModelParticipant:
    """A model's turn: it answers the messages (never sees the Observation) and ``reader`` reads the
    reply once: its text as a script (the default), its tool calls (``--action-format tools``:
    ``agentkit.models.answer_reader.TOOL_CALL_READER``) or one primitive action name
    (frame-by-frame control)."""

    def __init__(self, model: Model, reader: AnswerReader = SCRIPT_READER) -> None:
        self.model = model
        self.name = model.name
        self.reader = reader

    def answer(self, messages: list[Message], observation: Observation, vocabulary: Vocabulary) -> Answer:
        reply = self.model.complete(messages)
        start = time.perf_counter()
        parsed = self.reader.read(reply, vocabulary)
        return Answer(reply, parsed, time.perf_counter() - start)


def as_participant(source: Model | Participant, reader: AnswerReader = SCRIPT_READER) -> Participant:
    """The player of an episode whose replies ``reader`` reads: a model wrapped to play turns, a
    participant that takes a reader given it, or ``source`` itself when it reads no replies (the
    reference agent, a built-in controller: they return their scripts as they are)."""
    if isinstance(source, TakesReader):
        return source.reading_with(reader)
    return source if isinstance(source, Participant) else ModelParticipant(source, reader)
