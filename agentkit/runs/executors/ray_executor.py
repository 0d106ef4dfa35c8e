"""Play a run's planned episodes as Ray tasks, keeping the run's one live writer in the driver.

Why: the runner's local pools stop at one machine. Here the driver (the process running
``agentkit eval``) joins a Ray cluster (``--ray-address``, ``$RAY_ADDRESS``, or a new local one),
keeps up to ``max_concurrency`` episodes in flight as Ray tasks (with the default of 1, as many as
the cluster has room for), and hands each result to the runner as a local pool would. A task of
the reference agent (CPU-bound: the simulator is the work) takes one CPU; a task of an API model,
which mostly waits on the network, takes ``API_TASK_CPUS``. The driver still holds the run's lease
and counts its budget; tasks write their episodes to the shared store, read the stop flag from a
small actor (``ray_stop_signal``) and, with ``--rate-limit-rpm``, share one rate limit held by
another (``ray_rate_limit``).

A task lost with its worker process or node is not retried by Ray (its retry would reuse the
episode's stable id): the driver closes what the lost task left "running", keeps a result the
task had already stored, and otherwise plays the episode again under the next attempt number,
at most ``MAX_LOSSES`` times per episode.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from agentkit.config import RunConfig
from agentkit.records import EndReason, EpisodeResult
from agentkit.runs.budget import RunBudget
from agentkit.runs.executors.ray_address import (
    check_nodes_share_sqlite,
    check_reachable,
    check_store_for_ray,
    effective_address,
    require_ray,
)
from agentkit.runs.worker import (
    RERUN_REASONS,
    PlannedEpisode,
    WorkerContext,
    cpu_bound,
    ended_unjudged,
    episode_id_for,
    result_of_stored,
)
from agentkit.transcripts import TranscriptStore

log = logging.getLogger(__name__)

API_TASK_CPUS = 0.25  # an API model's episode waits on the network: four share a CPU
MAX_LOSSES = 3  # times one episode may be lost with its Ray worker before it is recorded as env_error
LOST_NOTE = "its Ray worker or node was lost"


class RaySession:
    """One run's connection to a Ray cluster: ``with RaySession(config, store) as session: ...``.

    Entering checks everything that can be refused in one line (Ray missing, a store the cluster
    cannot write, an address nobody answers), so a refused run is never created.
    """

    def __init__(self, config: RunConfig, store: TranscriptStore) -> None:
        require_ray()
        self.address = effective_address(config.ray_address)
        check_store_for_ray(store.url, store.is_memory, self.address)
        self.store_url = store.url
        self.config = config
        self.started_here = False
        self._printed_before = True
        self.signal: Any = None
        self.bucket: Any = None  # the run's shared rate limit, with --rate-limit-rpm

        self.task_cpus = 1.0 if cpu_bound(config.model) else API_TASK_CPUS

    def __enter__(self) -> RaySession:
        import ray

        from agentkit.runs.executors.ray_stop_signal import start_signal

        if not ray.is_initialized():
            check_reachable(self.address)
            where = self.address or "a new local cluster"
            try:
                ray.init(
                    address=self.address,
                    include_dashboard=False,
                    # Workers' and raylets' output would reach this process's stdout, which under
                    # --json holds the document alone: it stays in the cluster's log files.
                    log_to_driver=False,
                    logging_level=logging.WARNING,
                    configure_logging=False,
                )
            except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise ValueError(f"--ray-address {where}: cannot join the Ray cluster ({first})") from exc
            self.started_here = True
        self._printed_before = _quiet_cluster_messages(False)
        try:
            hosts = [n["NodeManagerAddress"] for n in ray.nodes() if n.get("Alive")]
            check_nodes_share_sqlite(self.store_url, hosts, self.address)
        except ValueError:
            self.__exit__()
            raise
        self.signal = start_signal()
        if self.config.rate_limit_rpm:
            from agentkit.runs.executors.ray_rate_limit import start_bucket

            self.bucket = start_bucket(self.config.rate_limit_rpm)
        return self

    def __exit__(self, *exc: object) -> None:
        import ray

        for actor in (self.signal, self.bucket):
            try:
                if actor is not None:
                    ray.kill(actor)
            except Exception:  # the cluster may be gone already
                log.debug("could not stop one of the run's actors", exc_info=True)
        if self.started_here:
            ray.shutdown()
        _quiet_cluster_messages(self._printed_before)  # a caller's own Ray use prints as before

    def stop_cell(self) -> Any:
        """The cell of the driver's StopFlag (its writes reach every task)."""
        from agentkit.runs.executors.ray_stop_signal import DriverCell

        return DriverCell(self.signal)

    def in_flight(self) -> int:
        """Episodes submitted at once: ``max_concurrency``, or with the default of 1 as many tasks as
        the cluster's CPUs hold."""
        if self.config.max_concurrency > 1:
            return self.config.max_concurrency
        import ray

        return max(1, int(ray.cluster_resources().get("CPU", 1) / self.task_cpus))

    def play(
        self,
        plan: list[PlannedEpisode],
        ctx: WorkerContext,
        store: TranscriptStore,
        budget: RunBudget,
        finished: Callable[[EpisodeResult], None],
    ) -> None:
        """Play ``plan`` on the cluster; ``finished`` gets each final result in the driver."""
        import ray

        from agentkit.runs.executors.ray_episode import play_episode

        task = ray.remote(num_cpus=self.task_cpus, max_retries=0)(play_episode)
        ctx_ref = ray.put(ctx)
        losses: dict[tuple[str, int, int], int] = {}  # (task, trial, seed) -> times lost
        pending = list(reversed(plan))  # popped from the end: plan order, relaunches first
        in_flight: dict[Any, PlannedEpisode] = {}
        n = self.in_flight()
        try:
            while True:
                while pending and len(in_flight) < n and budget.stop_reason() is None:
                    planned = pending.pop()
                    in_flight[task.remote(ctx_ref, self.signal, self.bucket, planned)] = planned
                if not in_flight:
                    break
                ready, _ = ray.wait(list(in_flight), num_returns=1)
                for ref in ready:
                    planned = in_flight.pop(ref)
                    outcome = self._outcome(ref, planned, store, ctx.run_id, losses)
                    if isinstance(outcome, PlannedEpisode):
                        pending.append(outcome)
                    else:
                        finished(outcome)
        except KeyboardInterrupt:
            log.warning("interrupted: ending the episodes in flight on the cluster")
            budget.cancel()
            for ref, planned in in_flight.items():
                try:
                    outcome = self._outcome(ref, planned, store, ctx.run_id, losses)
                    if not isinstance(outcome, PlannedEpisode):
                        finished(outcome)
                except Exception:
                    log.debug("an episode in flight failed while cancelling", exc_info=True)
            raise

    def _outcome(
        self,
        ref: Any,
        planned: PlannedEpisode,
        store: TranscriptStore,
        run_id: str,
        losses: dict[tuple[str, int, int], int],
    ) -> EpisodeResult | PlannedEpisode:
        """The task's result, or after a lost task: the result it had stored, or the episode to play again."""
        import ray
        from ray.exceptions import RayError, RayTaskError

        try:
            return ray.get(ref)
        except RayTaskError:  # the episode code itself raised: as a local pool, the run fails loudly
            raise
        except RayError as exc:
            key = (planned.task, planned.trial, planned.seed)
            lost = losses[key] = losses.get(key, 0) + 1
            log.warning("%s trial %d: %s (%s)", planned.task, planned.trial, LOST_NOTE, type(exc).__name__)
            return _after_loss(store, run_id, planned, lost, self.config.pass_rule)


def _quiet_cluster_messages(enabled: bool) -> bool:
    """Keep the cluster's messages (a raylet's death notice...) off this process's stdout (``enabled``
    False), or let them through again; returns the setting it replaced.

    Ray prints them to stdout from a thread of the driver even with ``log_to_driver=False``, and
    under ``--json`` stdout holds the document alone. Ray 2.60 reads this module flag before
    printing (its own debugger turns it off the same way); the driver logs lost tasks itself, and
    the cluster's messages stay in its log files (``/tmp/ray/session_latest/logs`` on each node).
    """
    try:
        from ray._private import worker as ray_worker

        before = bool(ray_worker._worker_logs_enabled)
        ray_worker._worker_logs_enabled = enabled
        return before
    except (ImportError, AttributeError):  # another Ray release: its messages may reach stdout
        log.debug("could not quiet Ray's driver messages", exc_info=True)
        return True


def _after_loss(
    store: TranscriptStore, run_id: str, planned: PlannedEpisode, lost: int, rule: str
) -> EpisodeResult | PlannedEpisode:
    """Close the lost task's "running" episodes; keep a final result it stored; else play it again."""

    mine = [
        e
        for e in store.list_episodes(run_id=run_id, task=planned.task)
        if (e.trial, e.seed) == (planned.trial, planned.seed) and e.attempt >= planned.first_attempt
    ]
    for info in mine:
        if info.status != "finished":
            store.mark_unfinished(info.id, LOST_NOTE)
    latest = max(mine, key=lambda e: e.attempt, default=None)
    if latest is not None and latest.status == "finished" and latest.end_reason not in RERUN_REASONS:
        return result_of_stored(latest)  # it finished for good before its worker was lost
    next_attempt = latest.attempt + 1 if latest is not None else planned.first_attempt
    if lost >= MAX_LOSSES:
        episode_id = episode_id_for(run_id, planned.task, planned.trial, planned.seed, next_attempt - 1)
        return ended_unjudged(
            episode_id,
            planned.task,
            planned.seed,
            EndReason.ENV_ERROR,
            rule,
            trial=planned.trial,
            error=f"{LOST_NOTE} {lost} times",
        )
    return PlannedEpisode(planned.task, planned.trial, planned.seed, first_attempt=next_attempt)
