"""The one method the loop needs from a model: answer these chat messages.

Every model takes typed messages (``agentkit.messages.Message``) and nothing else: the renderer,
memory and the loop make them, and a caller's OpenAI-style dicts are read into them once, at the
edge (``agentkit.messages.messages_from_openai``). Provider JSON is made inside the model client.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from agentkit.messages import Message
from agentkit.records import ModelReply


class ModelError(Exception):
    """The model could not produce an answer (after retries). The loop ends the episode with MODEL_ERROR.

    ``transient`` is False when the same request would fail again (a request too long for the
    context window, a bad request, a refused key): the runner then does not relaunch the episode.
    """

    def __init__(self, message: str, *, transient: bool = True, recorded: bool = False) -> None:
        super().__init__(message)
        self.transient = transient
        # True when the error only reproduces where a recorded episode ended (a replay reaching the
        # end of its record): expected, so the loop logs it as information, not as a failure.
        self.recorded = recorded


class Model(Protocol):
    """A source of answers to chat messages (API models, replay, a person at a terminal). The
    privileged reference agent is no Model: it reads the Observation, not the prompt (see
    :mod:`agentkit.models.participant`)."""

    name: str

    def complete(self, messages: Sequence[Message]) -> ModelReply: ...
