"""Named task lists of the Animal-AI Testbed and the pass proportions they are scored by.

Why a module of its own: the suites (all 900 tasks, the 40 played by children, one per level) are
what results are compared on across papers, so they are spelled once, checked against the data
folder, and scored the same way everywhere: a task is passed when its final reward reaches the
arena's ``pass_mark``, and results are reported as the proportion passed per level (as in
Voudouris et al. 2022 and the LLM-AAI paper).

Task ids are ``LL-TT-VV``: level (01-10), task within the level (01-30), variant (01-03).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any

LEVELS = tuple(range(1, 11))
TASKS_PER_LEVEL = 30
VARIANTS = 3

TASK_ID = re.compile(r"^(\d{2})-(\d{2})-(\d{2})$")

# The 40 tasks of Voudouris et al. (2022), four per level, also used by the LLM-AAI paper
# (listed in envs/arena/data/README.md).
CHILDREN_40: tuple[str, ...] = (
    "01-04-03",
    "01-06-02",
    "01-21-01",
    "01-23-01",
    "02-02-01",
    "02-10-01",
    "02-17-01",
    "02-29-01",
    "03-09-01",
    "03-11-01",
    "03-18-01",
    "03-21-01",
    "04-03-01",
    "04-13-01",
    "04-16-01",
    "04-22-01",
    "05-09-01",
    "05-15-01",
    "05-24-01",
    "05-26-01",
    "06-09-01",
    "06-11-01",
    "06-12-02",
    "06-29-02",
    "07-16-01",
    "07-17-01",
    "07-22-01",
    "07-25-01",
    "08-03-03",
    "08-11-01",
    "08-19-01",
    "08-30-01",
    "09-03-01",
    "09-08-01",
    "09-21-01",
    "09-24-01",
    "10-07-01",
    "10-16-01",
    "10-21-01",
    "10-22-03",
)


def testbed_tasks() -> list[str]:
    """All 900 task ids in order (level, task, variant)."""
    return [
        f"{level:02d}-{task:02d}-{variant:02d}"
        for level in LEVELS
        for task in range(1, TASKS_PER_LEVEL + 1)
        for variant in range(1, VARIANTS + 1)
    ]


def level_of(task_id: str) -> int:
    """The level (1-10) of a Testbed task id such as ``"04-13-01"``; ValueError for anything else."""
    match = TASK_ID.match(task_id)
    if match is None or int(match.group(1)) not in LEVELS:
        raise ValueError(f"not an Animal-AI Testbed task id (LL-TT-VV, levels 01-10): {task_id!r}")
    return int(match.group(1))


def level_suite_name(level: int) -> str:
    return f"aai-level-{level:02d}"


def suites() -> dict[str, list[str]]:
    """``aai-testbed`` (900), ``aai-children40`` (40) and ``aai-level-01`` .. ``aai-level-10`` (90 each)."""
    everything = testbed_tasks()
    named: dict[str, list[str]] = {"aai-testbed": everything, "aai-children40": list(CHILDREN_40)}
    for level in LEVELS:
        named[level_suite_name(level)] = [t for t in everything if level_of(t) == level]
    return named


def missing_task_files() -> list[str]:
    """Task ids of the suites with no YAML in the packaged Testbed folder (empty when the data is whole)."""
    folder = resources.files("agentkit.envs.arena").joinpath("data").joinpath("testbed")
    return [t for t in testbed_tasks() if not folder.joinpath(f"{t}.yaml").is_file()]


def passed(final_reward: float, pass_mark: float | None) -> bool:
    """The Testbed's criterion: final reward at least the pass mark.

    A file with no pass mark (only 10-22-02 of the 900) is judged against 0, as Unity does: the
    YAML class's ``pass_mark`` defaults to 0 (``Assets/Scripts/YAMLclasses.cs``, ``Arena.pass_mark``)
    and ``TrainingAgent.EndEpisode`` compares ``cumulativeReward >= Arena.CurrentPassMark``.
    """
    return final_reward >= (0.0 if pass_mark is None else pass_mark)


def _outcome(result: Any) -> tuple[int, bool]:
    """(level, pass) of one episode: an EpisodeResult (its ``metrics``), a mapping, or a (task, pass) pair."""
    if isinstance(result, tuple):
        name, ok = result
        return level_of(name), bool(ok)
    metrics: Mapping[str, Any]
    task: str | None
    if isinstance(result, Mapping):
        metrics, task = result, result.get("task")
    else:
        metrics, task = getattr(result, "metrics", {}) or {}, getattr(result, "task", None)
    if "pass" not in metrics:
        raise ValueError(f"episode result without a 'pass' metric: {result!r}")
    level = metrics.get("level")
    if level is None:
        if task is None:
            raise ValueError(f"episode result without a level or task: {result!r}")
        level = level_of(task)
    return int(level), bool(metrics["pass"])


def pass_counts(results: Iterable[Any]) -> dict[int, tuple[int, int]]:
    """Per level: (episodes passed, episodes played), levels in ascending order."""
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for result in results:
        level, ok = _outcome(result)
        counts[level][0] += int(ok)
        counts[level][1] += 1
    return {level: (c[0], c[1]) for level, c in sorted(counts.items())}


def pass_proportions(results: Iterable[Any]) -> dict[int, float]:
    """Per level: the proportion of episodes passed (levels with no episode are absent)."""
    return {level: ok / n for level, (ok, n) in pass_counts(results).items()}


def overall_pass_proportion(results: Iterable[Any]) -> float:
    """Pass proportion over all episodes given (0.0 for none)."""
    counts = pass_counts(results).values()
    played = sum(n for _, n in counts)
    return sum(ok for ok, _ in counts) / played if played else 0.0


def format_pass_table(results: Iterable[Any]) -> str:
    """A small plain-text table (level, passed/played, proportion) for bench scripts and logs."""
    rows = ["level  passed  proportion"]
    counts = pass_counts(results)
    for level, (ok, n) in counts.items():
        rows.append(f"{level:>5}  {ok:>3}/{n:<3}  {ok / n:>10.3f}")
    total_ok = sum(ok for ok, _ in counts.values())
    total_n = sum(n for _, n in counts.values())
    if total_n:
        rows.append(f"{'all':>5}  {total_ok:>3}/{total_n:<3}  {total_ok / total_n:>10.3f}")
    return "\n".join(rows)
