"""The children and Olympics baselines, computed from the raw data shipped in ``reports/data``.

Why computed and not tabulated: the per-level figures depend on which tasks are selected, which
children count (the 59 with no missing task) and which entrants are "the top 10" (ranked over all
900 tasks). Recomputing them from the published rows keeps every figure traceable to its source
and lets a report cover any task set, not only the one a paper printed.

The outcome of a group is kept per task as a ``Proportion`` of (participant x task) pairs, so any
grouping (a level, a suite, all tasks) is a plain sum.
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from agentkit.reports.proportions import Proportion
from agentkit.reports.task_ids import canonical_task_id, child_column_task

if TYPE_CHECKING:  # importlib.resources.abc is Python 3.11+; importlib.abc has it from 3.10 on
    from importlib.abc import Traversable

log = logging.getLogger(__name__)

CHILDREN_FILE = "children_voudouris2022.csv"
OLYMPICS_FILE = "olympics2019_scores.csv"
PASS_MARKS_FILE = "passmarks.csv"
TESTBED_SIZE = 900
TOP_K = 10


class BaselineDataError(ValueError):
    """A baseline file is missing, or a row or field in it cannot be read."""


@dataclass(frozen=True)
class Entrant:
    """One Olympics entrant's record over the whole Testbed."""

    name: str
    passed: int
    tasks: int

    @property
    def proportion(self) -> float:
        return self.passed / self.tasks


@dataclass(frozen=True)
class Baselines:
    """Everything the report needs from the shipped data, already reduced to passes per task."""

    pass_marks: dict[str, float]
    # child id -> task -> passed (None: not played)
    children: dict[str, dict[str, bool | None]]
    # entrant -> task -> passed (final reward >= pass mark)
    olympics: dict[str, dict[str, bool]]

    @property
    def children_tasks(self) -> list[str]:
        """The 40 tasks of the children study, in Testbed order."""
        first = next(iter(self.children.values()), {})
        return sorted(first)

    def complete_children(self) -> list[str]:
        """Ids of the children who played every task of the study (59 in the shipped data)."""
        return [child for child, tasks in self.children.items() if all(v is not None for v in tasks.values())]

    def ranked_entrants(self) -> list[Entrant]:
        """All Olympics entrants, best first by proportion passed over their tasks (ties by name)."""
        entrants = [Entrant(name, sum(tasks.values()), len(tasks)) for name, tasks in self.olympics.items()]
        return sorted(entrants, key=lambda e: (-e.proportion, e.name))

    def top_entrants(self, k: int = TOP_K) -> list[Entrant]:
        """The ``k`` best entrants over all 900 tasks; a tie across the cut is logged, not hidden."""
        ranked = self.ranked_entrants()
        if len(ranked) > k and ranked[k - 1].proportion == ranked[k].proportion:
            log.warning(
                "Olympics entrants %s and %s tie at rank %d; the tie is broken by name",
                ranked[k - 1].name,
                ranked[k].name,
                k,
            )
        return ranked[:k]

    def children_by_task(self) -> dict[str, Proportion]:
        """Per task: passes among the complete children."""
        complete = self.complete_children()
        return {
            task: Proportion(sum(bool(self.children[c][task]) for c in complete), len(complete))
            for task in self.children_tasks
        }

    def children_by_participant(self) -> dict[str, dict[str, Proportion]]:
        """Per complete child, per task: 1/1 or 0/1 (the clusters of the children's clustered interval)."""
        return {
            child: {task: Proportion(int(bool(v)), 1) for task, v in self.children[child].items()}
            for child in self.complete_children()
        }

    def olympics_by_participant(self, entrants: Iterable[str]) -> dict[str, dict[str, Proportion]]:
        """Per named entrant, per task: 1/1 or 0/1."""
        return {
            name: {task: Proportion(int(v), 1) for task, v in self.olympics[name].items()}
            for name in entrants
        }

    def olympics_by_task(self, entrants: Iterable[str]) -> dict[str, Proportion]:
        """Per task: passes among the named entrants."""
        names = list(entrants)
        return {
            task: Proportion(sum(self.olympics[name][task] for name in names), len(names))
            for task in self.pass_marks
        }


def data_folder() -> Traversable:
    """The packaged data folder (never a path outside the installed project)."""
    return resources.files("agentkit.reports").joinpath("data")


def _rows(folder: Traversable | Path, name: str, required: tuple[str, ...]) -> list[dict[str, str]]:
    source = folder.joinpath(name)
    if not source.is_file():
        raise BaselineDataError(f"{name}: baseline file not found in {folder}")
    # Bytes, then text: a Traversable's open() (a zip install's zipfile.Path) need not take newline=.
    text = source.read_bytes().decode("utf-8")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise BaselineDataError(f"{name}: missing column(s) {', '.join(missing)}")
    return list(reader)


def _number(value: str, where: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise BaselineDataError(f"{where}: not a number: {value!r}") from None


def _task(value: str, where: str) -> str:
    try:
        return canonical_task_id(value)
    except ValueError as exc:
        raise BaselineDataError(f"{where}: {exc}") from None


def read_pass_marks(folder: Traversable | Path) -> dict[str, float]:
    marks: dict[str, float] = {}
    for i, row in enumerate(_rows(folder, PASS_MARKS_FILE, ("episode", "passMark")), start=2):
        where = f"{PASS_MARKS_FILE} line {i}"
        marks[_task(row["episode"], f"{where} field episode")] = _number(
            row["passMark"], f"{where} field passMark"
        )
    if len(marks) != TESTBED_SIZE:
        raise BaselineDataError(f"{PASS_MARKS_FILE}: {len(marks)} tasks, expected {TESTBED_SIZE}")
    return dict(sorted(marks.items()))


def read_children(folder: Traversable | Path) -> dict[str, dict[str, bool | None]]:
    rows = _rows(folder, CHILDREN_FILE, ("User",))
    children: dict[str, dict[str, bool | None]] = {}
    for i, row in enumerate(rows, start=2):
        played: dict[str, bool | None] = {}
        for column, value in row.items():
            kind_task = child_column_task(column or "")
            if kind_task is None or kind_task[0] != "pass":
                continue
            value = (value or "").strip()
            if value not in ("0", "1", "NA"):
                raise BaselineDataError(
                    f"{CHILDREN_FILE} line {i} field {column}: expected 0, 1 or NA, got {value!r}"
                )
            played[kind_task[1]] = None if value == "NA" else value == "1"
        if not played:
            raise BaselineDataError(f"{CHILDREN_FILE}: no L<level>.<task>.<variant> columns")
        children[row["User"]] = played
    return children


def read_olympics(folder: Traversable | Path, pass_marks: Mapping[str, float]) -> dict[str, dict[str, bool]]:
    results: dict[str, dict[str, bool]] = {}
    for i, row in enumerate(_rows(folder, OLYMPICS_FILE, ("Agent", "episode", "finalReward")), start=2):
        where = f"{OLYMPICS_FILE} line {i}"
        task = _task(row["episode"], f"{where} field episode")
        reward = _number(row["finalReward"], f"{where} field finalReward")
        results.setdefault(row["Agent"], {})[task] = reward >= pass_marks[task]
    incomplete = [name for name, tasks in results.items() if len(tasks) != TESTBED_SIZE]
    if incomplete:
        raise BaselineDataError(
            f"{OLYMPICS_FILE}: entrant {incomplete[0]!r} has "
            f"{len(results[incomplete[0]])} tasks, expected {TESTBED_SIZE}"
        )
    return results


def read_baselines(folder: Traversable | Path | None = None) -> Baselines:
    """Read and check the three baseline files (from the packaged data unless ``folder`` is given)."""
    folder = data_folder() if folder is None else folder
    marks = read_pass_marks(folder)
    return Baselines(pass_marks=marks, children=read_children(folder), olympics=read_olympics(folder, marks))


@lru_cache(maxsize=1)
def shipped_baselines() -> Baselines:
    """The packaged baselines, read once per process."""
    return read_baselines()
