"""Pass outcomes of a stored run, per Testbed task, read from the transcript store.

Why a module of its own: which episodes count is a decision worth stating once. An episode counts
when it finished with a verdict under its run's pass rule (``agentkit.pass_rule.stored_verdict``:
the backend's ``pass`` metric, from the arena's ``episode_metrics`` or the Unity connector's; a
model or environment error is never a pass under ``aai``, and has no verdict under ``llm-aai``;
an interrupted episode has none under either). Each trial of a task is one (participant x task)
pair. When a (task, trial, seed) was relaunched after a crash, only its latest attempt counts, as
everywhere else in the store. Episodes still running, left unfinished, or without a verdict are
not counted, and are reported so that a half-finished run is not mistaken for a complete one.
The tutorial of a person's sitting (``agentkit.tutorial_episode``) is practice and never counts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from agentkit.pass_rule import PassRule, rule_of, stored_verdict
from agentkit.reports.proportions import Proportion
from agentkit.reports.task_ids import canonical_task_id
from agentkit.runs.error_rates import ENV_ERROR, MODEL_ERROR, ErrorsApart
from agentkit.transcripts import TranscriptReader
from agentkit.transcripts.records import EpisodeInfo
from agentkit.tutorial_episode import is_tutorial

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
    pass_rule: PassRule | None = None  # the rule the run was judged by; None: stored before runs recorded one
    not_judged: int = 0  # finished episodes without a verdict (interrupted; broken, under llm-aai)
    name: str | None = None  # the run's --name, stored in its config
    # task -> end reason -> counted episodes a model or environment error ended (all fails): the
    # report states the rate without them beside the headline (agentkit.runs.error_rates)
    errors_by_task: dict[str, dict[str, int]] = field(default_factory=dict)

    def errors_apart(self, tasks: list[str]) -> ErrorsApart:
        """The run's rate over ``tasks`` with its errored episodes counted apart."""
        judged = sum(self.by_task[t].n for t in tasks if t in self.by_task)
        passed = sum(self.by_task[t].passed for t in tasks if t in self.by_task)
        errors = [self.errors_by_task.get(t, {}) for t in tasks]
        return ErrorsApart(
            word="pass",
            judged=judged,
            passed=passed,
            model_errors=sum(e.get(MODEL_ERROR, 0) for e in errors),
            env_errors=sum(e.get(ENV_ERROR, 0) for e in errors),
        )

    @property
    def label(self) -> str:
        """The run's name where it was given one (``--name``), else its id and model."""
        return self.name or f"{self.run_id} ({self.model})"


def _latest_attempts(episodes: list[EpisodeInfo]) -> list[EpisodeInfo]:
    latest: dict[tuple[str, int, int], EpisodeInfo] = {}
    for episode in episodes:
        key = (episode.task, episode.trial, episode.seed)
        if key not in latest or episode.attempt >= latest[key].attempt:
            latest[key] = episode
    return list(latest.values())


def read_run(store: TranscriptReader, run_id: str) -> RunResults:
    """The run's pass counts per canonical task id; RunResultsError for a run that is not Animal-AI."""
    try:
        run = store.get_run(run_id)
    except KeyError:
        raise RunResultsError(f"no run {run_id!r} in the transcript store") from None
    rule = rule_of(run.config)
    counts: dict[str, Proportion] = {}
    errors: dict[str, dict[str, int]] = {}
    not_counted = not_judged = 0
    counted: list[str] = []
    for episode in _latest_attempts(store.list_episodes(run_id=run_id)):
        if is_tutorial(run.config, episode.task, episode.trial):
            continue
        if episode.status != "finished":
            not_counted += 1
            continue
        try:
            verdict = stored_verdict(episode.end_reason, episode.metrics, rule)
        except KeyError:
            raise RunResultsError(
                f"run {run_id}: episode {episode.id} ({episode.task}) has no 'pass' metric; "
                f"only Animal-AI runs (env {run.env!r}?) can be compared with these baselines"
            ) from None
        try:
            task = canonical_task_id(episode.task)
        except ValueError as exc:
            raise RunResultsError(f"run {run_id}: episode {episode.id}: {exc}") from None
        if verdict is None:
            not_judged += 1
            continue
        counts[task] = counts.get(task, Proportion(0, 0)) + Proportion(int(verdict), 1)
        if episode.end_reason in (MODEL_ERROR, ENV_ERROR):
            per_task = errors.setdefault(task, {})
            per_task[episode.end_reason] = per_task.get(episode.end_reason, 0) + 1
        counted.append(episode.id)
    if not_counted:
        log.warning("run %s: %d episode(s) running or unfinished are not counted", run_id, not_counted)
    if not_judged:
        log.warning(
            "run %s: %d episode(s) without a verdict (interrupted, or broken under the llm-aai rule) are "
            "not counted; `agentkit eval --resume %s` plays them again",
            run_id,
            not_judged,
            run_id,
        )
    if rule is None:
        log.warning(
            "run %s was stored before runs recorded a pass rule: its episodes stopped by a limit were judged "
            "on the reward so far, not on the reward after their clock ran out",
            run_id,
        )
    name = (run.config or {}).get("name")
    return RunResults(
        run_id=run_id,
        model=run.model,
        env=run.env,
        by_task=dict(sorted(counts.items())),
        not_counted=not_counted,
        episodes=counted,
        pass_rule=rule,
        not_judged=not_judged,
        name=name if isinstance(name, str) and name.strip() else None,
        errors_by_task=errors,
    )
