"""The `agentkit` command: the app, its global options, and every command module registered.

Each command lives in a module of this package (``run.py`` is `agentkit run`, ``eval.py`` is
`agentkit eval`, ...) with a ``register(app)``; code they share is in the ``_`` helpers.

Human-readable lines go to stdout; with --json, stdout holds exactly one JSON document and every
log line, warning and progress bar goes to stderr.
"""

from __future__ import annotations

import logging
import sys

import typer

from agentkit.cli._common import fail
from agentkit.cli._help import HELP_LAYOUT
from agentkit.cli._logging import LOG_LEVEL_HELP, hoist_log_level, setup_logging
from agentkit.cli.db import register as register_db
from agentkit.cli.eval import register as register_eval
from agentkit.cli.play import register as register_play
from agentkit.cli.replay import register as register_replay
from agentkit.cli.report import register as register_report
from agentkit.cli.run import register as register_run
from agentkit.cli.tasks import register as register_tasks
from agentkit.cli.templates import register as register_templates
from agentkit.cli.transcripts import register as register_transcripts
from agentkit.cli.view import register as register_view

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Embody language models in simulated worlds and measure them.",
    **HELP_LAYOUT,
)

log = logging.getLogger("agentkit")
_fail = fail


def _setup_logging(verbose: bool, log_level: str | None = None) -> None:
    try:
        setup_logging(verbose, log_level)
    except ValueError as exc:
        _fail(str(exc))


@app.callback()
def _main(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Debug logging on stderr."),
    log_level: str | None = typer.Option(None, "--log-level", help=LOG_LEVEL_HELP),
) -> None:
    _setup_logging(verbose, log_level)


# One module per verb, registered in the order --help lists them; view comes after replay, to
# give it its --live-from option (agentkit.cli.view).
register_run(app)
register_replay(app)
register_tasks(app)
register_transcripts(app)
register_view(app)
register_report(app)
register_eval(app)
register_templates(app)
register_db(app)
register_play(app)


def main() -> None:
    args = hoist_log_level(sys.argv[1:])  # --log-level works after the command name too
    try:
        app(args=args)
    except Exception as exc:
        # A damaged database (JSON that does not parse, a malformed page) met anywhere in a read:
        # one line naming it (agentkit.store_access.read_errors); anything else keeps its traceback.
        from agentkit.store_access.read_errors import damaged_store_line, db_option

        line = damaged_store_line(exc, db_option(args))
        if line is None:
            raise
        try:
            _fail(line)
        except typer.Exit as stop:
            sys.exit(stop.exit_code)
