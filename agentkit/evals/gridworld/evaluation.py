"""The gridworld's evaluation protocol for `agentkit eval`: which episodes, how shown, how scored.

`agentkit eval` knows no backend by name; it asks the registry for an evaluation of the env and,
when there is one, lets it turn catalogue options (categories, difficulties, seeds per pair,
modality, harness) into the run's explicit (task, seed) plan and prompt settings, and turn the
finished episodes into the leaderboard (ONS per task, category and overall with bootstrap CIs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentkit.config import RunConfig
from agentkit.evals.gridworld.harness import apply_harness
from agentkit.evals.gridworld.leaderboard import (
    gridworld_eval_plan,
    gridworld_leaderboard,
    write_category_figure,
)
from agentkit.evals.gridworld.modalities import apply_modality


class CatalogueOptions(BaseModel):
    """The ``catalogue:`` block of an experiment file (all optional: the whole catalogue)."""

    model_config = ConfigDict(extra="forbid")

    categories: list[str] | None = None
    tasks: list[str] | None = None  # family names or catalogue names
    difficulties: list[str] | None = None
    seeds_per_pair: int = Field(
        5, ge=1, le=10_000
    )  # 55 pairs x 10,000 stays within a run's 1,000,000 episodes
    split: str = "eval"
    modality: str | None = None
    harness: str | None = None
    metric: str = "reward"


class GridworldEvaluation:
    options_model = CatalogueOptions
    episodes_hint = "give --seeds-per-pair: episodes per (task, difficulty)"
    tasks_hint = "narrow it with --categories or --limit"

    @staticmethod
    def apply_modality(config: RunConfig, name: str) -> RunConfig:
        """``config`` showing modality ``name``, for a run of any gridworld task (``agentkit run --modality``)."""
        return apply_modality(config, name)

    @staticmethod
    def configure(config: RunConfig, options: CatalogueOptions) -> RunConfig:
        """The run's config with the catalogue plan, modality and harness applied."""
        plan = gridworld_eval_plan(
            options.categories, options.tasks, options.difficulties, options.seeds_per_pair, options.split
        )
        config = config.model_copy(
            update={
                "plan": plan,
                "tasks": list(dict.fromkeys(t for t, _ in plan)),
                "episodes": 1,
                "evaluation": options.model_dump(),
            }
        )
        if options.modality:
            config = apply_modality(config, options.modality)
        if options.harness:
            config = apply_harness(config, options.harness)
        return RunConfig.model_validate(config.model_dump())

    @staticmethod
    def check(config: RunConfig) -> None:
        """Nothing a run flag sets can undo the catalogue (its harness refuses clashing settings)."""

    @staticmethod
    def summary(board: dict[str, Any]) -> list[Any]:
        """The overall ONS with its CI, then one line per category."""
        lines = [f"  ONS overall {board['overall_ons']:.3f} (95% CI {board['overall_ci']})"]
        for category, row in board["categories"].items():
            lines.append(f"  {category}: ONS {row['ons'] if row['ons'] is None else round(row['ons'], 3)}")
        return lines

    @staticmethod
    def score(
        episodes: list[dict[str, Any]],
        config: RunConfig,
        options: CatalogueOptions,
        figure: Path | None = None,
    ) -> dict[str, Any]:
        board = gridworld_leaderboard(
            episodes,
            model=config.model,
            harness=options.harness or config.memory,
            modality=options.modality or "+".join(config.observer.views),
            metric=options.metric,  # type: ignore[arg-type]
        )
        if figure is not None:
            board["figure"] = str(write_category_figure(board, figure))
        return board
