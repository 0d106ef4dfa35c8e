"""One episode's CausalWorld fractional-success figures, from its per-control-step series.

Why: CausalWorld's evaluation (``causal_world/evaluation/evaluation.py``, rr-learning/CausalWorld,
MIT) scores a policy with three metrics (``causal_world/metrics/``), each the mean over a
protocol's episodes of one per-episode figure read from the ``info['fractional_success']`` the
environment reports after every 40 ms control step. Those three figures are all the metrics ever
need, so the backend stores them per episode (four numbers) instead of the whole series (250
numbers for a pushing episode, 500 for stacking2), and the evaluation averages them per protocol
(``agentkit.evals.causalworld.metrics``). The per-episode figures, as the metric classes compute
them:

* ``last``: ``mean_last_fractional_success.py``, the last step's value (``infos[-1]``);
* ``full_integrated``: ``mean_full_integrated_fractional_success.py``, the sum over every step
  divided by the number of steps: the mean of the series;
* ``last_integrated``: ``mean_last_integrated_fractional_success.py``, documented as "the last 20",
  sums ``infos[-index]`` for ``index in range(20)``: index 0 is the *first* step, so the window is
  the first step plus the last 19, divided by 20. Reproduced as written, because published numbers
  were computed that way. A series shorter than the window (which CausalWorld's episodes never are;
  an agentkit episode ended early on success can be) gets the mean of the whole series.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: mean_last_integrated_fractional_success.py: ``for index in range(20)`` ... ``/ 20``.
LAST_INTEGRATED_WINDOW = 20


@dataclass(frozen=True)
class EpisodeFractionalSuccess:
    """The three per-episode figures CausalWorld's metrics average, and the steps they were read from."""

    last: float
    full_integrated: float
    last_integrated: float
    control_steps: int

    def to_metrics(self) -> dict[str, float | int]:
        """The episode metrics' keys, named as CausalWorld names its metrics (without ``mean_``)."""
        return {
            "last_fractional_success": round(self.last, 4),
            "full_integrated_fractional_success": round(self.full_integrated, 4),
            "last_integrated_fractional_success": round(self.last_integrated, 4),
            "control_steps": self.control_steps,
        }


def episode_fractional_success(series: Sequence[float]) -> EpisodeFractionalSuccess | None:
    """The figures of one episode's fractional-success series (one value per control step), or
    None for an episode that ended before its first control step."""
    values = [float(v) for v in series]
    if not values:
        return None
    steps = len(values)
    if steps >= LAST_INTEGRATED_WINDOW:
        window = [values[-index] for index in range(LAST_INTEGRATED_WINDOW)]  # index 0: the first step
        last_integrated = sum(window) / LAST_INTEGRATED_WINDOW
    else:
        last_integrated = sum(values) / steps
    return EpisodeFractionalSuccess(
        last=values[-1],
        full_integrated=sum(values) / steps,
        last_integrated=last_integrated,
        control_steps=steps,
    )
