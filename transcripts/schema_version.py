"""The layout version stored in a transcript database, so a reader knows what it opens.

Why: the tables change shape between releases (layout 2 writes a turn's new messages only), and a
database outlives the agentkit that wrote it. A database records its version in the one-row
``agentkit_schema`` table when it is created (or first opened for writing by this release); one
without that table was made before versions were stored: layout 1. A database made by a newer
agentkit is refused in one line rather than misread. An older one is upgraded by the steps of
``agentkit.transcripts.migrations`` when a writer opens it (``agentkit.transcripts.db_upgrade``).

Versions: 1 = every turn's messages in ``messages`` (the first release: no ``episodes.attempt``
or ``metrics``); 2 = ``episode_messages`` + ``turn_prompts`` (layout 1 rows are still read, so an
older database opened for writing holds both); 3 = 64-bit seeds, token counts and turn ids;
4 = a turn's tool calls (``turns.tool_calls``); 5 = image bytes in pack files beside a SQLite
database (``blobs.pack``, ``blobs.pack_offset``).
"""

from __future__ import annotations

import logging

from sqlalchemy import inspect, select
from sqlalchemy.engine import Connection

from agentkit.records import StorageError
from agentkit.transcripts.schema import SchemaVersion, table_of

log = logging.getLogger(__name__)

SCHEMA_VERSION = 5  # the layout this release writes, and the newest it reads
LEGACY_VERSION = 1  # a database without a stored version
VERSIONS = table_of(SchemaVersion)


class SchemaVersionError(StorageError):
    """The database was made by a newer agentkit, in a layout this one cannot read."""


def stored_version(conn: Connection) -> int | None:
    """The version the database records, ``LEGACY_VERSION`` for one made before versions were
    stored, None for an empty database (no agentkit table at all)."""
    tables = set(inspect(conn).get_table_names())
    if VERSIONS.name in tables:
        version = conn.execute(select(VERSIONS.c.version).where(VERSIONS.c.id == 1)).scalar()
        if version is not None:
            return int(version)
    return LEGACY_VERSION if "runs" in tables else None


def check_readable(version: int | None) -> None:
    """Refuse (one line) a version newer than this release reads."""
    if version is not None and version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"this transcript database was made by a newer agentkit (schema {version}); "
            f"this one reads up to {SCHEMA_VERSION}"
        )


def stamp(conn: Connection, found: int | None) -> None:
    """Record ``SCHEMA_VERSION`` in a database just created or opened for writing (tables exist).

    An older database becomes version 2 once this release may write layout-2 turns into it.
    """
    if found == SCHEMA_VERSION:
        return
    conn.execute(VERSIONS.delete())
    conn.execute(VERSIONS.insert(), {"id": 1, "version": SCHEMA_VERSION})
    if found is not None:
        log.info(
            "transcript database schema %d: now written as schema %d (older turns still read)",
            found,
            SCHEMA_VERSION,
        )
