"""The `agentkit report` commands: `report aai` compares runs with the Animal-AI baselines.

Kept apart from ``cli.py`` so reports can grow without crowding the core verbs;
``register(app)`` adds the ``report`` group to the main app.

The reference agent's column comes from a stored run the user names with ``--reference`` (made
with ``agentkit run --env aai-arena --suite aai-children40``, the default model being the
reference agent). It is not recomputed here: a report only reads, so it is fast, repeatable, and
the reference episodes stay inspectable in the transcript store like any other run.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from agentkit.cli._common import DB_HELP
from agentkit.cli._common import emit_json as _emit_json
from agentkit.cli._common import fail as _fail
from agentkit.cli._help import HELP_LAYOUT

if TYPE_CHECKING:  # the reports are imported only when the command runs
    from agentkit.reports.aai_report import AAIReport
    from agentkit.reports.human_runs import HumanResults
    from agentkit.reports.run_results import RunResults

log = logging.getLogger("agentkit.report")
# Piped output (a file, a test) gets a wide fixed width so the table is not folded into 80 columns,
# unless COLUMNS names a width: then, as on a terminal, the table's cells wrap between words.
out = Console(highlight=False, width=None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 160)

report_app = typer.Typer(no_args_is_help=True, help="Compare runs with baselines.", **HELP_LAYOUT)


def _split_ids(values: list[str] | None) -> list[str]:
    """Run ids from repeated options, each possibly a comma-separated list; order kept, repeats dropped."""
    ids: list[str] = []
    for value in values or []:
        for part in value.split(","):
            part = part.strip()
            if part and part not in ids:
                ids.append(part)
    return ids


@report_app.command("aai")
def aai(
    runs: list[str] | None = typer.Option(
        None, "--runs", help="Run id to report (repeatable, or comma-separated)."
    ),
    humans: list[str] | None = typer.Option(
        None,
        "--humans",
        help="Run ids of people's sittings (`agentkit play`, model human:<id>), pooled into one 'humans' column; their tutorial never counts (repeatable, or comma-separated).",
    ),
    reference: str | None = typer.Option(
        None,
        "--reference",
        help="Run id of a reference-agent run (e.g. from `agentkit run --env aai-arena --suite aai-children40`), shown as the 'reference' column; it is read, not re-run.",
    ),
    db: str | None = typer.Option(None, help=DB_HELP),
    tasks: str | None = typer.Option(
        None,
        "--tasks",
        help="A suite (aai-children40, the default; aai-testbed; aai-level-NN) or task ids LL-TT-VV separated by commas.",
    ),
    detail: bool = typer.Option(
        False, "--detail", help="Also show every task (table) / add 'task_detail' (JSON)."
    ),
    out_dir: Path = typer.Option(
        Path("aai-report"), "--out", help="Folder for aai_report.png and aai_report.html."
    ),
    no_figure: bool = typer.Option(False, "--no-figure", help="Do not write the PNG and HTML files."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object on stdout."),
) -> None:
    """Pass proportions per level of runs beside the 59 children, the top-10 Olympics entrants and the reference agent, with 95% intervals."""
    from agentkit.reports.aai_report import build_report
    from agentkit.reports.baselines import BaselineDataError, shipped_baselines
    from agentkit.reports.task_sets import DEFAULT_TASK_SET, resolve_task_set

    run_ids = _split_ids(runs)
    human_ids = _split_ids(humans)
    if not run_ids and reference is None and not human_ids:
        _fail("name at least one run: --runs RUN_ID (and/or --reference RUN_ID, --humans RUN_ID)")
    try:
        task_ids = resolve_task_set(tasks)
        baselines = shipped_baselines()
    except (BaselineDataError, ValueError) as exc:
        _fail(str(exc))
    results, people, reference_results = _read_columns(db, run_ids, human_ids, reference)
    if reference_results is not None and reference_results.model != "reference":
        log.warning(
            "--reference run %s was made by model %r, not the reference agent",
            reference,
            reference_results.model,
        )
    _warn_of_coverage([*results, *([reference_results] if reference_results else [])], task_ids)

    try:  # every column over the selected tasks every run played (agentkit.reports.coverage)
        report = build_report(
            baselines, task_ids, results, reference_results, task_set=tasks or DEFAULT_TASK_SET
        )
    except ValueError as exc:
        _fail(str(exc))
    if people is not None:
        from agentkit.reports.human_runs import cluster_by_participant

        cluster_by_participant(report, people)
    files = {} if no_figure else _write_figure(report, out_dir)
    if as_json:
        data = report.to_json(detail=detail)
        data["files"] = {kind: str(path) for kind, path in files.items()}
        _emit_json(data)
    else:
        _print_report(report, detail, files)


def _read_columns(
    db: str | None, run_ids: list[str], human_ids: list[str], reference: str | None
) -> tuple[list[RunResults], HumanResults | None, RunResults | None]:
    """The report's columns read from the store: each run's results (the pooled people's last, when
    ``human_ids`` names sittings), the people alone, and the reference run's; one line for a bad
    --db or a run that cannot be reported."""
    from agentkit.cli._common import open_reading_store
    from agentkit.reports.baselines import BaselineDataError
    from agentkit.reports.run_results import RunResultsError, read_run
    from agentkit.viewer import DatabaseNotFound

    try:
        store = open_reading_store(db)  # a bad or missing --db is one line
        results = [read_run(store, run_id) for run_id in run_ids]
        people = None
        if human_ids:
            from agentkit.reports.human_runs import read_humans

            people = read_humans(store, human_ids)
            results.append(people)
        reference_results = read_run(store, reference) if reference else None
    except (DatabaseNotFound, BaselineDataError, RunResultsError, ValueError) as exc:
        _fail(str(exc))
    return results, people, reference_results


def _write_figure(report: AAIReport, out_dir: Path) -> dict[str, Path]:
    """aai_report.png and aai_report.html in ``out_dir`` (kind -> path); one line when they cannot be written."""
    from agentkit.reports.figure import write_figure

    try:
        return write_figure(report, out_dir)
    except OSError as exc:
        _fail(f"--out {out_dir}: cannot write the figure: {exc.strerror or exc}")


def _warn_of_coverage(results: list, task_ids: list[str]) -> None:
    """A log line for each run that played tasks outside the selected set, or not all of it."""
    for result in results:
        outside = sorted(set(result.by_task) - set(task_ids))
        if outside:
            log.info(
                "run %s: %d task(s) outside the selected set are not counted", result.run_id, len(outside)
            )
        covered = len(set(result.by_task) & set(task_ids))
        if not covered:
            log.warning("run %s has no finished episode on the selected tasks", result.run_id)
        elif covered < len(task_ids):
            log.warning(
                "run %s played %d of the %d selected tasks; every column is compared over the tasks "
                "every run played",
                result.run_id,
                covered,
                len(task_ids),
            )


def _print_report(report, detail: bool, files: dict[str, Path]) -> None:
    """The report as tables: per level (and per task with --detail), then what the columns are."""
    from agentkit.reports.console_table import level_table, task_table

    if report.coverage is not None:  # what every column is over, before the figures
        out.print(f"compared: {report.coverage.summary()}. {report.coverage.caption()}", markup=False)
    out.print(level_table(report))
    if detail:
        out.print(task_table(report))
    top = ", ".join(f"{name} {p:.3f}" for name, p in report.olympics_top)
    out.print(
        f"children: the {len(report.children_ids)} with no missing task; Olympics top 10 over all 900 tasks: {top}"
    )
    rules = ", ".join(
        f"{run_id} {rule or 'not recorded (stopped episodes judged on the reward so far)'}"
        for run_id, rule in report.pass_rules.items()
    )
    out.print(f"pass rule of each run: {rules}")
    for run_id, apart in report.errors_apart.items():  # an outage is not read as a bad model
        line = apart.line()
        if line:
            out.print(f"run {run_id}: {line}", markup=False)
    for kind, path in files.items():
        out.print(f"wrote {kind}: {path}")


def register(app: typer.Typer) -> None:
    """Add the `report` group (with `aai`) to the main app."""
    app.add_typer(report_app, name="report")
