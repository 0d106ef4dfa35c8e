"""The Ray task that plays one planned episode: the same ``Worker`` the local worker processes use.

Why a module of its own: Ray imports it by name on every node, so it imports nothing heavy until
a task runs. A Ray worker process runs many tasks one after the other, so it keeps one
``Worker`` (simulator, model client, store connection) per run and reuses it, as a local worker
process does; a task of another run closes the previous run's parts first.

Stdout: a Ray worker's stdout is forwarded to the driver's stdout, which under ``--json`` must
hold the JSON document alone (and simulators such as pybullet print banners from C). So the task
points this process's stdout at its stderr before importing anything that could print.
"""

from __future__ import annotations

import logging
import os
from typing import Any

log = logging.getLogger(__name__)

_current: tuple[str, Any] | None = None  # (run id, Worker) kept by this worker process
_stdout_moved = False


def _stdout_to_stderr() -> None:
    global _stdout_moved
    if not _stdout_moved:
        import sys

        sys.stdout.flush()
        os.dup2(2, 1)
        _stdout_moved = True


def _worker_for(ctx: Any, signal: Any, bucket: Any) -> Any:
    """This process's Worker for ``ctx``'s run (made on first use, the previous run's closed)."""
    global _current
    if _current is not None and _current[0] == ctx.run_id:
        return _current[1]
    from agentkit.runs.budget import RunBudget, StopFlag
    from agentkit.runs.executors.ray_stop_signal import TaskCell
    from agentkit.runs.worker import Worker

    if _current is not None:
        try:
            _current[1].close()
        except Exception:  # a broken previous worker must not stop this run
            log.debug("closing the previous run's worker raised", exc_info=True)
        _current = None
    # The run's limits are the driver's to count; this budget only listens to the stop flag.
    config = ctx.config.model_copy(
        update={"run_max_cost_usd": None, "run_max_tokens": None, "run_max_wall_s": None}
    )
    if bucket is not None and config.rate_limit_rpm:  # the run's limit is the cluster's, not this process's
        from agentkit.models.rate_limit import provider_of, use_limiter
        from agentkit.runs.executors.ray_rate_limit import ClusterRateLimiter

        use_limiter(provider_of(config.model), ClusterRateLimiter(bucket, config.rate_limit_rpm))
    worker = Worker(ctx, RunBudget(config, flag=StopFlag(TaskCell(signal))))
    _current = (ctx.run_id, worker)
    return worker


def play_episode(ctx: Any, signal: Any, bucket: Any, planned: Any) -> Any:
    """Play ``planned`` (with its relaunches) into the run's store; the EpisodeResult. ``signal`` is
    the run's stop-flag actor, ``bucket`` its rate-limit actor (None without ``--rate-limit-rpm``)."""
    _stdout_to_stderr()
    return _worker_for(ctx, signal, bucket).play(planned)
