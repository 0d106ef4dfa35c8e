"""Bring an opened transcript database to this agentkit's schema: migrate, create, check, stamp.

Why one place: writers (every ``TranscriptStore``) upgrade automatically when they open an older
database, and ``agentkit db upgrade`` does the same on demand and reports it; both must back up a
SQLite file first, refuse a newer version and a hand-damaged table in one line, and do it all
before the first row is written (``run`` must not leave a run row behind a schema it cannot use).
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy.engine import Connection

from agentkit.transcripts.migrations import run_steps
from agentkit.transcripts.schema import Base
from agentkit.transcripts.schema_check import check_columns
from agentkit.transcripts.schema_version import SCHEMA_VERSION, check_readable, stamp, stored_version
from agentkit.transcripts.sqlite_driver import sqlite_connection

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Upgrade:
    """What opening for writing did: the version found (None: a new database), the one now
    recorded, the migration steps applied, and the SQLite backup made first (if any)."""

    found: int | None
    version: int
    steps: list[int] = field(default_factory=list)
    backup: Path | None = None

    @property
    def changed(self) -> bool:
        return self.found != self.version


def bring_up_to_date(conn: Connection, backup: Path | None = None) -> Upgrade:
    """Inside a write transaction (SQLite: write-locked): refuse a newer database, migrate an
    older one, create missing tables, check the columns, record the version. ``backup``: the copy
    ``backup_if_older`` made just before, reported with the upgrade."""
    found = stored_version(conn)
    check_readable(found)  # a newer agentkit's database: refused before anything is added
    steps: list[int] = []
    if found is not None and found < SCHEMA_VERSION:
        check_columns(conn, found, upgrading=True)  # a hand-damaged table is named before any change
        steps = run_steps(conn, found, SCHEMA_VERSION)
    Base.metadata.create_all(conn)
    check_columns(conn, SCHEMA_VERSION)
    stamp(conn, found)
    return Upgrade(
        found=found, version=SCHEMA_VERSION, steps=steps, backup=backup if found != SCHEMA_VERSION else None
    )


def backup_if_older(conn: Connection) -> Path | None:
    """Outside any transaction: copy a SQLite file of an older schema aside before a writer
    migrates it (SQLite's backup cannot run inside the connection's own write transaction)."""
    if conn.dialect.name != "sqlite":
        return None
    found = stored_version(conn)
    if found is None or found >= SCHEMA_VERSION:
        return None
    return sqlite_backup(conn, found)


def sqlite_backup(conn: Connection, found: int) -> Path | None:
    """Copy a SQLite database file aside (``<file>.schema<N>-<time>.bak``) before it is migrated;
    None for other databases and in-memory ones."""
    if conn.dialect.name != "sqlite":
        return None
    database = conn.engine.url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    source = Path(database).expanduser()
    stamp_text = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    target = source.with_name(f"{source.name}.schema{found}-{stamp_text}.bak")
    n = 1
    while target.exists():
        n += 1
        target = source.with_name(f"{source.name}.schema{found}-{stamp_text}-{n}.bak")
    copy = sqlite3.connect(target)
    try:
        sqlite_connection(conn).backup(copy)  # a consistent copy, WAL included
    finally:
        copy.close()
    log.warning(
        "transcript database %s is schema %d: copied to %s before upgrading it to schema %d",
        source,
        found,
        target,
        SCHEMA_VERSION,
    )
    return target
