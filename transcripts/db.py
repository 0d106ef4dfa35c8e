"""Engine set-up for the transcript store: SQLite tuned for many short, crash-safe writes.

SQLite is the default because a transcript store should need no server: one file in the working
directory. Several processes (parallel runs, a viewer) may open that file at once, so every
connection is put in WAL mode (readers never block the writer) with a generous busy timeout
(writers queue instead of failing), ``synchronous=NORMAL`` (a commit in WAL mode survives a process
crash; only a power loss can drop the last commits) and enforced foreign keys.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import sys
from dataclasses import asdict, is_dataclass
from enum import Enum
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url

from agentkit.transcripts import stored_json
from agentkit.transcripts.db_upgrade import Upgrade, backup_if_older, bring_up_to_date
from agentkit.transcripts.foreign_objects import refuse_foreign_objects
from agentkit.transcripts.schema_version import check_readable, stored_version
from agentkit.transcripts.sqlite_driver import sqlite_connection
from agentkit.transcripts.wal_check import check_wal

log = logging.getLogger(__name__)

DEFAULT_DB_FILE = "agentkit.db"
# The PostgreSQL advisory lock taken while tables are created or migrated (any fixed 64-bit number
# that no other application of the database uses; these are the ASCII bytes of "agentkit").
_SCHEMA_LOCK_KEY = int.from_bytes(b"agentkit", "big") & 0x7FFF_FFFF_FFFF_FFFF
BUSY_TIMEOUT_MS = 30_000
# Checkpoint the WAL every 32 MB instead of every 4 MB: turns carry images, and copying the log back
# into the database eight times as often costs a quarter of a turn's write time. (A store's own
# writer leaves checkpoints to a thread: agentkit.transcripts.wal_checkpointer.)
WAL_AUTOCHECKPOINT_PAGES = 8192

_PRAGMAS = (
    # busy_timeout first, so that switching the journal mode also waits for other connections.
    f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}",
)


def resolve_url(url: str | URL) -> URL:
    """``url`` as SQLAlchemy should open it: a bare ``postgresql://`` names psycopg 3 (the
    ``postgres`` extra), not SQLAlchemy's default psycopg2, which agentkit does not install."""
    sa_url = make_url(url)
    if sa_url.drivername == "postgresql":
        sa_url = sa_url.set(drivername="postgresql+psycopg")
    return sa_url


def default_url() -> str:
    """``sqlite:///<cwd>/agentkit.db``, resolved now: never a path inside the installed package."""
    return f"sqlite:///{Path.cwd() / DEFAULT_DB_FILE}"


def json_default(obj: Any) -> Any:
    """Make the values a turn record may carry (numpy scalars and arrays, enums, paths) JSON-able."""
    if isinstance(obj, Enum):
        return obj.value
    if hasattr(obj, "tolist"):  # numpy arrays and scalars
        return obj.tolist()
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=repr)
    if isinstance(obj, Path):
        return str(obj)
    if is_dataclass(obj) and not isinstance(obj, type):
        return asdict(obj)
    if isinstance(obj, bytes):
        raise TypeError("raw bytes are not stored inside JSON columns; store them as a blob")
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


# Built once: json.dumps with keyword arguments builds a new encoder on every call (hot path).
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=json_default)
_CANONICAL_ENCODER = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=json_default
)
# JSONEncoder.encode still makes a new C encoder object on every call (a third of the time for the
# small values a turn row holds, 7 per turn); these are made once, with the same settings as the
# two encoders above. Without circular-reference markers (they would be shared between threads):
# a value that contains itself fails with RecursionError instead of ValueError.
# (``c_make_encoder`` is what JSONEncoder itself uses; None on an interpreter without the C module.)
_FAST = (
    c_make_encoder(None, json_default, encode_basestring, None, ": ", ", ", False, False, True)
    if c_make_encoder is not None
    else None
)
_FAST_CANONICAL = (
    c_make_encoder(None, json_default, encode_basestring, None, ":", ",", True, False, True)
    if c_make_encoder is not None
    else None
)


def dumps(obj: Any) -> str:
    """The JSON encoding used for every JSON column (tolerant of numpy values)."""
    if _FAST is None:
        return _ENCODER.encode(obj)
    if isinstance(obj, str):  # as JSONEncoder.encode does
        return encode_basestring(obj)
    return "".join(_FAST(obj, 0))


def canonical_json(obj: Any) -> bytes:
    """The byte form whose SHA-256 addresses a JSON value: sorted keys, no spaces, UTF-8."""
    if _FAST_CANONICAL is None:
        return _CANONICAL_ENCODER.encode(obj).encode("utf-8")
    if isinstance(obj, str):
        return encode_basestring(obj).encode("utf-8")
    return "".join(_FAST_CANONICAL(obj, 0)).encode("utf-8")


def make_engine(url: str | None = None, *, create_tables: bool = True, echo: bool = False) -> Engine:
    """An engine for ``url`` (default: ``agentkit.db`` in the current directory), tables created
    and the schema version recorded (``schema_version``; a newer agentkit's database is refused).

    Any SQLAlchemy URL works as given; SQLite connections get the pragmas and transaction mode
    described in the module docstring.
    """
    url = url or default_url()
    sa_url = resolve_url(url)
    sqlite = sa_url.get_backend_name() == "sqlite"
    if (
        sqlite
        and sa_url.database
        and sa_url.database != ":memory:"
        and not sa_url.database.startswith("file:")
    ):
        Path(sa_url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        check_wal(Path(sa_url.database).expanduser())  # another database's -wal: refused, not applied
    # Every JSON column read back fails in one line naming its row (agentkit.transcripts.stored_json).
    engine = create_engine(sa_url, echo=echo, json_serializer=dumps, json_deserializer=stored_json.loads)
    if sqlite:
        event.listen(engine, "connect", _on_sqlite_connect)
    if create_tables:
        _create_tables(engine)
    log.debug("transcript store engine ready: %s", engine.url.render_as_string(hide_password=True))
    return engine


def upgrade_database(url: str) -> Upgrade:
    """Open ``url`` for writing as a store would, and say what that did: the version found, the
    migration steps applied, the SQLite backup made (``agentkit db upgrade``)."""
    engine = make_engine(url, create_tables=False)
    try:
        return _create_tables(engine)
    finally:
        engine.dispose()


def _create_tables(engine: Engine) -> Upgrade:
    """Tables created, an older schema migrated (agentkit.transcripts.db_upgrade), columns checked."""
    try:
        with engine.connect() as conn:
            backup = backup_if_older(conn)  # a SQLite file of an older schema, copied aside first
        with engine.begin() as conn:
            # Write-locked from the start, so two processes opening the same fresh file do not
            # both find the tables missing and collide on CREATE TABLE (nor both migrate it).
            begin_write(conn)
            if conn.dialect.name == "postgresql":
                # PostgreSQL has no database-wide write lock: writers opening one store at once
                # (workers of a sweep) queue on this transaction-scoped lock instead.
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_SCHEMA_LOCK_KEY})")
            # Before anything is created or migrated: a trigger, a view or any object agentkit did
            # not make could rewrite or shadow what it stores (agentkit.transcripts.foreign_objects).
            # A newer agentkit's database is named as such first: its new tables are not foreign.
            check_readable(stored_version(conn))
            refuse_foreign_objects(conn)
            return bring_up_to_date(conn, backup)
    except BaseException:
        engine.dispose()
        raise


def _on_sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    """Pragmas, and the transaction mode, of every new SQLite connection.

    The sqlite3 driver (in its default "legacy" transaction control) opens a transaction only in
    front of INSERT/UPDATE/DELETE, with the BEGIN variant named by ``isolation_level``. Asking for
    IMMEDIATE makes every write take the write lock at its first statement, where the busy timeout
    applies; a deferred transaction that has to upgrade a read lock can instead fail at once with
    "database is locked". Reads stay outside transactions and never block anyone (WAL). This costs
    nothing per statement, unlike SQLAlchemy's "begin" event recipe, which slows the add_turn hot
    path by a third.
    """
    if sys.version_info >= (3, 12) and hasattr(
        dbapi_connection, "autocommit"
    ):  # keep the legacy control explicitly
        dbapi_connection.autocommit = sqlite3.LEGACY_TRANSACTION_CONTROL
    dbapi_connection.isolation_level = "IMMEDIATE"
    cursor = dbapi_connection.cursor()
    try:
        for pragma in _PRAGMAS:
            cursor.execute(pragma)
        mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        cursor.close()
    if mode.lower() not in ("wal", "memory"):
        log.warning("SQLite journal mode is %r, not WAL (file system without shared memory?)", mode)


def begin_write(conn: Connection) -> None:
    """Take SQLite's write lock now, for a transaction that reads before it writes.

    Call first thing inside ``conn.begin()``. A no-op on other databases.
    """
    if conn.dialect.name == "sqlite" and not sqlite_connection(conn).in_transaction:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
