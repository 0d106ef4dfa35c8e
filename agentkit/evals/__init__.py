"""Evaluation protocols: for an env that has one, which episodes a run plays and how they are scored.

Why a package of its own: an evaluation reads the run configuration and scores finished runs (the
gridworld's catalogue plan and ONS leaderboard), which the backends in envs/ may not know about
(docs/architecture.md, "The layers"). ``get_evaluation(env)`` is the one place that maps an env name to its
protocol, so ``agentkit eval`` and experiment files name no backend; each protocol has the typed
face ``Evaluation``. Protocols are imported lazily, on first use.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

if TYPE_CHECKING:
    from agentkit.config import RunConfig

# Env name -> "module:class" of its evaluation protocol.
_EVALUATIONS: dict[str, str] = {
    "gridworld": "agentkit.evals.gridworld.evaluation:GridworldEvaluation",
    # CausalWorld's evaluation protocols of a task (`agentkit eval causalworld --task T`)
    "trifinger": "agentkit.evals.trifinger.evaluation:CausalWorldEvaluation",
}


class Evaluation(Protocol):
    """What ``agentkit eval`` and experiment files ask of an env's evaluation protocol."""

    # The pydantic model of the protocol's options (an experiment file's ``catalogue:`` block).
    options_model: type[BaseModel]
    # What to give instead of --trials and --tasks, which a protocol's own plan replaces.
    episodes_hint: str
    tasks_hint: str

    @staticmethod
    def configure(config: RunConfig, options: Any) -> RunConfig:
        """The run's config with the protocol's plan of (task, seed) episodes and prompt settings."""
        ...

    @staticmethod
    def score(
        episodes: list[dict[str, Any]], config: RunConfig, options: Any, figure: Path | None = None
    ) -> dict[str, Any]:
        """The finished episodes' scores (a leaderboard), with a figure written to ``figure`` when given."""
        ...

    @staticmethod
    def check(config: RunConfig) -> None:
        """A ValueError (one line naming the flag) when the command line undid what the protocol set."""
        ...

    @staticmethod
    def summary(board: dict[str, Any]) -> list[Any]:
        """What the console prints of ``score``'s board: lines or rich renderables."""
        ...


def get_evaluation(name: str) -> type[Evaluation] | None:
    """The evaluation protocol of env ``name`` (see agentkit/evals/gridworld/), or None when it has none."""
    target = _EVALUATIONS.get(name)
    if target is None:
        return None
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def require_evaluation(name: str) -> type[Evaluation]:
    """The evaluation protocol of env ``name``, for a caller that knows it has one (a ValueError if not)."""
    evaluation = get_evaluation(name)
    if evaluation is None:
        raise ValueError(f"env {name!r} has no evaluation protocol")
    return evaluation


__all__ = ["Evaluation", "get_evaluation", "require_evaluation"]
