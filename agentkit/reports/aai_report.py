"""The Animal-AI comparison: runs beside children, Olympics entrants and the reference agent.

Why one table model for everything: the console table, the JSON document and the figure must show
the same figures. They are all rendered from an ``AAIReport``, whose cells are ``Proportion``s
summed over the selected tasks of each level, so nothing is computed twice.

Columns, in order: the 59 children, the top-10 Olympics entrants, the reference agent (when a
reference run is given), then each run. Every cell is a proportion of (participant x task) pairs;
a run with several trials of a task counts each trial as a pair.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentkit.reports.baselines import TOP_K, Baselines
from agentkit.reports.proportions import EMPTY, Proportion
from agentkit.reports.run_results import RunResults
from agentkit.reports.task_ids import level_of

CHILDREN = "children"
OLYMPICS = "olympics_top10"
REFERENCE = "reference"
CI_METHOD = "Wilson score interval, 95%, over (participant x task) pairs"
# How a pass is judged (agentkit.pass_rule, docs/scoring.md); the children's and Olympics columns
# are the published final rewards against the same pass marks.
PASS_CRITERION = (
    "pass = reward at the episode's end >= the arena's pass mark (Animal-AI Testbed). An episode stopped by "
    "a limit of ours (scripts, parse failures, tokens, cost, time) first runs out its clock with the no-op "
    "[0, 0]; an untimed arena (t = 0) stopped that way passes only with a positive reward at the pass mark. "
    "Rule 'aai': a model or environment error is never a pass. Rule 'llm-aai' (as the LLM-AAI code): such "
    "an episode has no verdict and is not counted. Interrupted episodes are not counted."
)


@dataclass(frozen=True)
class Column:
    """One group of participants: ``key`` is children, olympics_top10, reference, or a run id."""

    key: str
    label: str
    by_task: Mapping[str, Proportion]
    is_run: bool = False

    def over(self, tasks: Sequence[str]) -> Proportion:
        total = EMPTY
        for task in tasks:
            total = total + self.by_task.get(task, EMPTY)
        return total


@dataclass
class AAIReport:
    tasks: list[str]
    columns: list[Column]
    task_set: str
    children_ids: list[str] = field(default_factory=list)
    olympics_top: list[tuple[str, float]] = field(default_factory=list)
    not_counted: dict[str, int] = field(default_factory=dict)
    reference_run: str | None = None  # the run id behind the reference column
    pass_rules: dict[str, str | None] = field(default_factory=dict)  # run id -> its pass rule (None: not recorded)
    not_judged: dict[str, int] = field(default_factory=dict)  # run id -> finished episodes without a verdict

    @property
    def shown_columns(self) -> list[Column]:
        """The columns a table or figure draws: a run named both with ``--runs`` and as the
        reference appears once, as the reference (the JSON keeps it under both keys)."""
        return [c for c in self.columns if not (c.is_run and c.key == self.reference_run)]

    @property
    def levels(self) -> list[int]:
        return sorted({level_of(t) for t in self.tasks})

    def level_tasks(self, level: int) -> list[str]:
        return [t for t in self.tasks if level_of(t) == level]

    def cells(self, tasks: Sequence[str]) -> dict[str, Proportion]:
        """Column key -> proportion over ``tasks``."""
        return {c.key: c.over(tasks) for c in self.columns}

    # --- JSON -----------------------------------------------------------------------------------

    def _row_json(self, tasks: Sequence[str]) -> dict[str, Any]:
        cells = self.cells(tasks)
        row: dict[str, Any] = {}
        runs: dict[str, Any] = {}
        ci: dict[str, Any] = {"runs": {}}
        n: dict[str, Any] = {"runs": {}}
        passed: dict[str, Any] = {"runs": {}}
        for column in self.columns:
            cell = cells[column.key]
            interval = list(cell.ci95) if cell.ci95 else None
            if column.is_run:
                runs[column.key] = cell.p
                ci["runs"][column.key], n["runs"][column.key] = interval, cell.n
                passed["runs"][column.key] = cell.passed
            else:
                row[column.key] = cell.p
                ci[column.key], n[column.key], passed[column.key] = interval, cell.n, cell.passed
        row["runs"] = runs
        row["ci95"], row["n"], row["passed"] = ci, n, passed
        row["tasks"] = len(tasks)
        return row

    def to_json(self, detail: bool = False) -> dict[str, Any]:
        levels = [{"level": level, **self._row_json(self.level_tasks(level))} for level in self.levels]
        data: dict[str, Any] = {
            "levels": levels,
            "overall": self._row_json(self.tasks),
            "task_set": self.task_set,
            "ci_method": CI_METHOD,
            "participants": {
                CHILDREN: len(self.children_ids),
                OLYMPICS: [{"entrant": name, "proportion_all_900": p} for name, p in self.olympics_top],
            },
            "not_counted_episodes": self.not_counted,
            "pass_criterion": PASS_CRITERION,
            "pass_rules": self.pass_rules,
            "not_judged_episodes": self.not_judged,
        }
        if detail:
            data["task_detail"] = [{"task": t, "level": level_of(t), **self._row_json([t])} for t in self.tasks]
        return data


def build_report(
    baselines: Baselines,
    tasks: Sequence[str],
    runs: Sequence[RunResults] = (),
    reference: RunResults | None = None,
    task_set: str = "",
) -> AAIReport:
    """Assemble the columns for ``tasks`` (canonical ids) from the baselines and the runs."""
    complete = baselines.complete_children()
    top = baselines.top_entrants(TOP_K)
    columns = [
        Column(CHILDREN, f"children (n={len(complete)})", baselines.children_by_task()),
        Column(OLYMPICS, f"Olympics top {len(top)}", baselines.olympics_by_task(e.name for e in top)),
    ]
    if reference is not None:
        columns.append(Column(REFERENCE, f"reference ({reference.run_id})", reference.by_task))
    for run in runs:
        columns.append(Column(run.run_id, run.label, run.by_task, is_run=True))
    every = [*runs, *([reference] if reference else [])]
    not_counted = {r.run_id: r.not_counted for r in every}
    return AAIReport(
        pass_rules={r.run_id: r.pass_rule.value if r.pass_rule else None for r in every},
        not_judged={r.run_id: r.not_judged for r in every},
        tasks=list(tasks), columns=columns, task_set=task_set, children_ids=complete,
        olympics_top=[(e.name, e.proportion) for e in top], not_counted=not_counted,
        reference_run=reference.run_id if reference is not None else None,
    )
