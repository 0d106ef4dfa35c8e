"""Run a configured set of episodes into the transcript store, with a rich progress bar on stderr."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from agentkit import __version__
from agentkit.config import RunConfig
from agentkit.loop import run_episode
from agentkit.records import EndReason, EpisodeResult
from agentkit.setup_episode import make_setup
from agentkit.transcripts import TranscriptStore

log = logging.getLogger(__name__)


@dataclass
class RunSummary:
    run_id: str
    config: RunConfig
    episodes: list[EpisodeResult] = field(default_factory=list)

    @property
    def success_rate(self) -> float:
        return sum(e.success for e in self.episodes) / len(self.episodes) if self.episodes else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "env": self.config.env,
            "tasks": self.config.tasks,
            "model": self.config.model,
            "episodes": [e.to_json() for e in self.episodes],
            "success_rate": self.success_rate,
        }


def execute_run(
    config: RunConfig,
    store: TranscriptStore,
    api_key: str | None = None,
    on_episode: Callable[[EpisodeResult], None] | None = None,
    show_progress: bool = True,
) -> RunSummary:
    """Create the run, play its episodes one after another, store every turn as it happens."""
    setup = make_setup(config, api_key=api_key)
    run_id = store.create_run(
        env=config.env,
        tasks=config.tasks,
        model=config.model,
        config={**config.model_dump(), "agentkit_version": __version__},
        templates=setup.renderer.sources,
    )
    summary = RunSummary(run_id=run_id, config=config)
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=Console(stderr=True), disable=not show_progress, transient=True,
    )
    run_status = "unfinished"
    try:
        with progress:
            plan = config.episode_plan()
            bar = progress.add_task(f"{config.env} ({config.model})", total=len(plan))
            for task, trial, seed in plan:
                progress.update(bar, description=f"{task} ({config.model})")
                episode_id = store.start_episode(run_id, task, seed, trial=trial)
                try:
                    result = run_episode(setup, task, seed, sink=store, episode_id=episode_id)
                except KeyboardInterrupt:
                    store.finish_episode(episode_id, _cancelled(episode_id, task, seed))
                    raise
                result.trial = trial
                store.finish_episode(episode_id, result)
                summary.episodes.append(result)
                if on_episode:
                    on_episode(result)
                progress.advance(bar)
        run_status = "finished"
    finally:
        store.finish_run(run_id, run_status)
        setup.backend.close()
    return summary


def _cancelled(episode_id: str, task: str, seed: int) -> EpisodeResult:
    return EpisodeResult(episode_id=episode_id, task=task, seed=seed, success=False, reward=0.0,
                         end_reason=EndReason.CANCELLED, scripts=0, turns=0)
