"""CausalWorld's fractional success at every control step of an episode, kept compactly.

Why: CausalWorld's evaluation metrics (``causal_world/metrics/``) read ``info['fractional_success']``
of every step of an episode: the last one (``mean_last_fractional_success``), the mean over all
steps (``mean_full_integrated_fractional_success``) and over the last 20
(``mean_last_integrated_fractional_success``). An agentkit episode stores its metrics, not a
gym info per step, so the backend records the value at each control step here and stores in
``episode_metrics`` the three figures its metrics average (``fractional_success_series``) and the
step, not the series itself (a 10-s episode at 12 ms is 834 numbers; 2,400 of them per evaluation).

The step is the driver's: 12 ms while a CausalWorld actor runs (its control step, as its own
evaluation steps it), otherwise the world's 40-ms control step (``world.SKIP_FRAME``) under a
script. An episode has one driver (a model's answers cannot start a controller), so one step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DECIMALS = 4


@dataclass
class SuccessSeries:
    """Values recorded at one control step length; ``step_ms`` is set by the first record."""

    step_ms: int | None = None
    values: list[float] = field(default_factory=list)

    def record(self, value: float, step_ms: int) -> None:
        if self.step_ms is None:
            self.step_ms = step_ms
        self.values.append(round(float(value), DECIMALS))

    def clear(self) -> None:
        self.step_ms, self.values = None, []

    def to_json(self) -> dict[str, Any] | None:
        return {"step_ms": self.step_ms, "values": list(self.values)} if self.values else None
