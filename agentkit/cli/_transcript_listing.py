"""The text of `agentkit transcripts list`: one heading line per run, then a table of its episodes.

Why: the listing was one ten-column table, 98 characters wide at its narrowest, so at 80 columns
rich squeezed every column and broke words mid-way ("statu s", "BabyA I-GoT oLoca l-v0"). The run's
id and model now head its episodes once; status joins the end column (an episode without an end
reason is "running" or "unfinished"); ids and task names are never wrapped; and where the terminal
is still too narrow, the least needed columns (scripts, then end, seed, reward) are left out and a
last line names them (`--json` has everything).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

# Columns in the order shown; those that may be left out, least needed first.
COLUMNS = ("episode", "task", "seed", "outcome", "reward", "end", "scripts")
DROPPABLE = ("scripts", "end", "seed", "reward")
_GAP = 2  # between two columns: the right padding and the (blank) rule


def episode_cells(episode: dict[str, Any]) -> dict[str, str]:
    """One episode's cells by column (``episode`` is its listing JSON, with its ``outcome``)."""
    return {
        "episode": episode["id"],
        "task": episode["task"],
        "seed": str(episode["seed"]),
        "outcome": episode["outcome"],
        "reward": "" if episode["reward"] is None else f"{episode['reward']:.3f}",
        "end": episode["end_reason"] or episode["status"],
        "scripts": str(episode["scripts"] or ""),
    }


def natural_widths(rows: Sequence[dict[str, str]]) -> dict[str, int]:
    """Each column's width with no cell wrapped: its longest cell or its header."""
    return {c: max([len(c), *(len(row[c]) for row in rows)]) for c in COLUMNS}


def fitting_columns(rows: Sequence[dict[str, str]], width: int) -> list[str]:
    """The columns shown at ``width``: all that fit at their natural width, dropping DROPPABLE ones in
    order; the id, task and outcome columns always stay."""
    natural = natural_widths(rows)
    shown = list(COLUMNS)

    def total() -> int:
        return sum(natural[c] for c in shown) + _GAP * (len(shown) - 1)

    for column in DROPPABLE:
        if total() <= width:
            break
        shown.remove(column)
    return shown


def print_listing(console: Console, listing: list[dict[str, Any]]) -> None:
    """Each run's heading (id, env, model, episodes) and its episodes' table, fitted to the console."""
    left_out: set[str] = set()
    for item in listing:
        run = item["run"]
        rows = [episode_cells(e) for e in item["episodes"]]
        count = len(rows)
        console.print(
            f"[bold]run {escape(run['id'])}[/bold]  {escape(run['env'])}  model {escape(run['model'])}  "
            f"{count} episode{'' if count == 1 else 's'}",
            soft_wrap=False,
        )
        if not rows:
            continue
        shown = fitting_columns(rows, console.width)
        left_out.update(c for c in COLUMNS if c not in shown)
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 0), show_edge=False)
        natural = natural_widths(rows)
        for column in shown:
            numeric = column in ("seed", "reward", "scripts")
            whole = column in ("episode", "task")  # copied into other commands: never shortened
            table.add_column(
                column,
                justify="right" if numeric else "left",
                no_wrap=True,
                overflow="fold",
                min_width=natural[column] if whole else None,
            )
        for row in rows:
            table.add_row(*(escape(row[c]) for c in shown))
        console.print(table)
    if left_out:
        names = ", ".join(c for c in DROPPABLE if c in left_out)
        console.print(
            f"not shown at {console.width} columns: {names} (widen the terminal, or --json)", soft_wrap=False
        )
