"""The one method the loop needs from a model: answer these chat messages."""

from __future__ import annotations

from typing import Any, Protocol

from agentkit.observers import Observation
from agentkit.records import ModelReply


class ModelError(Exception):
    """The model could not produce an answer (after retries). The loop ends the episode with MODEL_ERROR.

    ``transient`` is False when the same request would fail again (a request too long for the
    context window, a bad request, a refused key): the runner then does not relaunch the episode.
    """

    def __init__(self, message: str, *, transient: bool = True) -> None:
        super().__init__(message)
        self.transient = transient


class Model(Protocol):
    """A source of answers. ``observation`` is given so privileged agents (reference, human) need no
    prompt parsing; API models ignore it and read only ``messages``."""

    name: str

    def complete(self, messages: list[dict[str, Any]], observation: Observation) -> ModelReply: ...
