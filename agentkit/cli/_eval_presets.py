"""What `agentkit eval` adds to an experiment file from the command line: presets by name, and
``--tasks``/``--trials``/``--limit`` narrowing the file for a quick or partial run.

A packaged preset is a published experiment: its ``--tasks`` may narrow it to some of its tasks,
never swap in others (``llm-aai-exp1 --tasks aai-level-01`` once played 90 level-1 tasks under the
children's experiment's name, and its report showed "–" for every children's column).

Why a module of its own: `agentkit eval`'s command function is long already; these are small pure
steps with their own one-line refusals, testable without running anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentkit.cli._common import emit_json, fail, out


def print_presets(as_json: bool) -> None:
    """The packaged presets, one a line (name and description), or as one JSON document."""
    from agentkit.runs.preset_files import presets

    found = presets()
    if as_json:
        emit_json({"presets": [{"name": p.name, "description": p.description} for p in found]})
        return
    from rich.table import Table
    from rich.text import Text

    listing = Table.grid(padding=(0, 2))  # names whole; descriptions wrap between words beside them
    listing.add_column(no_wrap=True)
    listing.add_column()
    for preset in found:
        listing.add_row(Text(preset.name), Text(preset.description))
    out.print(listing)


def plan_overrides(
    tasks: str | None, trials: int | None, limit: int | None, resume: str | None
) -> dict[str, Any]:
    """The experiment overrides the narrowing flags give (only those set); a resumed run keeps its plan."""
    given = {"--tasks": tasks, "--trials": trials, "--limit": limit}
    if resume:
        for flag, value in given.items():
            if value is not None:
                fail(f"{flag}: a resumed run plays the episodes it was started with")
        return {}
    overrides: dict[str, Any] = {}
    if tasks is not None:
        names = [name.strip() for name in tasks.split(",") if name.strip()]
        if not names:
            fail("--tasks: give task or suite names, comma-separated")
        overrides["tasks"] = names
    if trials is not None:
        overrides["episodes"] = trials
    if limit is not None:
        overrides["limit"] = limit
    return overrides


def refuse_tasks_outside_preset(config_file: Path | None, tasks: list[str] | None) -> None:
    """One line when ``--tasks`` names tasks a packaged preset does not play (naming them and the
    preset); files of the user's own, and presets without a task list (a catalogue), are left alone."""
    from agentkit.runs.experiment import Experiment
    from agentkit.runs.preset_files import presets
    from agentkit.runs.suite_tasks import expand_task_names, suite_tasks

    if config_file is None or not tasks:
        return
    preset = next((p for p in presets() if p.path.resolve() == config_file.resolve()), None)
    if preset is None:
        return
    try:
        import yaml

        experiment = Experiment.model_validate(yaml.safe_load(preset.path.read_text(encoding="utf-8")))
        own = list(experiment.tasks) + (
            suite_tasks(experiment.env, experiment.suite) if experiment.suite else []
        )
        asked = expand_task_names(experiment.env, tasks)
    except (OSError, ValueError):  # reading the preset again is reported where it is loaded
        return
    if not own:
        return
    known = {_task_key(t) for t in own}
    outside = [t for t in asked if _task_key(t) not in known]
    if not outside:
        return
    shown = ", ".join(outside[:5]) + (f" and {len(outside) - 5} more" if len(outside) > 5 else "")
    where = f"suite {experiment.suite}" if experiment.suite else "its task list"
    fail(
        f"--tasks: {shown} {'is' if len(outside) == 1 else 'are'} not among the {len(own)} tasks of "
        f"preset {preset.name} ({where}); --tasks narrows a preset to some of its tasks; for others "
        f"use `agentkit run --task` or an experiment file of your own"
    )


def _task_key(name: str) -> str:
    """A task name compared as a Testbed id where it is one (``1-4-3`` is ``01-04-03``), else as given."""
    from agentkit.reports.task_ids import canonical_task_id

    try:
        return canonical_task_id(name)
    except ValueError:
        return name


def resolve_experiment(argument: Path | None) -> Path | None:
    """The experiment file an argument names: a file, or a packaged preset's name; one line when neither."""
    from agentkit.runs.preset_files import experiment_path, unknown_experiment_message

    if argument is None:
        return None
    path = experiment_path(argument)
    if not path.exists():
        fail(unknown_experiment_message(argument))
    return path
