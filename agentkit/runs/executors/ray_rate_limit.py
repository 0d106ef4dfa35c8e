"""One request rate limit for a whole Ray cluster: a small actor spaces every worker's requests.

Why: ``--rate-limit-rpm`` is the provider's limit on one API key. Locally the episodes of one
process share one leaky bucket (``agentkit.models.rate_limit``); on a cluster each Ray worker
process would have its own and together send N times the limit, provoking the 429s the limit is
there to avoid. So the driver starts one ``SharedBucket`` actor per run, and each worker process
installs a ``ClusterRateLimiter`` that reserves its start time there (one round trip per request,
small beside a model call) and sleeps until it. Should the actor be unreachable, the worker falls
back to its own bucket with a warning rather than stop the episode.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from agentkit.models.rate_limit import RateLimiter

log = logging.getLogger(__name__)

RESERVE_TIMEOUT_S = 10.0


class SharedBucket:
    """The actor's class: hands out start times ``60 / requests_per_minute`` seconds apart."""

    def __init__(self, requests_per_minute: float) -> None:
        self.interval = 60.0 / requests_per_minute
        self._next = 0.0

    def reserve(self) -> float:
        """The wall-clock time (``time.time()``) at which the caller may send its request."""
        now = time.time()
        start = max(now, self._next)
        self._next = start + self.interval
        return start


def start_bucket(requests_per_minute: float) -> Any:
    """A new bucket actor (no CPU of its own) for one run; the caller kills it when the run ends."""
    import ray

    return ray.remote(num_cpus=0, max_restarts=0)(SharedBucket).remote(requests_per_minute)


class ClusterRateLimiter(RateLimiter):
    """A RateLimiter whose bucket is the run's actor (its own bucket only if the actor is unreachable)."""

    def __init__(self, bucket: Any, requests_per_minute: float) -> None:
        super().__init__(requests_per_minute)
        self.bucket = bucket

    def acquire(self) -> None:
        import ray

        try:
            start = float(ray.get(self.bucket.reserve.remote(), timeout=RESERVE_TIMEOUT_S))
        except Exception as exc:  # the actor gone or stuck: space this process's requests at least
            log.warning("the cluster's rate limiter did not answer (%s): limiting this process alone", exc)
            super().acquire()
            return
        wait = start - time.time()
        if wait > 0:
            time.sleep(wait)
