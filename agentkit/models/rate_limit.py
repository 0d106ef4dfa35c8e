"""Per-provider request rate limits shared by every episode of a process.

Concurrent episodes that share one API key also share its rate limit; spacing requests here keeps
them under it instead of provoking 429s and their backoff.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from agentkit.messages import Message
from agentkit.models.base import Model
from agentkit.records import ModelReply


class RateLimiter:
    """At most ``requests_per_minute`` starts per minute, evenly spaced (a leaky bucket)."""

    def __init__(self, requests_per_minute: float) -> None:
        if requests_per_minute <= 0:
            raise ValueError("requests_per_minute must be positive")
        self.interval = 60.0 / requests_per_minute
        self._next = 0.0
        self._lock = threading.Lock()

    def acquire(self) -> None:
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


_LIMITERS: dict[str, RateLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def provider_of(model: str) -> str:
    """litellm's provider prefix ("openai/gpt-4o" -> "openai"); bare names count as their own."""
    return model.split("/", 1)[0] if "/" in model else model


def use_limiter(provider: str, limiter: RateLimiter) -> None:
    """Make ``limiter`` the one this process's episodes of ``provider`` share from now on (e.g. one
    asking a Ray actor that holds a whole cluster's limit: agentkit.runs.executors.ray_rate_limit)."""
    with _LIMITERS_LOCK:
        _LIMITERS[provider] = limiter


def limiter_for(provider: str, requests_per_minute: float) -> RateLimiter:
    with _LIMITERS_LOCK:
        limiter = _LIMITERS.get(provider)
        if limiter is None or abs(limiter.interval - 60.0 / requests_per_minute) > 1e-12:
            limiter = _LIMITERS[provider] = RateLimiter(requests_per_minute)
        return limiter


class RateLimitedModel:
    def __init__(self, inner: Model, limiter: RateLimiter) -> None:
        self.inner = inner
        self.name = inner.name
        self.limiter = limiter

    def complete(self, messages: Sequence[Message]) -> ModelReply:
        self.limiter.acquire()
        return self.inner.complete(messages)
