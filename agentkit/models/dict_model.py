"""A model written for OpenAI-style dict messages, behind the typed ``Model`` interface.

Why: every model takes ``agentkit.messages.Message`` now, and nothing in agentkit asks a model which
kind it reads. A model of one's own that reads OpenAI chat dicts (``messages[-1]["content"]``) is
wrapped once, where it is handed to agentkit (``make_setup(config, model_factory=lambda backend:
OpenAIDictModel(MyModel()))``), and gets each prompt as the dicts the model client would send.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from agentkit.messages import Message
from agentkit.models.openai_messages import to_openai
from agentkit.records import ModelReply


class DictReadingModel(Protocol):
    """A model whose ``complete`` reads OpenAI chat dicts."""

    name: str

    def complete(self, messages: list[dict[str, Any]]) -> ModelReply: ...


class OpenAIDictModel:
    """Hands ``inner`` each typed prompt as OpenAI chat dicts (images as data URLs)."""

    def __init__(self, inner: DictReadingModel) -> None:
        self.inner = inner
        self.name = inner.name

    def complete(self, messages: Sequence[Message]) -> ModelReply:
        return self.inner.complete(to_openai(messages))
