"""Exit codes of `agentkit run` and `agentkit eval`, and the one line a stopped or interrupted run ends with.

Why: a script driving many runs must tell a run that played everything from one that stopped
early (a model failing episode after episode, a run budget) without reading the output, and a
researcher who pressed Ctrl-C needs the run id to continue. The codes:

- 0: the run completed (every planned episode was played, whatever its outcome)
- 1: the transcript store could not write; the run stopped (``agentkit run|eval --resume RUN``)
- 2: bad input (an option, a file, a missing API key, a server nobody listens on): nothing ran
- 3: the run stopped early: ``max_consecutive_model_errors`` episodes in a row ended in model
  errors, or a run-wide limit (``run_max_cost_usd``, ``run_max_tokens``, ``run_max_wall_s``)
- 130: interrupted (Ctrl-C)

The line names the resume of the command that was run (``command``: "run" or "eval"); either
command resumes any run.
"""

from __future__ import annotations

from typing import Any, NoReturn

import typer

from agentkit.cli._common import err
from agentkit.store_access.storage_fix import storage_fix

EXIT_STORAGE_ERROR = 1
EXIT_BAD_INPUT = 2
EXIT_STOPPED = 3
EXIT_INTERRUPTED = 130


def exit_if_stopped(summary: Any, command: str = "eval") -> None:
    """End the command with EXIT_STOPPED and one line when the run stopped before playing everything."""
    if summary.stopped is None:
        return
    reason = getattr(summary, "stop_message", None) or summary.stopped.value
    err.print(
        f"run {summary.run_id} stopped: {reason}; what was played is kept: continue with "
        f"`agentkit {command} --resume {summary.run_id}`",
        markup=False,
    )
    raise typer.Exit(EXIT_STOPPED)


def exit_store_failed(summary: Any, command: str = "eval") -> NoReturn:
    """End the command with EXIT_STORAGE_ERROR and one line when the store could not write: the run
    stopped, what was written is kept, and the line names the command that continues it."""
    error = summary.error or "the transcript store cannot write"
    err.print(
        f"[red]error:[/red] {error}; run {summary.run_id} stopped, what was written is kept: "
        f"{storage_fix(error)}, then `agentkit {command} --resume {summary.run_id}`"
    )
    raise typer.Exit(EXIT_STORAGE_ERROR)


def exit_interrupted(run_id: str | None, command: str = "eval") -> NoReturn:
    """The one line after Ctrl-C: the run id and the command that continues it."""
    if run_id:
        err.print(
            f"interrupted: run {run_id} kept; continue with `agentkit {command} --resume {run_id}`",
            markup=False,
        )
    else:
        err.print("interrupted before the run was created", markup=False)
    raise typer.Exit(EXIT_INTERRUPTED)
