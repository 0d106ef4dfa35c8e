"""`agentkit db upgrade --db URL`: bring a transcript database made by an older agentkit up to date.

Why: writers upgrade an older database when they open it, but a lab upgrades a shared store once,
on purpose, before many workers open it (and readers such as ``view`` never change a database).
The command says what it found and did, the SQLite backup it made first included; a newer or a
hand-damaged database is refused in one line (agentkit.transcripts.db_upgrade).

`agentkit db inline-images --db URL`: a SQLite store keeps image bytes in packs beside the file
(agentkit.transcripts.image_packs); this moves them into the database, for sharing a single file
(agentkit.transcripts.image_inlining).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import typer

from agentkit.cli._common import emit_json, err, fail
from agentkit.cli._help import HELP_LAYOUT

db_app = typer.Typer(
    no_args_is_help=True,
    help="Upgrade a transcript database made by an older agentkit; move its images into it.",
    **HELP_LAYOUT,
)


T = TypeVar("T")


def _on_database(db: str | None, action: Callable[[str], T]) -> tuple[str, T]:
    """Run ``action`` on the database ``--db`` names, opened for writing; a bad ``--db`` is one line."""
    from agentkit.store_access.db_argument import DatabaseArgumentError, check_db, opening

    try:
        url = check_db(db, writing=True)
        with opening(url):
            return url, action(url)
    except DatabaseArgumentError as exc:
        fail(str(exc))


@db_app.command("upgrade")
def db_upgrade(
    db: str = typer.Option(None, "--db", help="The database (a SQLAlchemy URL; default: agentkit.db here)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object on stdout."),
) -> None:
    """Migrate the database in place to this agentkit's schema (a SQLite file is copied aside first)."""
    from agentkit.store_access.db_argument import shown
    from agentkit.transcripts.db import upgrade_database

    url, done = _on_database(db, upgrade_database)
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


@db_app.command("inline-images")
def db_inline_images(
    db: str = typer.Option(None, "--db", help="The database (a SQLAlchemy URL; default: agentkit.db here)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object on stdout."),
) -> None:
    """Move image bytes from the packs beside a SQLite database into it, for a single-file copy."""
    from agentkit.store_access.db_argument import shown
    from agentkit.transcripts.image_inlining import inline_images

    url, done = _on_database(db, inline_images)
    folder = str(done.folder) if done.folder else None
    if as_json:
        emit_json(
            {
                "db": shown(url),
                "moved": done.moved,
                "missing": done.missing,
                "bytes": done.bytes_moved,
                "folder": folder,
            }
        )
    else:
        err.print(
            f"{shown(url)}: {done.moved} image(s), {done.bytes_moved / 1e6:.1f} MB, moved into the database"
            + (f"; {done.missing} could not be read from {folder} and stay there" if done.missing else "")
            + (
                f"; {folder} can be removed once no run writes to the database"
                if folder and not done.missing
                else ""
            ),
            markup=False,
        )
    if done.missing:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the `db` group (`upgrade`, `inline-images`) to the main app."""
    app.add_typer(db_app, name="db")
