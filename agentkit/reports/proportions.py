"""A pass proportion over (participant x task) pairs, with its 95% Wilson score interval.

Why Wilson and not a bootstrap: it is exact to compute, needs no random seed (the same data gives
the same report every time), and behaves well at 0 and 1, where a reference agent or a hard level
often sits. It treats the pairs as independent trials, as the per-level proportions of Voudouris et
al. (2022) and the LLM-AAI paper do; correlation within a participant (a strong child passes many
tasks) is not modelled, so the interval is, if anything, too narrow for the human columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

Z_95 = 1.959963984540054  # two-sided 95% quantile of the standard normal


def wilson_interval(passed: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of ``passed`` successes in ``n`` trials ((0, 1) for no trial)."""
    if n < 0 or passed < 0 or passed > n:
        raise ValueError(f"need 0 <= passed <= n, got passed={passed}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = passed / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # Exact at the edges and never excluding p: rounding leaves centre - half at 2.8e-17 for 0/12,
    # which put the interval above p and a negative error bar in the figure.
    low = 0.0 if passed == 0 else min(p, max(0.0, centre - half))
    high = 1.0 if passed == n else max(p, min(1.0, centre + half))
    return low, high


@dataclass(frozen=True)
class Proportion:
    """``passed`` of ``n`` (participant x task) pairs; ``p`` is None when there is no pair."""

    passed: int
    n: int

    @property
    def p(self) -> float | None:
        return self.passed / self.n if self.n else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        return wilson_interval(self.passed, self.n) if self.n else None

    def __add__(self, other: Proportion) -> Proportion:
        return Proportion(self.passed + other.passed, self.n + other.n)

    def to_json(self) -> dict[str, Any]:
        ci = self.ci95
        return {"p": self.p, "passed": self.passed, "n": self.n, "ci95": list(ci) if ci else None}


EMPTY = Proportion(0, 0)
