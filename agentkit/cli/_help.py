"""Short `--help` for the commands with many options, and `--help-all` for every one of them.

Why: `agentkit run --help` was 355 lines at 80 columns, its flags and examples cut with "…" in a
boxed layout whose help column was 20 characters wide (issue 30 item 3). Now every command's help
is Click's plain layout, which wraps between words at the terminal's width and never cuts a word,
and `run`, `eval` and `play` list only the options a researcher reaches for first; the others
still work, are listed by ``--help-all``, and are described in docs/cli.md, which the last line of
the short help points to.
"""

from __future__ import annotations

from typing import Any, cast

import typer

#: Every Typer app of the command line uses Click's plain help layout (no rich boxes).
HELP_LAYOUT: dict[str, Any] = {"rich_markup_mode": None}


def _keep_hyphenated_words_whole() -> None:
    """Make the help's line wrapping break only at spaces: Click's wrapper (textwrap's defaults)
    also breaks after a hyphen, which splits a flag named in a help text ("--aai-" / "build").

    Typer carries its own copy of Click (``typer._click``); older Typers use Click itself. The
    wrapper class is looked up each time help is wrapped, so replacing it here is enough;
    tests/test_cli_80_columns.py fails if a flag is split again.
    """
    import importlib
    import textwrap

    for name in ("typer._click._textwrap", "click._textwrap"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        base: type[textwrap.TextWrapper] = vars(module)["TextWrapper"]
        if getattr(base, "keeps_hyphenated_words", False):
            continue

        class WholeWords(base):  # type: ignore[misc, valid-type]  # a class chosen at run time
            keeps_hyphenated_words = True

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                kwargs.setdefault("break_on_hyphens", False)
                super().__init__(*args, **kwargs)

        vars(module)["TextWrapper"] = WholeWords


_keep_hyphenated_words_whole()

#: The run-setting flags (agentkit.cli._run_options) kept in the short help; the rest are hidden
#: there and shown by --help-all.
BRIEF_RUN_FLAGS = frozenset({"name", "max_concurrency"})


def pointer(command: str) -> str:
    """The short help's last line: where the options it leaves out are."""
    return f"More options: `agentkit {command} --help-all`, and docs/cli.md."


def _show_every_option(ctx: typer.Context, value: bool) -> None:
    """--help-all: the command's help with its hidden options shown, then exit."""
    if not value or ctx.resilient_parsing:
        return
    for param in ctx.command.params:
        cast(Any, param).hidden = False  # options have it; arguments are never hidden
    ctx.command.epilog = None  # the pointer to the rest has nothing left to point to
    typer.echo(ctx.get_help(), color=ctx.color)
    raise typer.Exit()


#: The ``--help-all`` option of a command with a short help (its options left out of the short
#: help are declared ``typer.Option(..., hidden=True)``).
HELP_ALL: Any = typer.Option(
    False,
    "--help-all",
    is_eager=True,
    expose_value=False,
    callback=_show_every_option,
    help="Show every option and exit.",
)
