"""Parse the JSON a transcript database holds, failing in one line that says where it is.

Why: a shared database is untrusted input. A JSON column nested 200,000 deep met the readers as a
RecursionError traceback, and text that does not parse as a JSONDecodeError, in every command that
read the row (list, show, export, view, replay, report). Every JSON value read from the store goes
through ``loads``: it raises ``StoredJsonError``, which keeps the offending text so that
``locate`` can name the table, row and column it came from (a query for that exact value, made only
once something failed: reading a good store costs nothing more).

Parsing stays bounded: the C decoder gives up at Python's recursion limit (a thousand levels deep),
long before any memory is spent on a value nested 200,000 deep.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, LargeBinary, Text, select, type_coerce
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from agentkit.records import StorageError


class StoredJsonError(StorageError):
    """A JSON value in the database does not parse; ``where`` names it once known."""

    def __init__(self, reason: str, text: str | bytes, where: str | None = None) -> None:
        super().__init__(f"{where}: {reason}" if where else reason)
        self.reason = reason
        self.text = text
        self.where = where

    def located(self, where: str) -> StoredJsonError:
        """The same error, its message naming where the value is."""
        return StoredJsonError(self.reason, self.text, where)


def loads(text: str | bytes | bytearray, where: str | None = None) -> Any:
    """``json.loads`` of a stored value; StoredJsonError (one line) for one nested too deep or not JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        reason = "stored JSON is nested too deep to read (over a thousand levels)"
    except (ValueError, TypeError) as exc:  # JSONDecodeError, and bytes that are not UTF-8
        detail = f"{exc.msg} at character {exc.pos}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        reason = f"stored JSON does not parse ({detail[:120]})"
    raise StoredJsonError(reason, bytes(text) if isinstance(text, bytearray) else text, where)


@dataclass(frozen=True)
class Place:
    """Where a stored value is: its table, its row's primary key, its column."""

    table: str
    row: str
    column: str

    def __str__(self) -> str:
        return f"table {self.table}, row {self.row}, column {self.column}"


def locate(conn: Connection, text: str | bytes) -> Place | None:
    """The first row (small tables first) whose JSON column, or blob, holds exactly ``text``."""
    from agentkit.transcripts.schema import Base

    tables = sorted(Base.metadata.tables.values(), key=lambda t: t.name == "turns")  # the big one last
    for table in tables:
        key = list(table.primary_key.columns)
        for column in table.columns:
            if isinstance(column.type, LargeBinary):  # a message's content is a JSON blob
                stored: Any = type_coerce(column, LargeBinary)
                value: str | bytes = text.encode("utf-8") if isinstance(text, str) else text
            elif isinstance(column.type, JSON) and isinstance(text, str):
                stored, value = type_coerce(column, Text), text
            else:
                continue
            try:
                row = conn.execute(select(*key).where(stored == value).limit(1)).first()
            except SQLAlchemyError:  # a table an older database lacks: look on
                continue
            if row is not None:
                return Place(table.name, "/".join(str(v) for v in row), column.name)
    return None
