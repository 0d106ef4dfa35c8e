"""What `agentkit eval` adds to an experiment file from the command line: presets by name, and
``--tasks``/``--trials``/``--limit`` narrowing the file for a quick or partial run.

Why a module of its own: `agentkit eval`'s command function is long already; these are small pure
steps with their own one-line refusals, testable without running anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentkit.cli_common import emit_json, fail, out


def print_presets(as_json: bool) -> None:
    """The packaged presets, one a line (name and description), or as one JSON document."""
    from agentkit.preset_files import presets

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


def resolve_experiment(argument: Path | None) -> Path | None:
    """The experiment file an argument names: a file, or a packaged preset's name; one line when neither."""
    from agentkit.preset_files import experiment_path, unknown_experiment_message

    if argument is None:
        return None
    path = experiment_path(argument)
    if not path.exists():
        fail(unknown_experiment_message(argument))
    return path
