"""`agentkit tasks ENV` prints what rich would print for the backend's own tasks, and reads at 80 columns.

Why: the listing reads a light catalogue and writes a table that fits its lines itself
(agentkit/cli/_task_list.py); researchers and scripts read this output, so it must be the table rich
lays out (``task_table``) for the backend's own tasks() and suites(), character for character.
At 80 columns no id is cut and no line is longer (issue 30 item 3).
"""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from rich.table import Table

from agentkit.cli._task_list import HEADERS, plain_table_lines, print_table, task_table
from agentkit.envs.registry import catalogue_from_backend
from agentkit.testing.cli_runner import cli_env, run_cli


def _console(width: int = 80, **kwargs) -> Console:
    return Console(file=io.StringIO(), highlight=False, soft_wrap=True, width=width, **kwargs)


def _rich_text(title: str, rows: list[tuple[str, ...]], width: int = 80) -> str:
    """The table as rich lays it out (``task_table``: ids whole, descriptions wrapped)."""
    console = _console(width)
    console.print(task_table(title, rows, width))
    return console.file.getvalue()


def _former_listing(env: str) -> str:
    """`agentkit tasks ENV` as the command printed it before the light catalogue."""
    catalogue = catalogue_from_backend(env)
    console = _console()
    for name, members in sorted(catalogue.suites.items()):
        console.print(f"suite [bold]{name}[/bold]: {len(members)} tasks")
    text = console.file.getvalue()
    return text + _rich_text(f"{env} tasks", [(t.name, t.category, t.description) for t in catalogue.tasks])


@pytest.mark.parametrize("env", ["aai-arena", "gridworld", "trifinger"])
def test_the_listing_and_its_json_are_unchanged(env, tmp_path):
    environment = cli_env()
    environment.pop("COLUMNS", None)
    environment.pop("FORCE_COLOR", None)
    table = run_cli(["tasks", env], tmp_path, env=environment)
    assert table.stdout == _former_listing(env)
    listed = json.loads(run_cli(["tasks", env, "--json"], tmp_path, env=environment).stdout)
    assert listed == [
        {"name": t.name, "category": t.category, "description": t.description}
        for t in catalogue_from_backend(env).tasks
    ]


def test_an_unknown_env_is_one_line(tmp_path):
    done = run_cli(["tasks", "nope"], tmp_path, check=False)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.strip() == (
        "error: unknown env 'nope'; known: aai-arena, animalai, gridworld, trifinger "
        "(backends: aai-arena, animalai, gridworld, trifinger)"
    )


@pytest.mark.parametrize(
    "rows",
    [
        [("01-01-01", "level 01", "Animal-AI Testbed task 01-01-01"), ("10-30-03", "level 10", "x")],
        [("a", "", "an empty category"), ("a longer name than its header", "c", "d")],
        [("w" * 20, "c" * 20, "d" * 30)],  # exactly 80 columns
    ],
)
def test_the_plain_lines_are_riches(rows):
    console = _console()
    lines = plain_table_lines(console, "some tasks", rows)
    assert lines is not None
    assert "".join(line + "\n" for line in lines) == _rich_text("some tasks", rows)


@pytest.mark.parametrize(
    "rows",
    [
        [("w" * 20, "c" * 20, "d" * 31)],  # 81 columns: rich wraps a cell
        [("a", "b", "[bold]markup[/bold]")],
        [("a", "b", "an emoji :smile: code")],
        [("a", "b", "two\nlines")],
        [("a", "b", " padded")],
        [("café", "b", "not ASCII")],
    ],
)
def test_what_rich_would_change_goes_through_rich(rows):
    console = _console()
    assert plain_table_lines(console, "some tasks", rows) is None
    print_table(console, "some tasks", rows)
    assert console.file.getvalue() == _rich_text("some tasks", rows)


def test_the_plain_lines_are_a_default_rich_tables():
    """Where every cell fits, the plain writer's lines are those of rich's default Table too."""
    rows = [("01-01-01", "level 01", "Animal-AI Testbed task 01-01-01")]
    console = _console()
    table = Table(title="some tasks")
    for header in HEADERS:
        table.add_column(header)
    table.add_row(*rows[0])
    console.print(table)
    assert "".join(line + "\n" for line in plain_table_lines(_console(), "some tasks", rows)) == (
        console.file.getvalue()
    )


@pytest.mark.parametrize("env", ["gridworld", "trifinger", "aai-arena"])
def test_at_80_columns_no_line_is_longer_and_no_id_is_cut(env, tmp_path):
    """Issue 30 item 3: `tasks gridworld` printed `gridworld/goto-object-e…` at 80 columns."""
    done = run_cli(["tasks", env], tmp_path, env=cli_env(COLUMNS="80"))
    lines = done.stdout.splitlines()
    assert max(map(len, lines)) <= 80 and "…" not in done.stdout
    shown = {cell.strip() for line in lines for cell in line.split("│")}
    names = [t.name for t in catalogue_from_backend(env).tasks]
    assert [n for n in names if n not in shown] == []  # every id whole, in a cell of its own


def test_a_terminal_gets_riches_table():
    rows = [("a", "b", "c")]
    console = _console(force_terminal=True, color_system="standard")
    assert plain_table_lines(console, "some tasks", rows) is None
    print_table(console, "some tasks", rows)
    assert "\x1b[" in console.file.getvalue()  # styled by rich (bold header, italic title)
