"""A 95% interval for a pass proportion whose pairs come in clusters that are not independent.

Why: the Wilson interval (``proportions``) treats every (participant x task) pair as an independent
trial. They are not. A strong child passes many tasks, so the 236 pairs of 59 children on one level
carry the information of far fewer independent draws; and the three trials a model plays of one task
share that task's difficulty, so 12 trials of 4 tasks are closer to 4 observations than to 12. The
report therefore gives a second interval beside Wilson's, clustered by participant for the
children's and the Olympics entrants' columns (per-participant rows are in the shipped data) and by
task for runs (their trials of one task are the cluster).

Which method, and why: a cluster-robust (CR1, "sandwich") interval for the ratio estimator
p = sum(passed_g) / sum(pairs_g) over clusters g, with the t quantile on G - 1 degrees of freedom
(Cameron & Miller 2015, "A Practitioner's Guide to Cluster-Robust Inference", J. Human Resources
50(2), sections on few clusters): se^2 = G / (G - 1) * sum((passed_g - p * pairs_g)^2) / N^2. It
was chosen over a cluster bootstrap because it is exact to compute and needs no seed (the same data
gives the same report on every machine), and because a percentile bootstrap is known to be too
narrow with few clusters, the usual case here (a level of the children's 40 tasks has 4 tasks, so
a run's cell has 4 clusters), where the t(G - 1) quantile widens the interval as it should.

Limits, stated in the report: with one cluster there is no interval (None); when every cluster has
the same proportion (all pairs passed, or none) the clustered spread is zero and the interval is
the point p, so at 0 and 1 the Wilson interval is the one to read.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from agentkit.reports.proportions import Z_95

# Two-sided 95% quantiles of Student's t for 1-30 degrees of freedom (any statistics table, e.g.
# NIST/SEMATECH e-Handbook of Statistical Methods, table 1.3.6.7.2); beyond 30 an expansion is used.
_T_975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)

CLUSTER_METHOD = (
    "cluster-robust (CR1) interval, 95%, t on clusters - 1 degrees of freedom: clustered by "
    "participant for children and Olympics entrants, by task for runs (trials of one task are not "
    "independent); a single point where every cluster agrees (read Wilson's there)"
)


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df <= len(_T_975):
        return _T_975[df - 1]
    z = Z_95  # the Cornish-Fisher expansion of t about the normal quantile, good to 3 decimals here
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def cluster_robust_interval(clusters: Iterable[tuple[int, int]]) -> tuple[float, float] | None:
    """The 95% interval of sum(passed) / sum(pairs) over ``(passed, pairs)`` clusters.

    Clusters without pairs are ignored; None with fewer than two clusters (no spread to measure).
    """
    kept = [(passed, pairs) for passed, pairs in clusters if pairs > 0]
    for passed, pairs in kept:
        if not 0 <= passed <= pairs:
            raise ValueError(f"need 0 <= passed <= pairs, got passed={passed}, pairs={pairs}")
    g = len(kept)
    if g < 2:
        return None
    total = sum(pairs for _, pairs in kept)
    p = sum(passed for passed, _ in kept) / total
    spread = sum((passed - p * pairs) ** 2 for passed, pairs in kept)
    se = math.sqrt(g / (g - 1) * spread) / total
    half = t_quantile_975(g - 1) * se
    return max(0.0, p - half), min(1.0, p + half)
