"""A model that repeats recorded answers: re-running an episode from a transcript, and tests.

Why: with the same task and seed, replaying a model's answers must reproduce the episode without
calling (or paying) the provider again, which makes transcripts checkable and bugs reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentkit.messages import Message, ToolCall
from agentkit.models.base import ModelError
from agentkit.records import ModelReply, Usage


class ReplayModel:
    """Returns ``answers`` in order, one per call, at zero cost; raw is ``{"replayed": True}``.

    Once all answers are used, the next call raises ModelError naming the turn (0-based, like
    ``TurnRecord.index``), so the loop ends the episode with MODEL_ERROR instead of inventing one.
    ``record_end``, when given, says why the record has no more answers (its episode ended in a
    model error there, or was left unfinished): running out is then the record's own end, and the
    ModelError carries that sentence, marked ``recorded``, instead of "ran out of answers".
    ``tool_calls``, when given, holds each answer's recorded tool calls (``[{"id", "name",
    "arguments"}]`` or None, as stored with the turn), given back with it: a tool-call episode
    replays its very calls.
    """

    def __init__(
        self,
        answers: Sequence[str],
        name: str = "replay",
        tool_calls: Sequence[list[dict[str, Any]] | None] | None = None,
        record_end: str | None = None,
    ) -> None:
        self.name = name
        self.record_end = record_end
        self._answers = list(answers)
        self._tool_calls = list(tool_calls) if tool_calls is not None else [None] * len(self._answers)
        if len(self._tool_calls) != len(self._answers):
            raise ValueError("replay: one list of tool calls (or None) per recorded answer")
        self._turn = 0

    @property
    def remaining(self) -> int:
        """Answers not yet given."""
        return len(self._answers) - self._turn

    def complete(self, messages: Sequence[Message]) -> ModelReply:
        """The next recorded answer; the messages are ignored."""
        if self._turn >= len(self._answers):
            if self.record_end is not None:
                raise ModelError(self.record_end, transient=False, recorded=True)
            raise ModelError(
                f"replay ran out of recorded answers at turn {self._turn} ({len(self._answers)} recorded)"
            )
        text, calls = self._answers[self._turn], self._tool_calls[self._turn]
        self._turn += 1
        return ModelReply(
            text=text,
            usage=Usage(),
            latency_s=0.0,
            model=self.name,
            raw={"replayed": True},
            tool_calls=tuple(ToolCall.from_json(c) for c in calls or ()),
        )
