"""Check a ``--db`` (or ``db=``) value before any store is opened, so a bad one is one line.

Why: a folder, a text file, a path where nothing can be written or a URL of no known database
kind reached SQLAlchemy as given, and the user met a 20-line traceback ("unable to open database
file", "file is not a database", "Can't load plugin: sqlalchemy.dialects:foo"), sometimes only after
the first episode had been played. These checks read the URL and look at the file; what they
cannot foresee (a server that refuses the login) is caught when the store opens (``opening``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SQLITE_HEADER = (
    b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file (sqlite.org/fileformat.html)
)


# The modules a PostgreSQL URL may need (psycopg 3 is the postgres extra's; psycopg2 if named).
_POSTGRES_DRIVERS = frozenset({"psycopg", "psycopg_binary", "psycopg2"})


class DatabaseArgumentError(ValueError):
    """The database named cannot be used; the message is one line naming it."""


def shown(db: str) -> str:
    """``db`` for a message: any password hidden."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(db).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return db


def check_db(db: str | None, *, writing: bool) -> str:
    """The database URL to open (``db``, or the default ``agentkit.db`` in the working directory), or
    DatabaseArgumentError when it is not a URL, names no known kind of database, or is a SQLite
    path that is a folder or a file that is not a SQLite database (or, with ``writing``, read-only)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    from agentkit.transcripts.db import default_url

    text = db or default_url()
    if "://" not in text:
        raise DatabaseArgumentError(
            f"--db {text}: not a database URL; a SQLite file is written "
            f"sqlite:///{text} (see https://docs.sqlalchemy.org/en/20/core/engines.html)"
        )
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):
        raise DatabaseArgumentError(
            f"--db {text}: not a database URL (a SQLAlchemy URL such as "
            "sqlite:///runs.db or postgresql://host/db)"
        ) from None
    try:
        url.get_dialect()
    except NoSuchModuleError:
        raise DatabaseArgumentError(
            f"--db {shown(text)}: unknown kind of database {url.drivername!r} (SQLAlchemy "
            "knows sqlite, postgresql, mysql, mariadb, oracle, mssql)"
        ) from None
    if url.get_backend_name() == "sqlite":
        _check_sqlite_path(url.database or "", shown(text), writing)
    return text


def _check_sqlite_path(database: str, label: str, writing: bool) -> None:
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database).expanduser()
    if path.is_dir():
        raise DatabaseArgumentError(
            f"--db {label}: {path} is a folder; name a file in it, e.g. sqlite:///{path / 'agentkit.db'}"
        )
    if not path.exists():
        return  # a new store (a reader says the file is missing; a writer creates it)
    if not path.is_file():
        raise DatabaseArgumentError(f"--db {label}: {path} is not a regular file")
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise DatabaseArgumentError(f"--db {label}: cannot read {path} ({exc.strerror or exc})") from None
    if header and header != SQLITE_HEADER:
        raise DatabaseArgumentError(f"--db {label}: {path} is not a SQLite database")
    if writing and not os.access(path, os.W_OK):
        raise DatabaseArgumentError(
            f"--db {label}: {path} is read-only for this user (runs cannot be written to it)"
        )


def _reason(exc: BaseException) -> str:
    """The first line of what the driver said (SQLAlchemy wraps it with its own lines)."""
    inner = getattr(exc, "orig", None) or exc
    text = str(inner).strip().splitlines()
    return (text[0] if text else type(inner).__name__)[:300]


@contextmanager
def opening(db: str) -> Iterator[None]:
    """Turn what fails while a store opens (no driver, a folder that cannot be made, a file that
    cannot be opened or written) into DatabaseArgumentError naming ``db``."""
    from sqlalchemy.exc import SQLAlchemyError

    from agentkit.transcripts.foreign_objects import ForeignObjectError
    from agentkit.transcripts.schema_check import SchemaMismatchError
    from agentkit.transcripts.schema_version import SchemaVersionError
    from agentkit.transcripts.wal_check import ForeignWalError

    try:
        yield
    # newer agentkit, a table changed by hand, objects agentkit did not create (a trigger, a view),
    # another database's -wal file beside it
    except (SchemaVersionError, SchemaMismatchError, ForeignObjectError, ForeignWalError) as exc:
        raise DatabaseArgumentError(f"--db {shown(db)}: {exc}") from None
    except ModuleNotFoundError as exc:
        if exc.name in _POSTGRES_DRIVERS:
            raise DatabaseArgumentError(
                f"--db {shown(db)}: the PostgreSQL driver (psycopg 3) is not installed: "
                "pip install 'agentkit-embodied[postgres]'"
            ) from None
        raise DatabaseArgumentError(
            f"--db {shown(db)}: its database driver is not installed (no module {exc.name!r}; pip install it)"
        ) from None
    except PermissionError as exc:
        raise DatabaseArgumentError(
            f"--db {shown(db)}: cannot write {exc.filename or 'there'} "
            f"({exc.strerror or 'permission denied'})"
        ) from None
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise DatabaseArgumentError(f"--db {shown(db)}: cannot open{where} ({exc.strerror or exc})") from None
    except SQLAlchemyError as exc:
        from agentkit.store_access.read_errors import is_malformed, malformed_line

        if is_malformed(exc):  # a damaged page: say how to recover its rows
            raise DatabaseArgumentError(malformed_line(db)) from None
        raise DatabaseArgumentError(f"--db {shown(db)}: cannot open the database ({_reason(exc)})") from None
