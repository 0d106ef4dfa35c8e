"""Run a configured set of episodes into the transcript store: concurrently, resumably, within budget.

The plan is tasks x trials (or an explicit (task, seed) list). Up to ``max_concurrency``
episodes are in flight: in threads when the model is an API (waiting on the network releases
the GIL, and one process shares one rate limiter), in worker processes when the environment is
what costs CPU (the reference agent, replayed answers). Every episode has a stable id derived
from (run, task, trial, seed, attempt), so ``resume_run_id`` plays only what is missing, and a
killed run never leaves a duplicate behind.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import (
    FIRST_COMPLETED,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from agentkit import __version__
from agentkit.config import RunConfig
from agentkit.control import make_control
from agentkit.models.controller_agent import is_controller_model
from agentkit.outcome_words import outcome_word, verdict
from agentkit.pass_rule import has_verdict
from agentkit.prompts.renderer import resolve_templates
from agentkit.protocols import check_backend, protocol_named
from agentkit.records import EndReason, EpisodeResult, StorageError, Usage
from agentkit.runs import terminal_hold
from agentkit.runs.budget import RunBudget, StopFlag
from agentkit.runs.error_rates import run_errors_apart
from agentkit.runs.freed_memory import release_freed_memory
from agentkit.runs.setup_episode import check_controller, check_tool_templates, make_backend
from agentkit.runs.worker import (
    RERUN_REASONS,
    PlannedEpisode,
    Worker,
    WorkerContext,
    cpu_bound,
    process_init,
    process_worker,
    result_of_stored,
    thread_worker,
)
from agentkit.runs.worker_guard import guarded_init, initializer_args
from agentkit.transcripts import TranscriptStore
from agentkit.transcripts.run_lease import LeaseKeeper

log = logging.getLogger(__name__)

# The settings a resumed run takes from the command that resumes it (the rest stay as stored).
RESUMABLE_SETTINGS = ("max_concurrency", "workers", "executor", "ray_address", "api_base")


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run, with the id of the run it left (unfinished, resumable)."""

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self.run_id = run_id


@dataclass
class RunSummary:
    run_id: str
    config: RunConfig
    episodes: list[EpisodeResult] = field(default_factory=list)
    stopped: EndReason | None = (
        None  # set when a run-wide limit, Ctrl-C or a storage error ended the run early
    )
    error: str | None = None  # the storage error that stopped the run, if one did
    # Why the run stopped early, in one line (a model failing episode after episode), if it did.
    stop_message: str | None = None

    @property
    def judged(self) -> list[EpisodeResult]:
        """The episodes with a verdict (the pass rule leaves interrupted ones, and under ``llm-aai``
        broken ones, without one: they are not counted, and ``--resume`` plays them again)."""
        return [e for e in self.episodes if has_verdict(e.metrics)]

    @property
    def success_rate(self) -> float:
        judged = self.judged
        return sum(e.success for e in judged) / len(judged) if judged else 0.0

    @property
    def passed(self) -> int:
        """Judged episodes whose verdict is a pass (the pass metric, else success: agentkit.outcome_words)."""
        return sum(bool(verdict(e.success, e.metrics)) for e in self.judged)

    @property
    def pass_rate(self) -> float:
        judged = self.judged
        return self.passed / len(judged) if judged else 0.0

    def to_json(self) -> dict[str, Any]:
        word = outcome_word(self.config.env)
        return {
            "run_id": self.run_id,
            "env": self.config.env,
            "tasks": self.config.tasks,
            "model": self.config.model,
            "episodes": [e.to_json() for e in self.episodes],
            "success_rate": self.success_rate,
            "pass_rate": self.pass_rate,
            "outcome": word.word,
            "outcome_meaning": word.meaning,
            "pass_rule": self.config.pass_rule,
            "protocol": self.config.protocol,
            "not_judged": len(self.episodes) - len(self.judged),
            # the rate again with the episodes a model or environment error ended counted apart
            "errors_apart": run_errors_apart(self).to_json(),
            "stopped": self.stopped.value if self.stopped else None,
        }


def _worker_kind(config: RunConfig) -> str:
    if config.workers != "auto":
        return config.workers
    return "processes" if cpu_bound(config.model) and config.max_concurrency > 1 else "threads"


def _check_and_templates(config: RunConfig) -> dict[str, str]:
    """Fail before the run is created if a task is unknown, the templates do not resolve, or the
    reference agent cannot play this backend (e.g. a Unity build, which hides the state it plans on)."""
    backend = make_backend(config)
    try:
        sources = resolve_templates(backend.template_set, config.templates_dir)
        if config.model == "reference":
            backend.reference_policy()  # raises ValueError where there is no reference agent
        if is_controller_model(config.model):
            # e.g. causalworld:pushing_ppo_curr1 on gridworld, or on reaching (another observation)
            check_controller(
                config.model, backend, dict.fromkeys(task for task, _, _ in config.episode_plan())
            )
        control = make_control(config.control, config.observe, config.observe_max_images, backend)
        control.check_templates(sources)
        check_backend(protocol_named(config.protocol), backend)  # e.g. llm-aai on gridworld: one line
        if config.action_format == "tools":
            check_tool_templates(sources)
        for task in dict.fromkeys(task for task, _, _ in config.episode_plan()):
            backend.check_task(task)
        return sources
    finally:
        backend.close()


def _resume_state(store: TranscriptStore, run_id: str) -> tuple[dict[tuple[str, int, int], Any], Usage]:
    """The latest attempt of every (task, trial, seed) already in the run, and what the run spent."""
    store.close_stale()  # episodes of a killed writer become "unfinished"
    latest: dict[tuple[str, int, int], Any] = {}
    spent = Usage()
    for info in store.list_episodes(run_id=run_id):
        key = (info.task, info.trial, info.seed)
        if key not in latest or info.attempt > latest[key].attempt:
            latest[key] = info
        spent.input_tokens += info.input_tokens or 0
        spent.output_tokens += info.output_tokens or 0
        spent.cost_usd += info.cost_usd or 0.0
    return latest, spent


def execute_run(
    config: RunConfig,
    store: TranscriptStore,
    api_key: str | None = None,
    on_episode: Callable[[EpisodeResult], None] | None = None,
    show_progress: bool = True,
    resume_run_id: str | None = None,
) -> RunSummary:
    """Create (or resume) the run and play every planned episode that has no final result yet."""
    # Ray missing, or a store the cluster cannot write: refused in one line before the run exists.
    if config.executor == "ray":
        from agentkit.runs.executors.ray_executor import RaySession

        with RaySession(config, store) as session:
            return _execute(config, store, api_key, on_episode, show_progress, resume_run_id, session)
    return _execute(config, store, api_key, on_episode, show_progress, resume_run_id, None)


def _execute(
    config: RunConfig,
    store: TranscriptStore,
    api_key: str | None,
    on_episode: Callable[[EpisodeResult], None] | None,
    show_progress: bool,
    resume_run_id: str | None,
    session: Any,
) -> RunSummary:
    """``execute_run`` on the local pools (``session`` None) or on a Ray cluster (a RaySession)."""
    config, run_id, templates, lease, latest, spent = _open_run(config, store, resume_run_id)
    done, plan = _plan(config, latest)
    if resume_run_id:
        log.info("resuming run %s: %d episode(s) done, %d to play", run_id, len(done), len(plan))

    kind = _episode_workers(config, store, session)
    stop_cell = _stop_cell(kind, session)
    budget = RunBudget(config, spent=spent, flag=StopFlag(stop_cell))
    ctx = WorkerContext(config=config, db_url=store.url, run_id=run_id, templates=templates, api_key=api_key)
    summary = RunSummary(run_id=run_id, config=config, episodes=list(done))
    progress = _progress_bar(show_progress)
    status = "unfinished"
    keeper = LeaseKeeper(lambda: store.renew_run(run_id, lease), on_lost=budget.cancel)
    try:
        with keeper, progress, terminal_hold.showing(progress):  # a person typing holds the bar still
            bar = progress.add_task(
                f"{config.env} ({config.model}, {config.max_concurrency} at once)",
                total=len(plan) + len(done),
                completed=len(done),
            )
            tally = _Tally(
                summary,
                budget,
                counts_usage=kind in ("processes", "ray"),
                on_episode=on_episode,
                advance=lambda: progress.advance(bar),
            )
            if session is not None:
                session.play(plan, ctx, store, budget, tally.finished)
            else:
                _play_all(plan, ctx, store, budget, kind, stop_cell, tally.finished)
        summary.stopped = budget.flag.get()
        status = "finished" if summary.stopped is None else "stopped"
    except KeyboardInterrupt as exc:
        raise RunInterrupted(run_id) from exc
    finally:
        _close_run(store, summary, lease, status, keeper)
        release_freed_memory()  # the run's freed buffers back to the system (agentkit.runs.freed_memory)
    order = {key: i for i, key in enumerate(config.episode_plan())}
    summary.episodes.sort(key=lambda e: order.get((e.task, e.trial, e.seed), len(order)))
    return summary


def _episode_workers(config: RunConfig, store: TranscriptStore, session: Any) -> str:
    """Where the episodes play: "ray" (a session), "processes" or "threads" (``_worker_kind``)."""
    if session is not None:
        return "ray"
    kind = _worker_kind(config)
    if kind == "processes" and store.is_memory:
        return "threads"  # worker processes cannot see an in-memory database
    return kind


def _stop_cell(kind: str, session: Any) -> Any:
    """The shared cell a stop is written to and every worker reads: a Ray actor (``session``), a
    process-shared int for worker processes, or None (threads share the run's own flag)."""
    if session is not None:
        return session.stop_cell()  # a Ray actor every task reads
    return multiprocessing.get_context("spawn").Value("i", 0) if kind == "processes" else None


def _progress_bar(show_progress: bool) -> Progress:
    """The run's progress bar on stderr (stdout stays for ``--json``), gone once the run ends."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=not show_progress,
        transient=True,
    )


def _close_run(
    store: TranscriptStore, summary: RunSummary, lease: Any, status: str, keeper: LeaseKeeper
) -> None:
    """Mark the run ``status`` and give its lease back, unless another writer took it over; a store
    that cannot write leaves the run "unfinished" and its error in ``summary``."""
    run_id = summary.run_id
    try:
        if not keeper.lost:  # a run taken over by another writer is that writer's to close
            store.finish_run(run_id, status)
            store.release_run(run_id, lease)
    except StorageError as exc:  # the run reads "unfinished" once this process is gone
        log.info("run %s not closed: %s", run_id, exc)
        summary.error = summary.error or str(exc)


def _open_run(
    config: RunConfig, store: TranscriptStore, resume_run_id: str | None
) -> tuple[RunConfig, str, dict[str, str], Any, dict[tuple[str, int, int], Any], Usage]:
    """The run to play, created or (``resume_run_id``) taken over, with its lease: its configuration
    (a resumed run's own, with this command's concurrency, workers, executor and api_base), id, templates, the
    latest record of each planned episode, and what the run has spent so far."""
    if not resume_run_id:
        templates = _check_and_templates(config)
        run_id = store.create_run(
            env=config.env,
            tasks=config.tasks,
            model=config.model,
            config={**config.model_dump(), "agentkit_version": __version__},
            templates=templates,
        )
        return config, run_id, templates, store.take_run(run_id), {}, Usage()
    run = store.get_run(resume_run_id)
    stored = RunConfig.from_stored(run.config)
    from agentkit.leaves.url_redaction import url_to_resume  # the stored api_base lost its credentials

    kept = {name: getattr(config, name) for name in RESUMABLE_SETTINGS}
    kept["api_base"] = url_to_resume(stored.api_base, config.api_base)
    config = stored.model_copy(update=kept)
    lease = store.take_run(resume_run_id)  # one live writer per run: RunBusyError if another writes it
    latest, spent = _resume_state(store, resume_run_id)
    return config, resume_run_id, run.templates, lease, latest, spent


def _plan(
    config: RunConfig, latest: dict[tuple[str, int, int], Any]
) -> tuple[list[EpisodeResult], list[PlannedEpisode]]:
    """The episodes already finished for good (kept as they are), and those to play (again)."""
    done: list[EpisodeResult] = []
    plan: list[PlannedEpisode] = []
    for task, trial, seed in config.episode_plan():
        prior = latest.get((task, trial, seed))
        if prior is not None and prior.status == "finished" and prior.end_reason not in RERUN_REASONS:
            done.append(result_of_stored(prior))
        else:
            plan.append(PlannedEpisode(task, trial, seed, first_attempt=prior.attempt + 1 if prior else 0))
    return done, plan


class _Tally:
    """What happens as each episode ends: it joins the summary, and the run stops after too many model
    errors in a row or when the store cannot write."""

    def __init__(
        self,
        summary: RunSummary,
        budget: RunBudget,
        counts_usage: bool,
        on_episode: Callable[[EpisodeResult], None] | None,
        advance: Callable[[], None],
    ) -> None:
        self.summary, self.budget, self.counts_usage = summary, budget, counts_usage
        self.on_episode, self.advance = on_episode, advance
        self.streak = 0  # episodes in a row that ended in model_error

    def finished(self, result: EpisodeResult) -> None:
        summary, budget = self.summary, self.budget
        summary.episodes.append(result)
        self.streak = self.streak + 1 if result.end_reason is EndReason.MODEL_ERROR else 0
        limit = summary.config.max_consecutive_model_errors
        if limit is not None and self.streak >= limit and budget.stop_reason() is None:
            summary.stop_message = (
                f"{self.streak} episodes in a row ended in model errors (last: {result.error or 'no detail'})"
            )
            budget.stop(EndReason.MODEL_ERROR)
        if result.end_reason is EndReason.STORAGE_ERROR:  # nothing more can be kept: stop the run
            summary.error = summary.error or result.error
            budget.stop(EndReason.STORAGE_ERROR)
        if self.counts_usage:
            budget.add(result.usage)  # workers in other processes cannot add to this budget
        if self.on_episode:
            self.on_episode(result)
        self.advance()


def _play_all(
    plan: list[PlannedEpisode],
    ctx: WorkerContext,
    store: TranscriptStore,
    budget: RunBudget,
    kind: str,
    stop_cell: Any,
    finished: Callable[[EpisodeResult], None],
) -> None:
    """Keep ``max_concurrency`` episodes in flight; stop submitting once the run must stop."""
    if not plan:
        return
    n = min(ctx.config.max_concurrency, len(plan))
    workers: list[Worker] = []
    lock = threading.Lock()
    pool: Executor
    if kind == "processes":
        # The worker's first act is to tie its life to this process (agentkit.runs.worker_guard); its
        # context is unpickled, and the runner imported, only after that.
        pool = ProcessPoolExecutor(
            max_workers=min(n, os.cpu_count() or 1),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=guarded_init,
            initargs=initializer_args(
                f"{process_init.__module__}:{process_init.__name__}", (ctx,), stop_cell
            ),
        )
        submit = lambda p: pool.submit(process_worker, p)
    else:
        pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="episode")
        submit = lambda p: pool.submit(partial(thread_worker, ctx, budget, store, p, workers, lock))
    pending = iter(plan)
    in_flight: set[Future] = set()
    try:
        while True:
            while len(in_flight) < n and budget.stop_reason() is None:
                nxt = next(pending, None)
                if nxt is None:
                    break
                in_flight.add(submit(nxt))
            if not in_flight:
                break
            ready, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in ready:
                finished(future.result())
    except KeyboardInterrupt:
        log.warning("interrupted: ending the episodes in flight")
        budget.cancel()
        for future in in_flight:
            try:
                finished(future.result())
            except Exception:
                log.debug("an episode in flight failed while cancelling", exc_info=True)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for worker in workers:
            worker.close()
