"""Check that a transcript database still has the columns this agentkit reads and writes.

Why: a column dropped or renamed by hand (or by a tool) met the store as a ``no such column``
traceback, and only mid-run: ``run`` had already created its run row and played an episode. The
store and the readers check the columns when they open, before anything is written, and name the
first one missing in one line. A column that a newer schema version added is missing from an
older database by design: its reader is told to upgrade (``agentkit db upgrade``) instead.
"""

from __future__ import annotations

from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from agentkit.records import StorageError
from agentkit.transcripts.schema import Base


class SchemaMismatchError(StorageError):
    """A table lacks a column this agentkit needs; the message is one line naming both."""


def check_columns(conn: Connection, version: int | None, *, upgrading: bool = False) -> None:
    """Raise SchemaMismatchError for the first table (of those present) missing a column.

    ``version`` is the database's schema version: columns added by later versions are reported as
    "upgrade it" (or pass, when ``upgrading``: the migration adds them), any other as dropped or
    renamed by hand.
    """
    from agentkit.transcripts.migrations import columns_added_after
    from agentkit.transcripts.schema_version import SCHEMA_VERSION

    inspector = inspect(conn)
    present = set(inspector.get_table_names())
    later = columns_added_after(version) if version is not None else {}
    for name, table in Base.metadata.tables.items():
        if name not in present:
            continue
        have = {c["name"] for c in inspector.get_columns(name)}
        missing = [c.name for c in table.columns if c.name not in have]
        if not missing:
            continue
        if version is not None and version < SCHEMA_VERSION and set(missing) <= later.get(name, set()):
            if upgrading:
                continue
            raise SchemaMismatchError(
                f"this transcript database was made by an older agentkit (schema {version}; table {name} "
                f"has no column {missing[0]!r}): upgrade it with `agentkit db upgrade --db URL` "
                "(or open it once for writing)"
            )
        unknown = sorted(have - {c.name for c in table.columns})
        instead = (
            f"; it has {', '.join(repr(u) for u in unknown)}, which agentkit does not know" if unknown else ""
        )
        raise SchemaMismatchError(
            f"table {name} has no column {missing[0]!r} (dropped or renamed by hand?{instead}); "
            "agentkit needs it: restore it, or write to a new database"
        )
