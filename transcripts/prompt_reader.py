"""The message rows of stored prompts, read from either layout: what each turn sent, in order.

Why: the store, the viewer and rerender all turn a turn's stored prompt back into messages, and
the prompt is stored in two layouts (``agentkit.transcripts.schema_version``): layout 1 has every
message of every turn in ``messages``; layout 2 has an episode's distinct rows in
``episode_messages`` and each turn's spans of them in ``turn_prompts``. This module is the one
place that knows both; its callers get ``(role, content sha256, extra JSON text or None)`` rows
and resolve the contents from ``blobs`` as before. A database made before layout 2 (opened
read-only, so without its tables) reads as layout 1 alone.

``EpisodePromptReader`` reads whole episodes for a caller that walks thousands of turns (``agentkit
rerender``): each turn's fields with its prompt as the caller's own message objects, each distinct
message row converted once and each content blob read and parsed once for all episodes read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import BindParameter, Engine, Text, bindparam, select, type_coerce
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError, ProgrammingError

from agentkit.transcripts import stored_json
from agentkit.transcripts.db import canonical_json
from agentkit.transcripts.prompt_spans import EpisodeMessages, MessageKey, expand
from agentkit.transcripts.schema import Blob, EpisodeMessage, Message, Turn, TurnPrompt, table_of

TURNS = table_of(Turn)
MESSAGES = table_of(Message)
EPISODE_MESSAGES = table_of(EpisodeMessage)
TURN_PROMPTS = table_of(TurnPrompt)
BLOBS = table_of(Blob)

#: One stored message row: (role, content sha256, its extra keys as JSON text, or None).
MessageRef = tuple[str, str, str | None]


def episode_refs(conn: Connection, episode_id: str) -> dict[int, list[MessageRef]]:
    """The message rows of every turn of an episode, by turn id, in the order they were sent."""
    turn_ids = select(TURNS.c.id).where(TURNS.c.episode_id == episode_id).scalar_subquery()
    by_turn: dict[int, list[MessageRef]] = {}
    rows = conn.execute(
        select(
            MESSAGES.c.turn_id,
            MESSAGES.c.role,
            MESSAGES.c.content_sha256,
            type_coerce(MESSAGES.c.extra, Text),
        )
        .where(MESSAGES.c.turn_id.in_(turn_ids))
        .order_by(MESSAGES.c.turn_id, MESSAGES.c.position)
    ).all()
    for turn_id, role, sha, extra in rows:
        by_turn.setdefault(turn_id, []).append((role, sha, _text(extra)))
    by_turn.update(layout2_refs(conn, episode_id))
    return by_turn


def layout2_refs(conn: Connection, episode_id: str) -> dict[int, list[MessageRef]]:
    """The message rows of the episode's turns written in layout 2 only, by turn id (spans in the
    turn's row from schema 5 on, in ``turn_prompts`` before: asked only when a turn lacks them)."""
    rows = conn.execute(
        select(TURNS.c.id, type_coerce(TURNS.c.prompt_spans, Text)).where(TURNS.c.episode_id == episode_id)
    ).all()
    prompts = [(turn_id, spans) for turn_id, spans in rows if spans is not None]
    refs: dict[int, list[MessageRef]] = {}
    if prompts:
        rows_of = _episode_rows(conn, episode_id)
        refs = {turn_id: _resolve(rows_of, spans, turn_id) for turn_id, spans in prompts}
    if len(prompts) < len(rows):  # turns written before schema 5 (or layout 1: no spans at all)
        refs.update(_turn_prompt_refs(conn, episode_id))
    return refs


def _turn_prompt_refs(conn: Connection, episode_id: str) -> dict[int, list[MessageRef]]:
    """The message rows of the episode's turns whose spans are in ``turn_prompts`` (schema 2-4)."""
    turn_ids = select(TURNS.c.id).where(TURNS.c.episode_id == episode_id).scalar_subquery()
    prompts = _v2(
        conn, select(TURN_PROMPTS.c.turn_id, TURN_PROMPTS.c.spans).where(TURN_PROMPTS.c.turn_id.in_(turn_ids))
    )
    if not prompts:
        return {}
    rows_of = _episode_rows(conn, episode_id)
    return {turn_id: _resolve(rows_of, spans, turn_id) for turn_id, spans in prompts}


def turn_refs(conn: Connection, episode_id: str, turn_id: int) -> list[MessageRef]:
    """The message rows of one turn (of ``episode_id``), in the order they were sent."""
    spans = conn.execute(
        select(type_coerce(TURNS.c.prompt_spans, Text)).where(
            TURNS.c.id == turn_id, TURNS.c.prompt_spans.is_not(None)
        )
    ).scalar()
    if spans is not None:
        return _resolve(_episode_rows(conn, episode_id), spans, turn_id)
    prompt = _v2(
        conn, select(TURN_PROMPTS.c.turn_id, TURN_PROMPTS.c.spans).where(TURN_PROMPTS.c.turn_id == turn_id)
    )
    if prompt:
        return _resolve(_episode_rows(conn, episode_id), prompt[0][1], turn_id)
    rows = conn.execute(
        select(MESSAGES.c.role, MESSAGES.c.content_sha256, type_coerce(MESSAGES.c.extra, Text))
        .where(MESSAGES.c.turn_id == turn_id)
        .order_by(MESSAGES.c.position)
    ).all()
    return [(role, sha, _text(extra)) for role, sha, extra in rows]


def episode_messages(conn: Connection, episode_id: str) -> EpisodeMessages:
    """The writer's view of an episode's stored rows (for a store that did not write its earlier turns)."""
    rows = conn.execute(
        select(
            EPISODE_MESSAGES.c.seq,
            EPISODE_MESSAGES.c.role,
            EPISODE_MESSAGES.c.content_sha256,
            type_coerce(EPISODE_MESSAGES.c.extra, Text),
        )
        .where(EPISODE_MESSAGES.c.episode_id == episode_id)
        .order_by(EPISODE_MESSAGES.c.seq)
    ).all()
    return EpisodeMessages.of_rows(
        (seq, message_key(role, sha, _parse(extra))) for seq, role, sha, extra in rows
    )


def message_key(role: str, sha: str, extra: dict[str, Any] | None) -> MessageKey:
    """How two message rows are compared: equal keys read back as equal messages."""
    return (role, sha, canonical_json(extra).decode("utf-8") if extra else None)


def parse_extra(text: str | None) -> dict[str, Any] | None:
    """A ref's extra keys as a dict (None when it has none)."""
    return _parse(text)


def _episode_rows(conn: Connection, episode_id: str) -> dict[int, MessageRef]:
    rows = conn.execute(
        select(
            EPISODE_MESSAGES.c.seq,
            EPISODE_MESSAGES.c.role,
            EPISODE_MESSAGES.c.content_sha256,
            type_coerce(EPISODE_MESSAGES.c.extra, Text),
        ).where(EPISODE_MESSAGES.c.episode_id == episode_id)
    ).all()
    return {seq: (role, sha, _text(extra)) for seq, role, sha, extra in rows}


def _resolve(rows_of: dict[int, MessageRef], spans: Any, turn_id: int) -> list[MessageRef]:
    if isinstance(spans, (str, bytes)):
        spans = stored_json.loads(spans, str(stored_json.Place("turns", str(turn_id), "prompt_spans")))
    try:
        return [rows_of[seq] for seq in expand(spans)]
    except KeyError as exc:
        raise ValueError(
            f"turn {turn_id}: its prompt spans name message {exc.args[0]}, missing from episode_messages"
        ) from None


M = TypeVar("M")
#: Makes the caller's message object of a stored row: (role, parsed content, extra keys or None).
MakeMessage = Callable[[str, Any, "dict[str, Any] | None"], M]


@dataclass
class PromptTurn(Generic[M]):
    """One recorded turn as a re-render needs it: what was observed and answered, and its prompt."""

    index: int
    observation: dict[str, Any]
    answer: str
    parse_error: dict[str, Any] | None
    compile_error: str | None
    messages: list[M]  # the prompt sent, as the reader's ``message`` made them
    tool_calls: list[dict[str, str]] | None = None  # an answer of tool calls (--action-format tools)


_EPISODE: BindParameter[str] = bindparam("episode_id")
# Built once: constructing and caching a statement per episode costs as much as running it.
_TURNS_OF_EPISODE = (
    select(
        TURNS.c.id,
        TURNS.c["index"],
        TURNS.c.observation,
        TURNS.c.answer,
        TURNS.c.parse_error,
        TURNS.c.compile_error,
        TURNS.c.tool_calls,
        TURNS.c.prompt_spans,  # schema 5 on; NULL for older turns (turn_prompts, or layout 1)
    )
    .where(TURNS.c.episode_id == _EPISODE)
    .order_by(TURNS.c["index"])
)
_ROWS_OF_EPISODE = select(
    EPISODE_MESSAGES.c.seq,
    EPISODE_MESSAGES.c.role,
    EPISODE_MESSAGES.c.content_sha256,
    type_coerce(EPISODE_MESSAGES.c.extra, Text),
).where(EPISODE_MESSAGES.c.episode_id == _EPISODE)
_LAYOUT1_REFS_OF_EPISODE = (
    select(
        MESSAGES.c.turn_id, MESSAGES.c.role, MESSAGES.c.content_sha256, type_coerce(MESSAGES.c.extra, Text)
    )
    .where(MESSAGES.c.turn_id.in_(select(TURNS.c.id).where(TURNS.c.episode_id == _EPISODE).scalar_subquery()))
    .order_by(MESSAGES.c.turn_id, MESSAGES.c.position)
)
_BLOBS_CHUNK = 500  # hashes per IN (...) list, below every backend's parameter limit


class EpisodePromptReader(Generic[M]):
    """Reads recorded episodes, turn by turn with their prompts, over one connection.

    Use as a context manager (``TranscriptReader.episode_prompt_reader``). Full-history prompts
    make the message rows quadratic in an episode's length, so the turns and layout-1 rows are
    read as plain driver tuples (SQLAlchemy's row objects and type processing would cost as much
    as the rest of a re-render), by statements compiled once. Each distinct (role, content,
    extra) row becomes a message through ``message`` once, for all episodes read (they share
    system messages, worked examples and common feedback); parsed contents are kept in
    ``contents``. A message whose blob is missing gets the content ``""``.
    """

    def __init__(self, engine: Engine, message: MakeMessage[M]) -> None:
        self.engine, self.message = engine, message
        self.contents: dict[str, Any] = {}
        self._made: dict[MessageRef, M] = {}
        self._turns_sql, self._turns_params = _compiled(engine, _TURNS_OF_EPISODE)
        self._refs_sql, self._refs_params = _compiled(engine, _LAYOUT1_REFS_OF_EPISODE)
        self._rows_sql, self._rows_params = _compiled(engine, _ROWS_OF_EPISODE)

    def __enter__(self) -> EpisodePromptReader[M]:
        self._conn = self.engine.connect()
        self._cursor = self._conn.connection.cursor()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._cursor.close()
        self._conn.close()

    def read(self, episode_id: str) -> list[PromptTurn[M]]:
        """The episode's turns in index order (none for an unknown episode)."""
        cursor, contents = self._cursor, self.contents
        cursor.execute(self._turns_sql, self._turns_params(episode_id))
        rows = cursor.fetchall()
        cursor.execute(self._refs_sql, self._refs_params(episode_id))
        refs = list(cursor.fetchall())  # layout 1: every turn's rows; layout 2 after them
        spanned = [(r[0], r[7]) for r in rows if r[7] is not None]
        if spanned:  # schema 5 on: each turn's spans in its own row
            cursor.execute(self._rows_sql, self._rows_params(episode_id))
            rows_of = {seq: (role, sha, _text(extra)) for seq, role, sha, extra in cursor.fetchall()}
            refs.extend(
                (turn_id, *ref) for turn_id, spans in spanned for ref in _resolve(rows_of, spans, turn_id)
            )
        if len(spanned) < len(rows):  # turns written before schema 5: spans in turn_prompts
            refs.extend(
                (turn_id, *ref)
                for turn_id, turn_refs in _turn_prompt_refs(self._conn, episode_id).items()
                for ref in turn_refs
            )
        missing = sorted({r[2] for r in refs} - contents.keys())
        for i in range(0, len(missing), _BLOBS_CHUNK):
            chosen = select(BLOBS.c.sha256, BLOBS.c.data).where(
                BLOBS.c.sha256.in_(missing[i : i + _BLOBS_CHUNK])
            )
            for sha, data in self._conn.execute(chosen):
                contents[sha] = stored_json.loads(bytes(data), str(stored_json.Place("blobs", sha, "data")))
        make, made = self.message, self._made
        by_turn: dict[int, list[M]] = {}
        last_turn, current = None, []
        for turn_id, role, sha, extra in refs:  # ordered by turn: a turn's rows come together
            key = (role, sha, extra)
            msg = made.get(key)
            if msg is None:
                parsed = stored_json.loads(extra) if extra and extra != "null" else None
                msg = made[key] = make(role, contents.get(sha, ""), parsed)
            if turn_id != last_turn:
                current = by_turn[turn_id] = []
                last_turn = turn_id
            current.append(msg)
        return [
            PromptTurn(r[1], _json(r[2]) or {}, r[3], _json(r[4]), r[5], by_turn.get(r[0], []), _json(r[6]))
            for r in rows
        ]


def _compiled(engine: Engine, statement: Any) -> tuple[str, Callable[[str], Any]]:
    """A statement as the driver's SQL text, and a function from an episode id to its parameters."""
    compiled = statement.compile(dialect=engine.dialect)
    names = compiled.positiontup
    if names:  # positional parameter style (SQLite's "?")
        return str(compiled), lambda episode_id: tuple(
            compiled.construct_params({"episode_id": episode_id})[n] for n in names
        )
    return str(compiled), lambda episode_id: compiled.construct_params({"episode_id": episode_id})


def _json(value: Any) -> Any:
    """A JSON column as the driver returns it: text on SQLite, decoded already by some drivers."""
    return stored_json.loads(value) if isinstance(value, (str, bytes, bytearray)) else value


def _v2(conn: Connection, statement: Any) -> Sequence[Any]:
    """Rows of a layout-2 query; none in an older database opened read-only (no such table)."""
    try:
        return conn.execute(statement).all()
    except (OperationalError, ProgrammingError) as exc:
        if "no such table" in str(exc) or "does not exist" in str(exc):
            return []
        raise


def _text(extra: Any) -> str | None:
    """A JSON column as text: SQLite hands back text, some drivers a decoded value."""
    if extra is None or extra == "null":
        return None
    if isinstance(extra, (bytes, bytearray)):
        return extra.decode("utf-8")
    if isinstance(extra, str):
        return extra
    return json.dumps(extra, ensure_ascii=False)


def _parse(text: str | None) -> dict[str, Any] | None:
    return stored_json.loads(text) if text else None
