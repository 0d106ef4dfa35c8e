"""`agentkit replay EPISODE`: re-execute a stored episode from its recorded answers and say
whether the actions and the outcome turn out the same (no model, no network).
"""

from __future__ import annotations

import typer

from agentkit.cli._common import (
    DB_HELP,
    emit_json,
    fail,
    open_reading_store,
    out,
)


def replay(
    episode_id: str = typer.Argument(..., help="Episode to re-execute from its recorded answers."),
    db: str | None = typer.Option(None, help=DB_HELP),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Re-execute an episode with its recorded answers (no network) and check actions and outcome match."""
    from agentkit.offline.replay import replay_episode

    try:
        report = replay_episode(open_reading_store(db), episode_id)
    except (KeyError, ValueError) as exc:
        fail(str(exc))
    if as_json:
        emit_json(report.to_json())
    else:
        from rich.markup import escape

        colour = "green" if report.matches else "red"
        out.print(f"episode {episode_id}: [{colour}]{escape(report.verdict())}[/{colour}]")
        for problem in report.mismatches:
            out.print(f"  - {problem}", markup=False)
    if not report.matches:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add `replay` to the `agentkit` command."""
    app.command()(replay)
