"""The sqlite3 connection under a SQLAlchemy connection, typed.

Why: the store's hot paths (the turn writer, the backup before an upgrade, the write lock) talk to
sqlite3 directly, and SQLAlchemy types ``conn.connection.driver_connection`` as ``Any | None`` (None
once a pooled connection is detached). An open connection always has one; this says so in one place.
"""

from __future__ import annotations

import sqlite3

from sqlalchemy.engine import Connection


def sqlite_connection(conn: Connection) -> sqlite3.Connection:
    """The DB-API connection of ``conn`` (an open SQLite connection), for sqlite3's own calls."""
    driver = conn.connection.driver_connection
    if driver is None:
        raise RuntimeError("the database connection is closed")
    return driver
