"""Oracle-normalized score (ONS) with bootstrap confidence intervals, for any backend.

One definition, used everywhere:

* For one (task, difficulty) pair, played on seeds s_1..s_n by the agent, by the oracle and by a
  uniform random policy, each episode scores ``metric`` (the episode reward, or 1/0 success).
  ``ONS = (mean_agent - mean_random) / (mean_oracle - mean_random)``: 1 is the oracle, 0 is chance,
  above 1 beats the oracle, below 0 is worse than chance. The means are over the same seeds.
  A pair whose oracle does not beat random (denominator <= 1e-9) has no ONS and is reported so.
* A category's ONS is the mean of its pairs' ONS; the overall ONS is the mean of the category
  ONS values (so a category with many tasks does not outweigh one with few).
* 95% confidence intervals come from a paired bootstrap over episodes: each replicate resamples,
  within every pair, seeds with replacement (agent, oracle and random keep their shared seeds),
  recomputes every pair, category and overall ONS, and the interval is the 2.5th-97.5th
  percentile of the replicates. The bootstrap RNG is seeded, so the same inputs give the same CI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

EPS = 1e-9


@dataclass(frozen=True)
class PairScores:
    """Per-seed scores of one (task, difficulty) pair, aligned: index i is the same seed for all three."""

    task: str
    category: str
    seeds: tuple[int, ...]
    agent: tuple[float, ...]
    oracle: tuple[float, ...]
    random: tuple[float, ...]

    def __post_init__(self) -> None:
        n = len(self.seeds)
        if n == 0 or not (len(self.agent) == len(self.oracle) == len(self.random) == n):
            raise ValueError(f"{self.task}: agent, oracle and random need one score per seed ({n} seeds)")


def ons(agent: float, oracle: float, random: float) -> float | None:
    """(agent - random) / (oracle - random), or None when the oracle does not beat random."""
    span = oracle - random
    if span <= EPS:
        return None
    return (agent - random) / span


def _pair_ons_matrix(pair: PairScores, picks: np.ndarray) -> np.ndarray:
    """ONS of ``pair`` for each row of seed indices in ``picks`` (NaN where undefined)."""
    a = np.asarray(pair.agent)[picks].mean(axis=-1)
    o = np.asarray(pair.oracle)[picks].mean(axis=-1)
    r = np.asarray(pair.random)[picks].mean(axis=-1)
    span = o - r
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(span > EPS, (a - r) / np.where(span > EPS, span, 1.0), np.nan)


def _ci(values: np.ndarray) -> list[float] | None:
    values = values[~np.isnan(values)]
    if values.size == 0:
        return None
    low, high = np.percentile(values, [2.5, 97.5])
    return [float(low), float(high)]


def _nanmean_rows(columns: list[np.ndarray]) -> np.ndarray:
    stacked = np.vstack(columns)
    valid = ~np.isnan(stacked)
    counts = valid.sum(axis=0)
    sums = np.where(valid, stacked, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def aggregate(pairs: Sequence[PairScores], n_boot: int = 2000, rng_seed: int = 0) -> dict:
    """Pair, category and overall ONS with 95% paired-bootstrap CIs (see the module docstring)."""
    if not pairs:
        raise ValueError("no (task, difficulty) pairs to score")
    rng = np.random.default_rng(rng_seed)
    tasks: dict[str, dict] = {}
    boot_by_task: dict[str, np.ndarray] = {}
    point_by_task: dict[str, float] = {}
    for pair in pairs:
        n = len(pair.seeds)
        point = ons(float(np.mean(pair.agent)), float(np.mean(pair.oracle)), float(np.mean(pair.random)))
        boot = _pair_ons_matrix(pair, rng.integers(0, n, size=(n_boot, n)))
        boot_by_task[pair.task] = boot
        point_by_task[pair.task] = np.nan if point is None else point
        tasks[pair.task] = {
            "category": pair.category,
            "ons": point,
            "ci": _ci(boot) if point is not None else None,
            "agent": float(np.mean(pair.agent)),
            "oracle": float(np.mean(pair.oracle)),
            "random": float(np.mean(pair.random)),
            "episodes": n,
        }
    categories: dict[str, dict] = {}
    cat_boot: dict[str, np.ndarray] = {}
    cat_point: dict[str, float] = {}
    for category in sorted({p.category for p in pairs}):
        members = [p.task for p in pairs if p.category == category]
        point = _nanmean_rows([np.array([point_by_task[t]]) for t in members])[0]
        boot = _nanmean_rows([boot_by_task[t] for t in members])
        cat_boot[category], cat_point[category] = boot, point
        categories[category] = {
            "ons": None if np.isnan(point) else float(point),
            "ci": None if np.isnan(point) else _ci(boot),
            "tasks": members,
            "undefined_tasks": [t for t in members if np.isnan(point_by_task[t])],
        }
    overall = _nanmean_rows([np.array([v]) for v in cat_point.values()])[0]
    overall_boot = _nanmean_rows(list(cat_boot.values()))
    return {
        "overall_ons": None if np.isnan(overall) else float(overall),
        "overall_ci": None if np.isnan(overall) else _ci(overall_boot),
        "categories": categories,
        "tasks": tasks,
    }


def field_of(result: object, name: str) -> Any:
    """A field of an episode result given as a mapping or as an object with attributes (of whatever
    type the result holds: the caller converts it)."""
    if isinstance(result, Mapping):
        if name not in result:
            raise ValueError(f"episode result lacks {name!r}: {dict(result)!r}")
        return result[name]
    if not hasattr(result, name):
        raise ValueError(f"episode result lacks {name!r}: {result!r}")
    return getattr(result, name)
