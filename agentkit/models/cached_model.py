"""Answer identical requests from the transcript store's response cache instead of paying again.

The key is the SHA-256 of the model name, its sampling parameters and the exact messages: their
text and each image's sha256 (``typed_request_key``; a text-only prompt keys as its OpenAI dicts
always did). A hit returns the stored answer marked ``cached`` with zero cost; the token
counts are kept so analyses of prompt size still hold. ``max_age_s`` expires old entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from agentkit.messages import Message
from agentkit.models.base import Model
from agentkit.models.openai_messages import typed_request_key
from agentkit.records import ModelReply, Usage


class ResponseCache(Protocol):
    def cache_get(self, key: str, max_age_s: float | None = None) -> dict[str, Any] | None: ...

    def cache_put(
        self, key: str, model: str, answer: str, input_tokens: int, output_tokens: int, cost_usd: float
    ) -> None: ...


class CachedModel:
    """Wraps any Model; consults ``cache`` before calling it and stores fresh answers after."""

    def __init__(
        self, inner: Model, cache: ResponseCache, params: dict[str, Any], max_age_s: float | None = None
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache = cache
        self.params = dict(params)
        self.max_age_s = max_age_s

    def complete(self, messages: Sequence[Message]) -> ModelReply:
        key = typed_request_key(self.name, self.params, messages)
        hit = self.cache.cache_get(key, self.max_age_s)
        if hit is not None:
            return ModelReply(
                text=hit["answer"],
                usage=Usage(hit["input_tokens"], hit["output_tokens"], 0.0),
                latency_s=0.0,
                model=self.name,
                cached=True,
                raw={"cache_key": key},
            )
        reply = self.inner.complete(messages)
        self.cache.cache_put(
            key,
            self.name,
            reply.text,
            reply.usage.input_tokens,
            reply.usage.output_tokens,
            reply.usage.cost_usd,
        )
        return reply
