"""The Animal-AI comparison: runs beside children, Olympics entrants and the reference agent.

Why one table model for everything: the console table, the JSON document and the figure must show
the same figures. They are all rendered from an ``AAIReport``, whose cells are ``Proportion``s
summed over the selected tasks of each level, so nothing is computed twice.

Columns, in order: the 59 children, the top-10 Olympics entrants, the reference agent (when a
reference run is given), then each run, labelled by its name (``--name``) where it has one. Every
cell is a proportion of (participant x task) pairs; a run with several trials of a task counts each
trial as a pair. Each cell has two 95% intervals: Wilson's over the pairs, and a cluster-robust one
(``clustered``) by participant for the children and the entrants, by task for runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentkit.reports.baselines import TOP_K, Baselines
from agentkit.reports.clustered import CLUSTER_METHOD, cluster_robust_interval
from agentkit.reports.coverage import Coverage, common_coverage
from agentkit.reports.levels import level_name, level_title
from agentkit.reports.proportions import EMPTY, Proportion
from agentkit.reports.run_results import RunResults
from agentkit.reports.task_ids import level_of
from agentkit.runs.error_rates import ErrorsApart

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
    # cluster (a participant, or a task) -> task -> its pairs; None: every task is its own cluster
    by_participant: Mapping[str, Mapping[str, Proportion]] | None = None

    @property
    def clustered_by(self) -> str:
        return "task" if self.by_participant is None else "participant"

    def over(self, tasks: Sequence[str]) -> Proportion:
        total = EMPTY
        for task in tasks:
            total = total + self.by_task.get(task, EMPTY)
        return total

    def clustered(self, tasks: Sequence[str]) -> tuple[float, float] | None:
        """The cluster-robust 95% interval over ``tasks`` (agentkit.reports.clustered); None with
        fewer than two clusters."""
        if self.by_participant is None:
            cells = [self.by_task.get(task, EMPTY) for task in tasks]
        else:
            cells = []
            for played in self.by_participant.values():
                total = EMPTY
                for task in tasks:
                    total = total + played.get(task, EMPTY)
                cells.append(total)
        return cluster_robust_interval((c.passed, c.n) for c in cells)


@dataclass
class AAIReport:
    tasks: list[str]
    columns: list[Column]
    task_set: str
    children_ids: list[str] = field(default_factory=list)
    olympics_top: list[tuple[str, float]] = field(default_factory=list)
    not_counted: dict[str, int] = field(default_factory=dict)
    reference_run: str | None = None  # the run id behind the reference column
    pass_rules: dict[str, str | None] = field(
        default_factory=dict
    )  # run id -> its pass rule (None: not recorded)
    not_judged: dict[str, int] = field(default_factory=dict)  # run id -> finished episodes without a verdict
    run_names: dict[str, str | None] = field(default_factory=dict)  # run id -> its --name (None: none given)
    # run id -> its rate over the tasks with the episodes a model or environment error ended counted apart
    errors_apart: dict[str, ErrorsApart] = field(default_factory=dict)
    # the selected tasks and those compared (every run played them); None: built without a selection
    coverage: Coverage | None = None

    @property
    def shown_columns(self) -> list[Column]:
        """The columns a table or figure draws: a run named both with ``--runs`` and as the
        reference appears once, as the reference (the JSON keeps it under both keys)."""
        return [c for c in self.columns if not (c.is_run and c.key == self.reference_run)]

    @property
    def levels(self) -> list[int]:
        return sorted({level_of(t) for t in self.tasks})

    @staticmethod
    def level_title(level: int) -> str:
        """``"L1 Food retrieval"``: a level as tables and figures label it."""
        return level_title(level)

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
        clustered: dict[str, Any] = {"runs": {}}
        n: dict[str, Any] = {"runs": {}}
        passed: dict[str, Any] = {"runs": {}}
        for column in self.columns:
            cell = cells[column.key]
            interval = list(cell.ci95) if cell.ci95 else None
            cluster_pair = column.clustered(tasks) if cell.n else None
            cluster_ci = list(cluster_pair) if cluster_pair else None
            if column.is_run:
                runs[column.key] = cell.p
                ci["runs"][column.key], n["runs"][column.key] = interval, cell.n
                passed["runs"][column.key] = cell.passed
                clustered["runs"][column.key] = cluster_ci
            else:
                row[column.key] = cell.p
                ci[column.key], n[column.key], passed[column.key] = interval, cell.n, cell.passed
                clustered[column.key] = cluster_ci
        row["runs"] = runs
        row["ci95"], row["ci95_clustered"], row["n"], row["passed"] = ci, clustered, n, passed
        row["tasks"] = len(tasks)
        return row

    def to_json(self, detail: bool = False) -> dict[str, Any]:
        levels = [
            {"level": level, "name": level_name(level), **self._row_json(self.level_tasks(level))}
            for level in self.levels
        ]
        data: dict[str, Any] = {
            "levels": levels,
            "overall": self._row_json(self.tasks),
            "task_set": self.task_set,
            "ci_method": CI_METHOD,
            "ci_clustered_method": CLUSTER_METHOD,
            "clustered_by": {c.key: c.clustered_by for c in self.columns},
            "labels": {c.key: c.label for c in self.columns},
            "run_names": self.run_names,
            "participants": {
                CHILDREN: len(self.children_ids),
                OLYMPICS: [{"entrant": name, "proportion_all_900": p} for name, p in self.olympics_top],
            },
            "not_counted_episodes": self.not_counted,
            "pass_criterion": PASS_CRITERION,
            "pass_rules": self.pass_rules,
            "not_judged_episodes": self.not_judged,
            "errors_apart": {run_id: e.to_json() for run_id, e in self.errors_apart.items()},
            "coverage": self.coverage.to_json() if self.coverage else None,
        }
        if detail:
            data["task_detail"] = [
                {"task": t, "level": level_of(t), **self._row_json([t])} for t in self.tasks
            ]
        return data


def build_report(
    baselines: Baselines,
    tasks: Sequence[str],
    runs: Sequence[RunResults] = (),
    reference: RunResults | None = None,
    task_set: str = "",
) -> AAIReport:
    """Assemble the columns for ``tasks`` (canonical ids) from the baselines and the runs.

    Every column is compared over the tasks of ``tasks`` that every run (and the reference) played
    (``agentkit.reports.coverage``), so no bar stands beside another over different tasks; the
    report's ``coverage`` says which those are. ValueError when the runs share none of them."""
    every = [*runs, *([reference] if reference else [])]
    coverage = common_coverage(task_set, tasks, {r.run_id: r.by_task for r in every})
    if every and not coverage.compared:
        played = ", ".join(f"run {key}: {n}" for key, n in coverage.played.items())
        raise ValueError(
            f"no task of {task_set or 'the selection'} ({len(coverage.selected)} tasks) was played by every run "
            f"({played}); report the runs one at a time, or name tasks they share with --tasks"
        )
    tasks = coverage.compared
    complete = baselines.complete_children()
    top = baselines.top_entrants(TOP_K)
    columns = [
        Column(
            CHILDREN,
            f"children (n={len(complete)})",
            baselines.children_by_task(),
            by_participant=baselines.children_by_participant(),
        ),
        Column(
            OLYMPICS,
            f"Olympics top {len(top)}",
            baselines.olympics_by_task(e.name for e in top),
            by_participant=baselines.olympics_by_participant(e.name for e in top),
        ),
    ]
    if reference is not None:
        columns.append(
            Column(REFERENCE, f"reference ({reference.name or reference.run_id})", reference.by_task)
        )
    labels = [run.label for run in runs]
    for run in runs:  # two runs given the same name are told apart by their ids
        label = run.label if labels.count(run.label) == 1 else f"{run.label} [{run.run_id}]"
        columns.append(Column(run.run_id, label, run.by_task, is_run=True))
    not_counted = {r.run_id: r.not_counted for r in every}
    return AAIReport(
        pass_rules={r.run_id: r.pass_rule.value if r.pass_rule else None for r in every},
        not_judged={r.run_id: r.not_judged for r in every},
        run_names={r.run_id: r.name for r in every},
        errors_apart={r.run_id: r.errors_apart(list(tasks)) for r in every},
        tasks=list(tasks),
        columns=columns,
        task_set=task_set,
        children_ids=complete,
        olympics_top=[(e.name, e.proportion) for e in top],
        not_counted=not_counted,
        reference_run=reference.run_id if reference is not None else None,
        coverage=coverage,
    )
