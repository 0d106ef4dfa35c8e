"""`agentkit tasks ENV`: what a backend offers; with ``--protocol`` (trifinger), what a
CausalWorld protocol draws per seed.

The listing itself is ``agentkit.cli._task_list``, imported only when the command runs, so
the command line starts without it.
"""

from __future__ import annotations

import typer
from rich.table import Table

from agentkit.cli._common import (
    emit_json,
    fail,
    out,
)


def tasks(
    env: str = typer.Argument(..., help="Backend name."),
    as_json: bool = typer.Option(False, "--json"),
    protocol: str | None = typer.Option(
        None, "--protocol", help="trifinger: show what this CausalWorld protocol (P0-P12) draws."
    ),
    sample: int = typer.Option(5, "--sample", help="With --protocol: how many seeds (0, 1, ...) to draw."),
    task: str | None = typer.Option(
        None, "--task", help="With --protocol: only this task (default: every task that has it)."
    ),
) -> None:
    """List the tasks a backend offers (trifinger --protocol Pn: what the protocol draws per seed)."""
    if protocol is not None:
        _protocol_preview(env, protocol, sample, task, as_json)
        return
    from agentkit.cli._task_list import list_tasks  # the backend's light catalogue: no simulator, no numpy

    list_tasks(env, as_json)


def _protocol_preview(env: str, protocol: str, sample: int, task: str | None, as_json: bool) -> None:
    """``tasks trifinger --protocol Pn``: block and goal poses, sizes, masses and intervened variables."""
    from agentkit.envs.registry import get_protocol_preview

    try:
        previews = get_protocol_preview(env)
        entries = previews.preview(protocol, sample, task)
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        emit_json(entries)
        return
    # Blocks above goals in one column, so that the intervened variables' names (as wide as their
    # longest word, e.g. tool_block.cylindrical_position) fit beside them in 80 columns, whole.
    rows = [
        (t, seed, f"{blocks}\n{goals}", changed)
        for t, seed, blocks, goals, changed in previews.table_rows(entries)
    ]
    table = Table(title=f"trifinger {protocol}: {sample} seed(s) per task")
    columns = ("task", "seed", "blocks, goals", "intervened")
    longest = [
        max([len(col), *(len(word) for row in rows for word in str(row[i]).split())])
        for i, col in enumerate(columns)
    ]
    # what is left of the width for the poses once the other columns and the borders (3 a column) have theirs
    left = max(out.width - longest[0] - longest[1] - longest[3] - 3 * len(columns) - 1, longest[2])
    for i, col in enumerate(columns):
        whole = col != "blocks, goals"
        table.add_column(
            col, overflow="fold", min_width=longest[i] if whole else None, max_width=None if whole else left
        )
    for row in rows:
        table.add_row(*row)
    out.print(table)


def register(app: typer.Typer) -> None:
    """Add `tasks` to the `agentkit` command."""
    app.command()(tasks)
