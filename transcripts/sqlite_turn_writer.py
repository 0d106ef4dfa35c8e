"""The SQLite fast path of ``TranscriptStore.add_turn``: its three inserts run on the driver connection.

The statements are SQLAlchemy Core inserts compiled once, executed with the sqlite3 driver's
``execute``/``executemany`` inside the caller's SQLAlchemy transaction. Separate from the store
because it is an optional, backend-specific optimisation; the store works the same without it
(``fast_path=False``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, Engine, insert
from sqlalchemy.engine import Connection

from agentkit.transcripts.db import dumps
from agentkit.transcripts.schema import Blob, EpisodeMessage, Turn, table_of
from agentkit.transcripts.sqlite_driver import sqlite_connection

TURNS = table_of(Turn)
MESSAGES = table_of(EpisodeMessage)
BLOBS = table_of(Blob)


@dataclass(frozen=True)
class _Prepared:
    """A Core statement compiled once, with the column order and bind processors of its SQL.

    ``params`` runs for every row of every turn, so the values are fetched in one C call
    (``values``, an ``itemgetter`` of the names in order) and only those with a bind processor
    (JSON, booleans: ``processed``, by position) pass through Python again."""

    sql: str
    values: Callable[[Mapping[str, Any]], Sequence[Any]]
    processed: tuple[tuple[int, Callable[[Any], Any]], ...]

    @classmethod
    def compile(cls, stmt: Any, table: Any, keys: Sequence[str], engine: Engine) -> _Prepared:
        dialect = engine.dialect
        compiled = stmt.compile(dialect=dialect, column_keys=list(keys))
        if compiled.positiontup is None:
            raise ValueError(f"{dialect.name} does not use positional parameters")
        fields = tuple((name, _bind_processor(table.c[name].type, dialect)) for name in compiled.positiontup)
        names = [name for name, _ in fields]
        values = itemgetter(*names) if len(names) > 1 else _one_value(names[0])
        processed = tuple((i, proc) for i, (_, proc) in enumerate(fields) if proc is not None)
        return cls(str(compiled), values, processed)

    def params(self, row: Mapping[str, Any]) -> Sequence[Any]:
        """The row's values in the statement's order, each through its bind processor if it has one."""
        values = self.values(row)
        if not self.processed:
            return values
        out = list(values)
        for i, proc in self.processed:
            out[i] = proc(out[i])
        return out


def _one_value(name: str) -> Callable[[Mapping[str, Any]], Sequence[Any]]:
    """The ``values`` of a one-parameter statement (an ``itemgetter`` of one name returns no tuple)."""
    return lambda row: (row[name],)


def _json_text(value: Any) -> str:
    """A JSON column's text, as SQLAlchemy's JSON bind processor writes it with ``dumps`` as the
    engine's serializer (None is the JSON ``null``), without its wrapper around the call."""
    return "null" if value is None else dumps(value)


def _json_or_null(value: Any) -> str | None:
    """The same for a ``JSON(none_as_null=True)`` column: None is SQL NULL."""
    return None if value is None else dumps(value)


def _bind_processor(column_type: Any, dialect: Any) -> Any:
    """The bind processor SQLAlchemy would use for a column; for JSON columns of an engine whose
    serializer is ``dumps`` (every engine agentkit makes), ``_json_text``: the same text, called
    directly (a turn row has seven JSON values)."""
    proc = column_type.dialect_impl(dialect).bind_processor(dialect)
    if (
        proc is not None
        and isinstance(column_type, JSON)
        and getattr(dialect, "_json_serializer", None) is dumps
    ):
        return _json_or_null if column_type.none_as_null else _json_text
    return proc


class _SQLiteTurnWriter:
    """add_turn's three inserts on SQLite, executed on the driver connection.

    The SQL comes from the same Core insert statements (compiled once by SQLAlchemy, with its own
    bind processors for JSON, booleans and floats), and runs inside the SQLAlchemy transaction of
    the caller. Skipping ``Connection.execute`` (cache lookup, parameter processing, result object)
    saves 25-40 us per statement, a third of add_turn's time for a text turn on a small VM; the
    price is that SQLAlchemy's execute events and echo do not see these three statements.
    """

    def __init__(self, engine: Engine) -> None:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        blob_keys = ("sha256", "media_type", "data", "size", "pack", "pack_offset")
        turn_keys = [c.key for c in TURNS.c if c.key != "id"]
        message_keys = ("episode_id", "seq", "role", "content_sha256", "extra")
        self.blobs = _Prepared.compile(
            sqlite_insert(BLOBS).on_conflict_do_nothing(index_elements=["sha256"]), BLOBS, blob_keys, engine
        )
        self.turn = _Prepared.compile(insert(TURNS), TURNS, turn_keys, engine)
        self.messages = _Prepared.compile(insert(MESSAGES), MESSAGES, message_keys, engine)

    def add_turn(
        self,
        conn: Connection,
        row: Mapping[str, Any],
        blobs: Sequence[Mapping[str, Any]],
        messages: Sequence[Mapping[str, Any]],
    ) -> int:
        """Insert the turn's new blobs, the turn (its row carries its prompt's spans, layout 2:
        ``agentkit.transcripts.prompt_spans``) and the episode's new message rows; the turn's id."""
        driver = sqlite_connection(conn)
        if blobs:
            driver.executemany(self.blobs.sql, [self.blobs.params(b) for b in blobs])
        turn_id = driver.execute(self.turn.sql, self.turn.params(row)).lastrowid
        assert turn_id is not None  # sqlite3 sets it after every INSERT
        if messages:
            driver.executemany(self.messages.sql, [self.messages.params(m) for m in messages])
        return turn_id
