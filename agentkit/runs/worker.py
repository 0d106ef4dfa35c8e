"""Play one planned episode (with its relaunches) inside a worker thread or worker process.

Each worker keeps its own episode parts (backend, model client) and its own store connection:
simulators and SQLite connections are not shareable across threads, and re-creating a physics
world per episode would cost more than the episode. After an environment crash the parts are
rebuilt, so one dead simulator never poisons the following episodes.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass
from typing import Any

from agentkit.actions import Vocabulary
from agentkit.config import RunConfig
from agentkit.loop import EpisodeSetup, run_episode
from agentkit.messages import Message
from agentkit.models.controller_agent import is_controller_model
from agentkit.models.participant import Answer, Participant, as_participant
from agentkit.observers import Observation
from agentkit.pass_rule import apply as judge_metrics
from agentkit.records import EndReason, EpisodeResult, StorageError, Usage
from agentkit.runs.budget import RunBudget, StopFlag
from agentkit.runs.setup_episode import make_setup
from agentkit.transcripts import TranscriptStore

log = logging.getLogger(__name__)

# Models whose episodes spend their time in our own process (the simulator and planner), not waiting on a server.
CPU_BOUND_MODELS = ("reference",)


def cpu_bound(model: str) -> bool:
    """Whether ``model``'s episodes run in our own process: the reference planner, or a backend's
    built-in controller (``causalworld:<actor>``), whose every step is the simulator's and the network's."""
    return model in CPU_BOUND_MODELS or is_controller_model(model)


# Episodes that end for these reasons were not the model's doing: they are relaunched.
RELAUNCH = (EndReason.MODEL_ERROR, EndReason.ENV_ERROR)
# What a resumed run plays again: never finished, failed for infrastructure reasons, or stopped
# by the run (Ctrl-C, a run budget) rather than by the episode itself.
RERUN_REASONS = {
    EndReason.MODEL_ERROR.value,
    EndReason.ENV_ERROR.value,
    EndReason.CANCELLED.value,
    EndReason.STORAGE_ERROR.value,
}


def episode_id_for(run_id: str, task: str, trial: int, seed: int, attempt: int) -> str:
    """A stable id: the same (run, task, trial, seed, attempt) always names the same episode row."""
    key = f"{run_id}|{task}|{trial}|{seed}|{attempt}".encode()
    return hashlib.sha256(key).hexdigest()[:16]


@dataclass(frozen=True)
class PlannedEpisode:
    task: str
    trial: int
    seed: int
    first_attempt: int = 0  # > 0 when resuming a key that already has attempts


@dataclass
class WorkerContext:
    """What every worker needs to play episodes of one run (picklable for process workers)."""

    config: RunConfig
    db_url: str
    run_id: str
    templates: dict[str, str]
    api_key: str | None = None


class _BudgetedPlayer:
    """Counts every answer's usage against the run budget as it arrives (per turn, not per episode)."""

    def __init__(self, inner: Participant, budget: RunBudget) -> None:
        self.inner, self.budget, self.name = inner, budget, inner.name

    def answer(self, messages: list[Message], observation: Observation, vocabulary: Vocabulary) -> Answer:
        answer = self.inner.answer(messages, observation, vocabulary)
        self.budget.add(answer.reply.usage)
        return answer


class Worker:
    """One worker's parts; ``play`` runs a planned episode to a final result, relaunching failures."""

    def __init__(self, ctx: WorkerContext, budget: RunBudget, store: TranscriptStore | None = None) -> None:
        self.ctx = ctx
        self.budget = budget
        self._own_store = store is None  # threads share the run's store (it is thread-safe)
        self.store = store if store is not None else TranscriptStore(ctx.db_url)
        self.setup: EpisodeSetup | None = None

    def _parts(self) -> EpisodeSetup:
        if self.setup is None:
            setup = make_setup(
                self.ctx.config, templates=self.ctx.templates, api_key=self.ctx.api_key, cache=self.store
            )
            setup.model = _BudgetedPlayer(as_participant(setup.model, setup.reader), self.budget)
            self.setup = setup
        return self.setup

    def _drop_parts(self) -> None:
        if self.setup is not None:
            try:
                self.setup.backend.close()
            except Exception:  # a crashed simulator may fail to close; it is discarded either way
                log.debug("closing a failed backend raised", exc_info=True)
            self.setup = None

    def close(self) -> None:
        self._drop_parts()
        if self._own_store:
            self.store.close()

    def play(self, planned: PlannedEpisode) -> EpisodeResult:
        """Play ``planned``; relaunch it (up to ``max_attempts`` in all) after a model or env error, unless
        the model's error would only recur (``EpisodeResult.relaunchable``: context window, bad request)."""
        config = self.ctx.config
        attempt = planned.first_attempt
        while True:
            result = self._play_once(planned, attempt)
            retry = (
                result.end_reason in RELAUNCH
                and result.relaunchable
                and attempt + 1 - planned.first_attempt < config.max_attempts
                and self.budget.stop_reason() is None
            )
            if not retry:
                return result
            log.warning(
                "%s trial %d: %s on attempt %d; relaunching",
                planned.task,
                planned.trial,
                result.end_reason.value,
                attempt,
            )
            if result.end_reason is EndReason.ENV_ERROR:
                self._drop_parts()  # a fresh simulator for the relaunch
            attempt += 1

    def _play_once(self, planned: PlannedEpisode, attempt: int) -> EpisodeResult:
        episode_id = episode_id_for(self.ctx.run_id, planned.task, planned.trial, planned.seed, attempt)
        rule = self.ctx.config.pass_rule
        try:
            self.store.start_episode(
                self.ctx.run_id,
                planned.task,
                planned.seed,
                trial=planned.trial,
                attempt=attempt,
                episode_id=episode_id,
            )
        except StorageError as exc:
            log.info("episode %s (%s) not started: %s", episode_id, planned.task, exc)
            return _ended(episode_id, planned, EndReason.STORAGE_ERROR, rule, error=str(exc))
        try:
            setup = self._parts()
            result = run_episode(
                setup,
                planned.task,
                planned.seed,
                sink=self.store,
                episode_id=episode_id,
                should_stop=self.budget.stop_reason,
            )
        except StorageError as exc:  # e.g. the response cache could not be written
            log.info("episode %s (%s): %s", episode_id, planned.task, exc)
            result = _ended(episode_id, planned, EndReason.STORAGE_ERROR, rule, error=str(exc))
        except KeyboardInterrupt:
            rule = self.ctx.config.pass_rule
            self.store.finish_episode(episode_id, _ended(episode_id, planned, EndReason.CANCELLED, rule))
            raise
        except Exception as exc:  # building parts or resetting the env failed: record it, never lose it
            log.exception("episode %s (%s) failed outside the turn loop", episode_id, planned.task)
            result = _ended(episode_id, planned, EndReason.ENV_ERROR, self.ctx.config.pass_rule)
            self._drop_parts()
            try:
                self.store.finish_episode(episode_id, result, error=f"{type(exc).__name__}: {exc}")
            except StorageError as store_exc:
                log.info("episode %s (%s) not closed: %s", episode_id, planned.task, store_exc)
                return _ended(episode_id, planned, EndReason.STORAGE_ERROR, rule, error=str(store_exc))
            return result
        result.trial = planned.trial
        result.metrics = {**result.metrics, "attempt": attempt} if attempt else result.metrics
        try:
            self.store.finish_episode(episode_id, result, error=result.error)
        except StorageError as exc:  # the row stays "running" until its writer is gone: --resume replays it
            log.info("episode %s (%s) not closed: %s", episode_id, planned.task, exc)
            if result.end_reason is not EndReason.STORAGE_ERROR:
                result.end_reason, result.error = EndReason.STORAGE_ERROR, str(exc)
                result.success, result.metrics = judge_metrics(
                    rule, EndReason.STORAGE_ERROR, False, result.metrics
                )
        return result


def _ended(
    episode_id: str, planned: PlannedEpisode, reason: EndReason, rule: str, error: str | None = None
) -> EpisodeResult:
    return ended_unjudged(
        episode_id, planned.task, planned.seed, reason, rule, trial=planned.trial, error=error
    )


def ended_unjudged(
    episode_id: str,
    task: str,
    seed: int,
    reason: EndReason,
    rule: str,
    *,
    trial: int = 0,
    error: str | None = None,
) -> EpisodeResult:
    """The result of an episode that ended before its loop could judge it, judged by the run's rule
    (the runner, `agentkit play` and the Inspect solver all record such an episode this way)."""
    success, metrics = judge_metrics(rule, reason, False, {})
    return EpisodeResult(
        episode_id=episode_id,
        task=task,
        seed=seed,
        success=success,
        reward=0.0,
        end_reason=reason,
        scripts=0,
        turns=0,
        trial=trial,
        metrics=metrics,
        error=error,
    )


# --- thread and process pools share one entry point -------------------------------------------

_local = threading.local()
_process_ctx: tuple[WorkerContext, RunBudget] | None = None


def thread_worker(
    ctx: WorkerContext,
    budget: RunBudget,
    store: TranscriptStore,
    planned: PlannedEpisode,
    registry: list[Worker],
    lock: threading.Lock,
) -> EpisodeResult:
    """Run in a pool thread: reuse this thread's Worker (created on first use)."""
    worker = getattr(_local, "worker", None)
    if worker is None or worker.ctx is not ctx:
        worker = Worker(ctx, budget, store)
        _local.worker = worker
        with lock:
            registry.append(worker)
    return worker.play(planned)


def process_init(ctx: WorkerContext, stop_cell: Any) -> None:
    """Initializer of a worker process: its budget only listens to the parent's stop flag."""
    global _process_ctx
    import signal

    # Ctrl-C goes to the parent, which sets the stop flag; workers end their episode cleanly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (tied to the parent's life by agentkit.runs.worker_guard)
    config = ctx.config.model_copy(
        update={"run_max_cost_usd": None, "run_max_tokens": None, "run_max_wall_s": None}
    )
    _process_ctx = (ctx, RunBudget(config, flag=StopFlag(stop_cell)))


def process_worker(planned: PlannedEpisode) -> EpisodeResult:
    assert _process_ctx is not None, "process_init did not run"
    worker = getattr(_local, "worker", None)
    if worker is None:
        worker = _local.worker = Worker(*_process_ctx)
    return worker.play(planned)


def result_of_stored(info: Any) -> EpisodeResult:
    """An EpisodeResult rebuilt from a stored episode (the summary of a resumed run; a Ray task lost after it had finished)."""
    return EpisodeResult(
        episode_id=info.id,
        task=info.task,
        seed=info.seed,
        success=bool(info.success),
        reward=info.reward or 0.0,
        end_reason=EndReason(info.end_reason) if info.end_reason else EndReason.CANCELLED,
        scripts=info.scripts or 0,
        turns=info.turns or 0,
        usage=Usage(info.input_tokens or 0, info.output_tokens or 0, info.cost_usd or 0.0),
        trial=info.trial,
        metrics=dict(info.metrics or {}),
    )
