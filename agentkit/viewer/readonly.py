"""Open a transcript store that cannot write, for the viewer and the static export.

Why: the viewer is pointed at databases that runs are still writing, and at copies that
researchers share. It must never change them, not even by creating tables or switching the
journal mode the way ``make_engine`` does on a writable store. SQLite files are therefore opened
through a ``mode=ro`` URI with ``PRAGMA query_only`` on top (two independent locks); server
databases get read-only transactions where the dialect supports them.

A copy on read-only media (or in a folder this user cannot write) cannot be opened that way: a
WAL database's readers need its ``-shm`` file, which SQLite cannot create there. Such a file is
opened ``immutable=1`` (no sidecar files, no locks: nobody can be writing it); if a ``-wal`` file
beside it holds changes not yet in the database, which an immutable open would silently ignore,
the two are copied to a private temporary folder and that copy is read instead.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import QueuePool

from agentkit.transcripts import TranscriptStore, stored_json
from agentkit.transcripts.db import BUSY_TIMEOUT_MS, default_url, dumps, resolve_url
from agentkit.transcripts.image_packs import folder_beside, register_folder
from agentkit.transcripts.wal_check import check_wal

log = logging.getLogger(__name__)


class DatabaseNotFound(FileNotFoundError):
    """The SQLite file named by the URL does not exist (a read-only open must not create it)."""


def readonly_engine(url: str | None = None) -> Engine:
    """An engine on ``url`` (default: ``agentkit.db`` in the working directory) that refuses writes."""
    sa_url = resolve_url(url or default_url())  # a bare postgresql:// opens psycopg 3, as writers do
    if sa_url.get_backend_name() == "sqlite":
        return _sqlite_readonly(sa_url.database or "")
    options: dict[str, Any] = {}
    if sa_url.get_backend_name() == "postgresql":
        options["postgresql_readonly"] = True
    else:
        log.warning(
            "%s has no read-only mode here: the viewer only ever reads, but the database does not enforce it",
            sa_url.get_backend_name(),
        )
    return create_engine(
        sa_url, json_serializer=dumps, json_deserializer=stored_json.loads, execution_options=options
    )


def _sqlite_readonly(database: str) -> Engine:
    if not database or database == ":memory:" or database.startswith("file:"):
        raise ValueError("reading transcripts needs a SQLite file path (sqlite:///path/to/agentkit.db)")
    path = Path(database).expanduser().resolve()
    if not path.is_file():
        raise DatabaseNotFound(f"no transcript database at {path}")
    check_wal(path)  # another database's -wal beside it: refused before SQLite applies it
    uri = readonly_uri(path)

    def connect() -> sqlite3.Connection:
        # check_same_thread=False: the pool hands connections to the server's request threads,
        # one at a time.
        return sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)

    engine = create_engine(
        "sqlite+pysqlite://",
        creator=connect,
        poolclass=QueuePool,
        pool_size=4,
        max_overflow=8,
        json_serializer=dumps,
        json_deserializer=stored_json.loads,  # one line naming a row whose JSON does not parse
    )
    event.listen(engine, "connect", _on_connect)
    register_folder(engine, folder_beside(path))  # a private copy's images stay beside the original
    return engine


def _sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def cannot_write_beside(path: Path) -> bool:
    """Whether SQLite could not create the ``-wal``/``-shm`` files a reader of ``path`` needs.

    ``os.access`` answers for the real file system: a read-only mount is unwritable even to root.
    """
    if os.access(path.parent, os.W_OK):
        return False
    wal, shm = _sidecar(path, "-wal"), _sidecar(path, "-shm")
    return not (wal.exists() and shm.exists() and os.access(wal, os.W_OK) and os.access(shm, os.W_OK))


def readonly_uri(path: Path) -> str:
    """The SQLite URI that reads ``path`` without writing anything, wherever the file lies."""
    if not cannot_write_beside(path):
        return f"{path.as_uri()}?mode=ro"  # as_uri percent-encodes '?' and '#' in the path
    wal = _sidecar(path, "-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        copy = _private_copy(path)
        log.info(
            "%s cannot be opened in place and its -wal file holds changes: reading a copy at %s", path, copy
        )
        return f"{copy.as_uri()}?mode=ro"
    return f"{path.as_uri()}?mode=ro&immutable=1"


def _private_copy(path: Path) -> Path:
    """``path`` and its ``-wal`` copied into a temporary folder removed when the process ends."""
    folder = Path(tempfile.mkdtemp(prefix="agentkit-readonly-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    copy = folder / path.name
    shutil.copyfile(path, copy)
    shutil.copyfile(_sidecar(path, "-wal"), _sidecar(copy, "-wal"))
    return copy


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA query_only=ON")
    finally:
        cursor.close()


def open_readonly(url: str | None = None) -> TranscriptStore:
    """A TranscriptStore whose readers work and whose writers fail (the database refuses them)."""
    return TranscriptStore(engine=readonly_engine(url))
