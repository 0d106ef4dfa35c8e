"""Which tasks a report compares its columns over, and how that is said on the figure itself.

Why: a run that played 4 of the 40 children's tasks once got an "all" bar of 1.00 beside the
children's 0.56 over all 40, and only a stderr line said the two were over different tasks. A bar
beside another must be over the same tasks, so a report compares every column (the children, the
Olympics entrants, the reference agent, the people, each run) over the selected tasks that every
run column played; the tasks left out are named, and the figure's title, the table's header line,
the HTML page and the JSON all say "4 of 40 tasks; levels 1, 3". Without any run column (the
baselines alone) nothing is left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentkit.reports.task_ids import level_of


@dataclass(frozen=True)
class Coverage:
    """The selected task set and the part of it every run column played (what is compared)."""

    task_set: str  # as asked for (a suite name, or the ids given)
    selected: list[str]
    compared: list[str]
    played: dict[str, int] = field(default_factory=dict)  # run column key -> selected tasks it played

    @property
    def partial(self) -> bool:
        return len(self.compared) < len(self.selected)

    @property
    def levels(self) -> list[int]:
        return sorted({level_of(t) for t in self.compared})

    @property
    def left_out(self) -> list[str]:
        kept = set(self.compared)
        return [t for t in self.selected if t not in kept]

    def summary(self) -> str:
        """``4 of 40 tasks; levels 1, 3`` (``40 tasks; levels 1-10`` when all are compared)."""
        levels = _levels_text(self.levels)
        if not self.partial:
            return f"{len(self.compared)} tasks; {levels}"
        return f"{len(self.compared)} of {len(self.selected)} tasks; {levels}"

    def caption(self) -> str:
        """The sentence under a partial comparison: what was compared and why."""
        if not self.partial:
            return f"Every column over the {len(self.compared)} tasks of {self.task_set or 'the selection'}."
        return (
            f"Every column over the {len(self.compared)} of the {len(self.selected)} tasks of "
            f"{self.task_set or 'the selection'} that every run played; the other "
            f"{len(self.selected) - len(self.compared)} are left out of every column, baselines included."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "task_set": self.task_set,
            "selected": len(self.selected),
            "compared": len(self.compared),
            "levels": self.levels,
            "left_out": self.left_out,
            "played": self.played,
            "summary": self.summary(),
        }


def _levels_text(levels: Sequence[int]) -> str:
    """``levels 1, 3`` or ``levels 1-10`` (a run of consecutive levels written as a range)."""
    if not levels:
        return "no level"
    if len(levels) > 2 and list(levels) == list(range(levels[0], levels[-1] + 1)):
        return f"levels {levels[0]}-{levels[-1]}"
    return ("level " if len(levels) == 1 else "levels ") + ", ".join(str(n) for n in levels)


def common_coverage(
    task_set: str, selected: Sequence[str], runs: Mapping[str, Mapping[str, Any]]
) -> Coverage:
    """The selected tasks every run column (``key -> by_task``) played, in the selection's order."""
    compared = [t for t in selected if all(t in by_task for by_task in runs.values())]
    played = {key: sum(t in by_task for t in selected) for key, by_task in runs.items()}
    return Coverage(task_set=task_set, selected=list(selected), compared=compared, played=played)
