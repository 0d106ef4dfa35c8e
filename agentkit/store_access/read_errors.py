"""The one line a command ends with when the database it reads is damaged, instead of a traceback.

Why: a shared transcript database can hold a JSON value that does not parse or is nested 200,000
deep, or a corrupted page; ``transcripts list/show/export``, ``view``, ``replay`` and ``report``
met those as RecursionError, JSONDecodeError and "database disk image is malformed" tracebacks,
wherever in their reading they hit them. The CLI's entry point gives such an error to
``damaged_store_line``, which names the database, and the table, row and column of a bad value
(``agentkit.transcripts.stored_json.locate``), or says how to recover a malformed SQLite file.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from agentkit.transcripts.stored_json import StoredJsonError, locate

log = logging.getLogger(__name__)

_MALFORMED = ("database disk image is malformed", "file is not a database")


def db_option(args: list[str]) -> str | None:
    """The value of ``--db`` among a command line's arguments (None: the default database)."""
    for i, arg in enumerate(args):
        if arg == "--db" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--db="):
            return arg[len("--db=") :]
    return None


def malformed_line(db: str) -> str:
    """What to say of a SQLite file SQLite calls malformed: its name and how to recover its rows."""
    from agentkit.store_access.db_argument import shown

    path = make_url(db).database if "://" in db else db
    if path and make_url(db).get_backend_name() == "sqlite":
        file = Path(path).expanduser()
        wal = file.with_name(file.name + "-wal")
        # SQLite reads the file through its log: one from another database reads as damage too.
        aside = f" (or, if {wal} came from another database, move it aside)" if wal.is_file() else ""
        return (
            f"--db {shown(db)}: database disk image is malformed: {file}; recover what it holds with "
            f"`sqlite3 {file} .recover | sqlite3 {file.with_name(file.name + '.recovered')}` and read that"
            + aside
        )
    return f"--db {shown(db)}: the database reports a damaged page (database disk image is malformed)"


def is_malformed(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite saying a page of the file is damaged."""
    inner = exc.orig if isinstance(exc, DBAPIError) else exc
    return isinstance(inner, sqlite3.DatabaseError) and any(m in str(inner) for m in _MALFORMED)


def damaged_store_line(exc: BaseException, db: str | None) -> str | None:
    """One line for an error met reading the database ``db`` (None: not a damaged database)."""
    from agentkit.store_access.db_argument import shown
    from agentkit.transcripts.db import default_url

    url = db or default_url()
    if isinstance(exc, StoredJsonError):
        if exc.where is None:
            place = _place_of(exc, url)
            exc = exc.located(str(place)) if place is not None else exc
        return f"--db {shown(url)}: {exc}"
    if is_malformed(exc):
        return malformed_line(url)
    return None


def _place_of(exc: StoredJsonError, url: str) -> object | None:
    """Where the unreadable value is stored (table, row, column), or None if it cannot be found."""
    from agentkit.viewer.readonly import readonly_engine

    try:
        engine = readonly_engine(url)
        try:
            with engine.connect() as conn:
                return locate(conn, exc.text)
        finally:
            engine.dispose()
    except (SQLAlchemyError, OSError, ValueError) as err:  # looking is a courtesy: the error stands
        log.debug("could not locate the unreadable JSON value: %s", err)
        return None
