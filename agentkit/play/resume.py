"""Go on with a sitting that a stopped server cut short: ``agentkit play --resume RUN``.

Why: a closed tab pauses the world, but a stopped (or crashed) server ends the episode in play;
the participant should not replay the arenas already done, and the run should stay one run. The
options come back from the run's stored config (participant, condition, mode, world, tasks,
tutorial, frame size); episodes that finished for the participant's own reasons are kept, and the
others (cut by the stop, never finished) are played again as a new attempt, as ``eval --resume``
does for model runs (``agentkit.runs.worker.RERUN_REASONS``). The tutorial keeps the identity it
was stored under (``agentkit.tutorial_episode``), so a sitting stored before the run config recorded
the tutorial's trial (trial 0, prepended to the run's tasks) resumes as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentkit.play.session import EpisodeOutcome, PlayOptions
from agentkit.runs.worker import RERUN_REASONS
from agentkit.transcripts import TranscriptStore
from agentkit.tutorial_episode import TRIAL_KEY


@dataclass
class ResumePoint:
    """Where a stored sitting stands: what is kept, and the next attempt of what is not."""

    run_id: str
    templates: dict[str, str]
    done: dict[int, EpisodeOutcome] = field(default_factory=dict)  # plan index -> kept outcome
    attempts: dict[int, int] = field(default_factory=dict)  # plan index -> the attempt to play next


def resume_point(store: TranscriptStore, run_id: str) -> tuple[PlayOptions, ResumePoint]:
    """The options and the state of the sitting ``run_id``; ValueError (one line) when it is not one."""
    try:
        run = store.get_run(run_id)
    except KeyError:
        raise ValueError(f"--resume: no run {run_id!r} in the transcript store") from None
    config: dict[str, Any] = dict(run.config or {})
    if not run.model.startswith("human:") or "play_mode" not in config:
        raise ValueError(f"--resume {run_id}: a run of model {run.model!r}, not an agentkit play sitting")
    tutorial = config.get("tutorial")
    tasks = list(run.tasks)
    tutorial_trial = config.get(TRIAL_KEY)
    if tutorial and not isinstance(tutorial_trial, int):  # stored before the trial was recorded
        tutorial_trial = 0
        if tasks and tasks[0] == tutorial:
            tasks = tasks[1:]
    size = (config.get("backend_options") or {}).get("render_size")
    options = PlayOptions(
        participant=run.model.split(":", 1)[1],
        tasks=tasks,
        mode=config["play_mode"],
        condition=config.get("condition") or "",
        size=size,
        tutorial=tutorial,
        seed=int(config.get("seed") or 0),
        env=run.env,
        tutorial_trial=tutorial_trial if tutorial else None,
    )
    store.close_stale()  # episodes of a killed server read "unfinished"
    point = ResumePoint(run_id=run_id, templates=dict(run.templates))
    plan = options.plan()
    latest: dict[tuple[str, int, int], Any] = {}
    for episode in store.list_episodes(run_id=run_id):
        key = (episode.task, episode.trial, episode.seed)
        if key not in latest or episode.attempt > latest[key].attempt:
            latest[key] = episode
    for index, key in enumerate(plan):
        last = latest.get(key)
        if last is None:
            continue
        if last.status == "finished" and last.end_reason not in RERUN_REASONS:
            point.done[index] = EpisodeOutcome(
                last.task, last.id, bool(last.success), str(last.end_reason), float(last.reward or 0.0)
            )
        else:
            point.attempts[index] = last.attempt + 1
    return options, point
