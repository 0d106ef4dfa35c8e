"""Gridworld evaluation as plain functions: which episodes to play, and the leaderboard they make.

``gridworld_eval_plan`` lists the (task, seed) episodes of an evaluation (catalogue names and the
hashed seeds of ``seeds``); whoever plays them (``agentkit eval``, a notebook, an RL script) hands
the results, each with ``task``, ``seed``, ``success`` and ``reward``, to ``gridworld_leaderboard``,
which adds the cached oracle and random baselines of the same seeds and computes ONS with
bootstrap CIs (definition in ``agentkit.evals.ons``). ``write_category_figure`` draws the
per-category bars.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from agentkit.envs.gridworld.catalogue import CATALOGUE, FAMILIES, catalogue_entry, select
from agentkit.envs.gridworld.seeds import episode_seeds
from agentkit.evals.gridworld.baselines import BaselineCache
from agentkit.evals.ons import PairScores, aggregate, field_of

logger = logging.getLogger(__name__)

Metric = Literal["reward", "success"]
ONS_DEFINITION = (
    "ONS = (agent - random) / (oracle - random) per (task, difficulty) on the same seeds, metric averaged "
    "over episodes; category = mean of its tasks, overall = mean of categories; 95% CI = paired bootstrap "
    "over episodes (2.5th-97.5th percentile)"
)


def gridworld_eval_plan(
    categories: Iterable[str] | None = None,
    tasks: Iterable[str] | None = None,
    difficulties: Iterable[str] | None = None,
    seeds_per_pair: int = 5,
    split: str = "eval",
) -> list[tuple[str, int]]:
    """(catalogue task name, seed) for every selected (family, difficulty) pair and seed.

    ``tasks`` may name families (``door-key``) or catalogue entries (``gridworld/door-key-hard``);
    ``None`` everywhere means the whole catalogue at every difficulty.
    """
    if seeds_per_pair < 1:
        raise ValueError(f"seeds_per_pair must be >= 1, got {seeds_per_pair}")
    families: list[str] = []  # read only when tasks is given
    names: set[str] = set()
    if tasks is not None:
        tasks = list(tasks)
        family_names = {f.name for f in FAMILIES}
        names = {t for t in tasks if t not in family_names}
        for name in names:
            catalogue_entry(name)  # a clear error for anything unknown
        families = [t for t in tasks if t in family_names]
    entries = select(
        categories=None if categories is None else list(categories),
        difficulties=None if difficulties is None else list(difficulties),
    )
    if tasks is not None:
        entries = [e for e in entries if e.family in families or e.name in names]
    if not entries:
        raise ValueError("the evaluation selects no catalogue task; check categories, tasks and difficulties")
    return [
        (e.name, seed)
        for e in entries
        for seed in episode_seeds(e.family, e.difficulty, split, seeds_per_pair)
    ]


def _score(result: Any, metric: Metric) -> float:
    value = field_of(result, metric)
    return float(bool(value)) if metric == "success" else float(value)


def gridworld_leaderboard(
    results: Iterable[Any],
    model: str,
    harness: str,
    modality: str,
    metric: Metric = "reward",
    cache_path: str | Path | None = None,
    n_boot: int = 2000,
) -> dict[str, Any]:
    """Leaderboard JSON for episode results (mappings or objects with task, seed, success, reward).

    Only catalogue tasks can be scored (they carry a category); the same (task, seed) twice keeps
    the last result. Oracle and random are measured on exactly the seeds in ``results``.
    """
    if metric not in ("reward", "success"):
        raise ValueError(f"metric must be 'reward' or 'success', got {metric!r}")
    by_task: dict[str, dict[int, float]] = defaultdict(dict)
    for result in results:
        task = str(field_of(result, "task"))
        catalogue_entry(task)
        by_task[task][int(field_of(result, "seed"))] = _score(result, metric)
    if not by_task:
        raise ValueError("no episode results to score")
    cache = BaselineCache(cache_path)
    baselines = cache.fill([(t, s) for t, seeds in by_task.items() for s in sorted(seeds)])
    order = {e.name: i for i, e in enumerate(CATALOGUE)}
    pairs = []
    for task in sorted(by_task, key=order.__getitem__):
        seeds = tuple(sorted(by_task[task]))
        pairs.append(
            PairScores(
                task=task,
                category=catalogue_entry(task).category,
                seeds=seeds,
                agent=tuple(by_task[task][s] for s in seeds),
                oracle=tuple(_score(baselines[(task, s)]["oracle"], metric) for s in seeds),
                random=tuple(_score(baselines[(task, s)]["random"], metric) for s in seeds),
            )
        )
    board = aggregate(pairs, n_boot=n_boot)
    for name, row in board["tasks"].items():
        entry = catalogue_entry(name)
        row.update(family=entry.family, difficulty=entry.difficulty, env_id=entry.env_id)
    logger.info(
        "leaderboard: %d pairs, %d baseline episodes measured, cache %s",
        len(pairs),
        cache.measured,
        cache.path,
    )
    return {
        "env": "gridworld",
        "model": model,
        "harness": harness,
        "modality": modality,
        "metric": metric,
        "definition": ONS_DEFINITION,
        "episodes": sum(len(p.seeds) for p in pairs),
        "baseline_cache": str(cache.path),
        **board,
    }


def write_category_figure(board: dict[str, Any], path: str | Path) -> Path:
    """A bar per category (ONS with its 95% CI as error bars), plus the overall bar, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [c for c, row in board["categories"].items() if row["ons"] is not None]
    values = [board["categories"][c]["ons"] for c in names]
    cis = [board["categories"][c]["ci"] or [v, v] for c, v in zip(names, values)]
    if board.get("overall_ons") is not None:
        names.append("overall")
        values.append(board["overall_ons"])
        cis.append(board["overall_ci"] or [board["overall_ons"]] * 2)
    low = [max(0.0, v - ci[0]) for v, ci in zip(values, cis)]
    high = [max(0.0, ci[1] - v) for v, ci in zip(values, cis)]
    fig, ax = plt.subplots(figsize=(1.2 * len(names) + 2, 4))
    colors = ["#4c72b0"] * (len(names) - 1) + ["#dd8452"] if names and names[-1] == "overall" else None
    ax.bar(names, values, yerr=[low, high], capsize=4, color=colors)
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=1, label="oracle")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_ylabel("ONS (95% CI)")
    ax.set_title(f"{board['model']} | {board['harness']} | {board['modality']}")
    ax.tick_params(axis="x", labelrotation=30)
    ax.legend(loc="upper right")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
