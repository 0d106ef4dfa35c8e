"""`agentkit db upgrade --db URL`: bring a transcript database made by an older agentkit up to date.

Why: writers upgrade an older database when they open it, but a lab upgrades a shared store once,
on purpose, before many workers open it (and readers such as ``view`` never change a database).
The command says what it found and did, the SQLite backup it made first included; a newer or a
hand-damaged database is refused in one line (agentkit.transcripts.db_upgrade).
"""

from __future__ import annotations

import typer

from agentkit.cli_common import emit_json, err, fail

db_app = typer.Typer(no_args_is_help=True, help="Upgrade a transcript database made by an older agentkit.")


@db_app.command("upgrade")
def db_upgrade(
    db: str = typer.Option(None, "--db", help="The database (a SQLAlchemy URL; default: agentkit.db here)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object on stdout."),
) -> None:
    """Migrate the database in place to this agentkit's schema (a SQLite file is copied aside first)."""
    from agentkit.db_argument import DatabaseArgumentError, check_db, opening, shown
    from agentkit.transcripts.db import upgrade_database

    try:
        url = check_db(db, writing=True)
        with opening(url):
            done = upgrade_database(url)
    except DatabaseArgumentError as exc:
        fail(str(exc))
    if as_json:
        emit_json(
            {
                "db": shown(url),
                "found": done.found,
                "version": done.version,
                "steps": done.steps,
                "backup": str(done.backup) if done.backup else None,
            }
        )
        return
    if done.found is None:
        err.print(f"{shown(url)}: new database created at schema {done.version}", markup=False)
    elif not done.changed:
        err.print(f"{shown(url)}: already at schema {done.version}; nothing to do", markup=False)
    else:
        backup = f" (backup: {done.backup})" if done.backup else ""
        err.print(f"{shown(url)}: upgraded from schema {done.found} to {done.version}{backup}", markup=False)


def register(app: typer.Typer) -> None:
    """Add the `db` group (with `upgrade`) to the main app."""
    app.add_typer(db_app, name="db")
