"""Upgrade a transcript database made by an older agentkit, in place, with Alembic's operations.

Why: a database outlives the agentkit that wrote it, and its tables change shape between releases.
Without migrations an older database met a newer agentkit as ``no such column`` tracebacks. Each
numbered step here (``v0002_*``, ``v0003_*``...) brings a database from the version before it to its
own, using Alembic's ``Operations`` (ADD COLUMN, ALTER COLUMN TYPE) on the writer's connection,
inside the writer's transaction (PostgreSQL's DDL is transactional: a failed upgrade changes
nothing; SQLite files are copied aside first, ``agentkit.transcripts.db_upgrade``).

The version lives in the one-row ``agentkit_schema`` table (``agentkit.transcripts.schema_version``),
not Alembic's ``alembic_version``: databases of schema 2 already carry it, and one without it is a
first-release database (schema 1). Tables a step's version added are created afterwards by
``create_all`` in their current shape; steps change existing tables only, and only where the
change is missing (a "schema 1" database may come from any commit before versions were stored).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import inspect
from sqlalchemy.engine import Connection
from sqlalchemy.engine.interfaces import ReflectedColumn

from agentkit.transcripts.migrations import (
    v0002_episode_attempts,
    v0003_wide_integers,
    v0004_turn_tool_calls,
    v0005_image_packs,
)

if TYPE_CHECKING:
    from alembic.operations import Operations

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    """Brings a database to ``version`` from ``version - 1``."""

    version: int
    about: str
    upgrade: Callable[[Operations, Connection], None]
    #: Columns this version added to tables that existed before it: a reader of an older database
    #: is told to upgrade rather than that they were dropped by hand.
    added_columns: dict[str, tuple[str, ...]]


STEPS: tuple[Step, ...] = tuple(
    Step(m.VERSION, m.ABOUT, m.upgrade, m.ADDED_COLUMNS)
    for m in (v0002_episode_attempts, v0003_wide_integers, v0004_turn_tool_calls, v0005_image_packs)
)


def columns_added_after(version: int) -> dict[str, set[str]]:
    """The columns, per table, that versions newer than ``version`` added."""
    added: dict[str, set[str]] = {}
    for step in STEPS:
        if step.version > version:
            for table, names in step.added_columns.items():
                added.setdefault(table, set()).update(names)
    return added


def run_steps(conn: Connection, found: int, target: int) -> list[int]:
    """Apply the steps from ``found`` (exclusive) to ``target`` (inclusive) on ``conn``, inside its
    transaction; the versions applied, in order."""
    # Alembic is imported only when a database needs upgrading (most opens do not).
    from alembic.operations import Operations
    from alembic.runtime.migration import MigrationContext

    operations = Operations(MigrationContext.configure(conn))
    done = []
    for step in STEPS:
        if found < step.version <= target:
            log.info("transcript database: schema %d -> %d (%s)", step.version - 1, step.version, step.about)
            step.upgrade(operations, conn)
            done.append(step.version)
    return done


def existing_columns(conn: Connection, table: str) -> dict[str, ReflectedColumn]:
    """The columns a table has (name -> reflected column), empty when the table is missing."""
    inspector = inspect(conn)
    if not inspector.has_table(table):
        return {}
    return {c["name"]: c for c in inspector.get_columns(table)}
