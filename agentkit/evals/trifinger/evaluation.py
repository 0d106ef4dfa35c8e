"""CausalWorld's evaluation of a task for `agentkit eval causalworld`: which episodes, how scored.

Why a thin layer: CausalWorld's ``EvaluationPipeline`` (``causal_world/evaluation/evaluation.py``,
rr-learning/CausalWorld, MIT) plays a fixed number of episodes under each of a task's evaluation
protocols (``causal_world/benchmark/benchmarks.py``) and averages three metrics per protocol. Here
the protocols are already tasks of the trifinger backend (``pushing@P3``), so the evaluation is an
ordinary run of ``<task>@<Pn>`` for every protocol of the task, ``episodes_per_protocol`` trials
each with seeds ``seed`` .. ``seed + N - 1``, played by any participant (a model, the reference
agent, a gym policy) and stored like any run, so ``--resume``, ``--workers`` and ``--db`` work as
for any run. Two backend options make it CausalWorld's: the ``causalworld`` profile (its episode
lengths and measures) and ``end_on_success`` off (CausalWorld never ends an evaluation episode
early; the metrics read the state at the end of the full episode and integrate over all of it).
The scores are then computed from the stored episodes (``metrics``) and drawn as the paper's bar
chart (``figure``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentkit.config import RunConfig
from agentkit.envs.trifinger.protocols import BENCHMARKS
from agentkit.evals.trifinger.metrics import METRICS, protocol_scores
from agentkit.evals.trifinger.table import protocol_table

#: causal_world/evaluation/protocols/protocol.py ``num_evaluation_episodes_default = 200``.
EPISODES_PER_PROTOCOL = 200
#: The backend options every episode of the evaluation runs with (see the module docstring).
EVALUATION_BACKEND_OPTIONS: dict[str, Any] = {"profile": "causalworld", "end_on_success": False}


def _task_choices() -> str:
    return ", ".join(BENCHMARKS)


class CausalWorldOptions(BaseModel):
    """What an evaluation plays: CausalWorld's ``task`` and the episodes under each of its protocols."""

    model_config = ConfigDict(extra="forbid")

    task: str | None = Field(None, validate_default=True)
    episodes_per_protocol: int = Field(EPISODES_PER_PROTOCOL, ge=1, le=100_000)

    @field_validator("task")
    @classmethod
    def _benchmark_task(cls, value: str | None) -> str:
        if value is None:
            raise ValueError(f"name CausalWorld's task with --task: one of {_task_choices()}")
        if value not in BENCHMARKS:
            raise ValueError(
                f"{value!r} has no CausalWorld evaluation protocols; benchmarks.py lists them for "
                f"{_task_choices()}"
            )
        return value

    @property
    def protocols(self) -> list[str]:
        """The task's protocols, as benchmarks.py lists them (reaching: P0, P5, P12)."""
        assert self.task is not None  # the validator refuses a missing task
        return list(BENCHMARKS[self.task])


class CausalWorldEvaluation:
    options_model = CausalWorldOptions
    episodes_hint = "give --episodes-per-protocol"
    tasks_hint = "give --task, whose protocols are played; --limit N plays the first N"

    @staticmethod
    def configure(config: RunConfig, options: CausalWorldOptions) -> RunConfig:
        """The run's config: every protocol of the task as a task, N trials each, CausalWorld's options."""
        update = {
            "tasks": [f"{options.task}@{name}" for name in options.protocols],
            "episodes": options.episodes_per_protocol,
            "plan": None,
            "evaluation": options.model_dump(),
            "backend_options": {**config.backend_options, **EVALUATION_BACKEND_OPTIONS},
        }
        return RunConfig.model_validate({**config.model_dump(), **update})

    @staticmethod
    def check(config: RunConfig) -> None:
        """A ValueError when a command-line setting undid what makes the run CausalWorld's."""
        for key, value in EVALUATION_BACKEND_OPTIONS.items():
            if config.backend_options.get(key) != value:
                flag = f"--{key.replace('_', '-')}"
                raise ValueError(
                    f"{flag}: CausalWorld's evaluation runs with {key}={value!r} "
                    f"(got {config.backend_options.get(key)!r})"
                )

    @staticmethod
    def score(
        episodes: list[dict[str, Any]],
        config: RunConfig,
        options: CausalWorldOptions,
        figure: Path | None = None,
    ) -> dict[str, Any]:
        """Per protocol, CausalWorld's three metrics (mean and std) over the run's stored episodes."""
        rows = protocol_scores(episodes, options.protocols)
        board: dict[str, Any] = {
            "task": options.task,
            "episodes_per_protocol": options.episodes_per_protocol,
            "first_seed": config.seed,
            "metrics": list(METRICS),
            "protocols": [row.to_json() for row in rows],
        }
        if figure is not None:
            from agentkit.evals.trifinger.figure import write_protocol_chart

            board["figure"] = str(write_protocol_chart(rows, str(options.task), config.model, figure))
        return {"causalworld": board}

    @staticmethod
    def summary(board: dict[str, Any]) -> list[Any]:
        """What the console shows: the bar chart's numbers as a table (and where the figure went)."""
        scores = board["causalworld"]
        shown: list[Any] = [protocol_table(scores)]
        if scores.get("figure"):
            shown.append(f"  figure: {scores['figure']}")
        return shown
