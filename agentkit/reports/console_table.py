"""Rich tables of an ``AAIReport`` for the terminal: per level, and per task on request."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from agentkit.reports.aai_report import CI_METHOD, PASS_CRITERION, AAIReport, Column
from agentkit.reports.clustered import CLUSTER_METHOD
from agentkit.reports.task_ids import level_of


def _cell(column: Column, tasks: Sequence[str]) -> str:
    cell = column.over(tasks)
    if cell.p is None:
        return "–"
    lo, hi = cell.ci95 or (0.0, 1.0)
    clustered = column.clustered(tasks)
    by = f"{{{clustered[0]:.2f}–{clustered[1]:.2f}}}" if clustered else "{–}"
    return f"{cell.p:.2f} [{lo:.2f}–{hi:.2f}] {by} {cell.passed}/{cell.n}"


def level_table(report: AAIReport) -> Table:
    """Proportion passed per level and overall: p [Wilson] {clustered} passed/pairs, one column per group."""
    table = Table(
        title=f"Animal-AI pass proportions: {report.task_set} ("
        + (report.coverage.summary() if report.coverage else f"{len(report.tasks)} tasks")
        + ")",
        caption=f"p [{CI_METHOD}] {{{CLUSTER_METHOD}}} passed/pairs; every column over the tasks every run "
        f"played; – = no pair (no clustered interval with one cluster)\n"
        f"{PASS_CRITERION}",
    )
    table.add_column("level")
    table.add_column("tasks", justify="right")
    for column in report.shown_columns:
        table.add_column(column.label, justify="right")
    for level in report.levels:
        tasks = report.level_tasks(level)
        table.add_row(
            report.level_title(level), str(len(tasks)), *(_cell(c, tasks) for c in report.shown_columns)
        )
    table.add_section()
    table.add_row(
        "all", str(len(report.tasks)), *(_cell(c, report.tasks) for c in report.shown_columns), style="bold"
    )
    return table


def task_table(report: AAIReport) -> Table:
    """Passes over pairs for every selected task (the --detail view)."""
    table = Table(title="per task: passed/pairs")
    table.add_column("task")
    table.add_column("level", justify="right")
    for column in report.shown_columns:
        table.add_column(column.label, justify="right")
    for task in report.tasks:
        cells = report.cells([task])
        table.add_row(
            task,
            str(level_of(task)),
            *(
                f"{cells[c.key].passed}/{cells[c.key].n}" if cells[c.key].n else "–"
                for c in report.shown_columns
            ),
        )
    return table
