"""The message rows of stored prompts, read from either layout: what each turn sent, in order.

Why: the store, the viewer and rerender all turn a turn's stored prompt back into messages, and
the prompt is stored in two layouts (``agentkit.transcripts.schema_version``): layout 1 has every
message of every turn in ``messages``; layout 2 has an episode's distinct rows in
``episode_messages`` and each turn's spans of them in ``turn_prompts``. This module is the one
place that knows both; its callers get ``(role, content sha256, extra JSON text or None)`` rows
and resolve the contents from ``blobs`` as before. A database made before layout 2 (opened
read-only, so without its tables) reads as layout 1 alone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Text, select, type_coerce
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError, ProgrammingError

from agentkit.transcripts.db import canonical_json
from agentkit.transcripts.prompt_spans import EpisodeMessages, MessageKey, expand
from agentkit.transcripts.schema import EpisodeMessage, Message, Turn, TurnPrompt, table_of

TURNS = table_of(Turn)
MESSAGES = table_of(Message)
EPISODE_MESSAGES = table_of(EpisodeMessage)
TURN_PROMPTS = table_of(TurnPrompt)

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
    """The message rows of the episode's turns written in layout 2 only, by turn id."""
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
        spans = json.loads(spans)
    try:
        return [rows_of[seq] for seq in expand(spans)]
    except KeyError as exc:
        raise ValueError(
            f"turn {turn_id}: turn_prompts names message {exc.args[0]}, missing from episode_messages"
        ) from None


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
    return json.loads(text) if text else None
