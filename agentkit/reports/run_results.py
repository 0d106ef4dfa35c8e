"""Pass outcomes of a stored run, per Testbed task, read from the transcript store.

Why a module of its own: which episodes count is a decision worth stating once. An episode counts
when it finished and its backend recorded a ``pass`` metric (the arena's ``episode_metrics``; the
Unity connector uses the same key). Each trial of a task is one (participant x task) pair. When a
(task, trial, seed) was relaunched after a crash, only its latest attempt counts, as everywhere
else in the store. Episodes still running or left unfinished are not counted, and are reported so
that a half-finished run is not mistaken for a complete one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from agentkit.reports.proportions import Proportion
from agentkit.reports.task_ids import canonical_task_id
from agentkit.transcripts import TranscriptStore
from agentkit.transcripts.store import EpisodeInfo

log = logging.getLogger(__name__)


class RunResultsError(ValueError):
    """A run cannot be scored against the Testbed baselines."""


@dataclass
class RunResults:
    """One run's outcomes: per task, passes over finished trials."""

    run_id: str
    model: str
    env: str
    by_task: dict[str, Proportion]
    not_counted: int = 0  # episodes running or unfinished
    episodes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.run_id} ({self.model})"


def _latest_attempts(episodes: list[EpisodeInfo]) -> list[EpisodeInfo]:
    latest: dict[tuple[str, int, int], EpisodeInfo] = {}
    for episode in episodes:
        key = (episode.task, episode.trial, episode.seed)
        if key not in latest or episode.attempt >= latest[key].attempt:
            latest[key] = episode
    return list(latest.values())


def read_run(store: TranscriptStore, run_id: str) -> RunResults:
    """The run's pass counts per canonical task id; RunResultsError for a run that is not Animal-AI."""
    try:
        run = store.get_run(run_id)
    except KeyError:
        raise RunResultsError(f"no run {run_id!r} in the transcript store") from None
    counts: dict[str, Proportion] = {}
    not_counted = 0
    counted: list[str] = []
    for episode in _latest_attempts(store.list_episodes(run_id=run_id)):
        if episode.status != "finished":
            not_counted += 1
            continue
        if "pass" not in (episode.metrics or {}):
            raise RunResultsError(f"run {run_id}: episode {episode.id} ({episode.task}) has no 'pass' metric; "
                                  f"only Animal-AI runs (env {run.env!r}?) can be compared with these baselines")
        try:
            task = canonical_task_id(episode.task)
        except ValueError as exc:
            raise RunResultsError(f"run {run_id}: episode {episode.id}: {exc}") from None
        counts[task] = counts.get(task, Proportion(0, 0)) + Proportion(int(bool(episode.metrics["pass"])), 1)
        counted.append(episode.id)
    if not_counted:
        log.warning("run %s: %d episode(s) running or unfinished are not counted", run_id, not_counted)
    return RunResults(run_id=run_id, model=run.model, env=run.env, by_task=dict(sorted(counts.items())),
                      not_counted=not_counted, episodes=counted)
