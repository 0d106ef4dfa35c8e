"""`agentkit tasks ENV`: a backend's suites and tasks, listed without starting the backend.

Why a module of its own: a researcher lists tasks often, and issue 18 asks for <= 0.8 s. The list
comes from the backend's light task catalogue (``agentkit.envs.registry.task_catalogue``: no
simulator, no numpy), and when stdout is not a terminal, a table whose every cell fits on its line
is written here line by line: rich spends ~0.2 s laying out the Testbed's 900 rows, yet such a
table is only column widths. The lines are exactly rich's (tests/test_cli_tasks_listing.py
compares them); a table rich would wrap or style, or with text rich would read as markup or emoji,
still goes through rich, as ``task_table`` lays it out: task ids are never cut (issue 30 item 3:
``gridworld/goto-object-e…`` at 80 columns), descriptions wrap between words, and where the
terminal cannot hold a category column the category leads the description instead.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from rich.console import Console

from agentkit.cli._common import emit_json, fail, out

HEADERS = ("task", "category", "description")
# The narrowest description column worth keeping a separate category column for.
_MIN_DESCRIPTION = 30

# Cells the plain writer takes: printable ASCII that rich shows as it is (no "[" markup, no ":"
# emoji codes, no tabs or newlines).
_PLAIN = frozenset(string.ascii_letters + string.digits + " !\"#$%&'()*+,-./;<=>?@\\]^_`{|}~")


def list_tasks(env: str, as_json: bool) -> None:
    """Print backend ``env``'s suites and task table (or, with --json, its tasks as one JSON list)."""
    from agentkit.envs.registry import available_backends, task_catalogue

    try:
        catalogue = task_catalogue(env)
    except ValueError as exc:
        fail(f"{exc} (backends: {', '.join(available_backends())})")
    if as_json:
        emit_json(
            [{"name": t.name, "category": t.category, "description": t.description} for t in catalogue.tasks]
        )
        return
    for name, members in sorted(catalogue.suites.items()):
        out.print(f"suite [bold]{name}[/bold]: {len(members)} tasks")
    print_table(out, f"{env} tasks", [(t.name, t.category, t.description) for t in catalogue.tasks])


def print_table(console: Console, title: str, rows: Sequence[tuple[str, ...]]) -> None:
    """``rows`` under HEADERS as rich's Table prints them on ``console``, written directly when it can."""
    lines = plain_table_lines(console, title, rows)
    if lines is not None:
        console.file.write("".join(line + "\n" for line in lines))
        return
    console.print(task_table(title, rows, console.width))


def task_table(title: str, rows: Sequence[tuple[str, ...]], width: int) -> Any:
    """The rich Table of ``rows`` (task, category, description) for a console ``width`` wide: the
    task column never wraps nor shortens, the description wraps between words (a word longer than
    its column is folded, never cut), and the category joins the description when a column of its
    own would leave the description less than ``_MIN_DESCRIPTION`` characters."""
    from rich.table import Table

    name_width = max((len(row[0]) for row in rows), default=4)
    category_width = max((len(row[1] or "") for row in rows), default=8)
    description_width = min(max((len(row[2] or "") for row in rows), default=11), _MIN_DESCRIPTION)
    borders = 3 * len(HEADERS) + 1  # "│ " before and " " after every cell, and the last edge
    with_category = name_width + category_width + description_width + borders <= width
    table = Table(title=title)
    table.add_column(HEADERS[0], no_wrap=True, min_width=name_width)
    if with_category:
        table.add_column(HEADERS[1], no_wrap=True)
    table.add_column(HEADERS[2], overflow="fold")
    for name, category, description in rows:
        if with_category:
            table.add_row(name, category, description)
        else:
            table.add_row(name, f"{category}: {description}" if category else description)
    return table


def plain_table_lines(console: Console, title: str, rows: Sequence[tuple[str, ...]]) -> list[str] | None:
    """The lines of rich's default table (heavy head) when no cell wraps and nothing is styled, else None."""
    if console.is_terminal or console.color_system is not None or not console.soft_wrap or not rows:
        return None
    cells = [HEADERS, *rows]
    if any(len(row) != len(HEADERS) for row in rows):
        return None
    if not all(_PLAIN.issuperset(text) and text == text.strip() for row in cells for text in (title, *row)):
        return None
    widths = [max(len(row[i]) for row in cells) for i in range(len(HEADERS))]
    if sum(widths) + 3 * len(widths) + 1 > console.width:
        return None  # rich would shrink a column and wrap its cells

    def line(row: tuple[str, ...], edge: str) -> str:
        return edge + edge.join(f" {text:<{w}} " for text, w in zip(row, widths)) + edge

    def rule(left: str, fill: str, cross: str, right: str) -> str:
        return left + cross.join(fill * (w + 2) for w in widths) + right

    return [
        title,
        rule("┏", "━", "┳", "┓"),
        line(HEADERS, "┃"),
        rule("┡", "━", "╇", "┩"),
        *(line(row, "│") for row in rows),
        rule("└", "─", "┴", "┘"),
    ]
