"""Answer identical requests from the transcript store's response cache instead of paying again.

The key is the SHA-256 of the model name, its sampling parameters and the exact messages: for typed
messages their text and each image's sha256 (``typed_request_key``), for OpenAI-style dicts the
dicts as sent, data URLs included. A hit returns the stored answer marked ``cached`` with zero cost; the token
counts are kept so analyses of prompt size still hold. ``max_age_s`` expires old entries.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Protocol

from agentkit.messages import Message
from agentkit.models.base import Model, PromptMessage
from agentkit.models.openai_messages import messages_for, typed_request_key
from agentkit.records import ModelReply, Usage


class ResponseCache(Protocol):
    def cache_get(self, key: str, max_age_s: float | None = None) -> dict[str, Any] | None: ...

    def cache_put(
        self, key: str, model: str, answer: str, input_tokens: int, output_tokens: int, cost_usd: float
    ) -> None: ...


def request_key(model: str, params: dict[str, Any], messages: Sequence[dict[str, Any]]) -> str:
    payload = json.dumps(
        {"model": model, "params": params, "messages": messages},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    # surrogatepass: an earlier answer with a lone surrogate in the history must not break the key
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


class CachedModel:
    """Wraps any Model; consults ``cache`` before calling it and stores fresh answers after."""

    takes_typed_messages = True  # the inner model gets them as it reads them (messages_for)

    def __init__(
        self, inner: Model, cache: ResponseCache, params: dict[str, Any], max_age_s: float | None = None
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache = cache
        self.params = dict(params)
        self.max_age_s = max_age_s

    def complete(self, messages: Sequence[PromptMessage]) -> ModelReply:
        if any(isinstance(m, Message) for m in messages):
            key = typed_request_key(self.name, self.params, messages)
        else:
            key = request_key(self.name, self.params, messages)  # type: ignore[arg-type]  # all dicts
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
        reply = self.inner.complete(messages_for(self.inner, messages))
        self.cache.cache_put(
            key,
            self.name,
            reply.text,
            reply.usage.input_tokens,
            reply.usage.output_tokens,
            reply.usage.cost_usd,
        )
        return reply
