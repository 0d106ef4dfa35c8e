"""Tables of the transcript store: runs, episodes, turns, the messages of each turn, and blobs.

Prompts that carry the full history repeat every earlier message (and its images) on every turn.
Storing them verbatim would grow a transcript quadratically, so message content lives in
``blobs``, addressed by SHA-256: each distinct image and each distinct message content is stored
once. Layout 2 (``agentkit.transcripts.schema_version``) also writes each message row once per
episode (``episode_messages``) and gives every turn the spans of that list it was sent
(``turn_prompts``), so a turn writes only its new messages; layout 1 wrote all of a turn's
``messages`` rows, and databases in that layout are still read.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from agentkit.transcripts.server_text import ServerSafeText

SHA256_LEN = 64
# 64-bit integers where values can be large (a seed of 3000000000, token totals, turn ids in a store
# that many runs share); SQLite's INTEGER is 64-bit already, and its autoincrementing key must be
# spelled INTEGER, so SQLite keeps that name (schema 3, agentkit.transcripts.migrations).
WIDE = BigInteger().with_variant(Integer(), "sqlite")
# Text that may hold any character a model returns, NUL included (PostgreSQL refuses NUL in text).
ANY_TEXT = ServerSafeText()


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON, Any: JSON}


def table_of(model: type[Base]) -> Table:
    """The Core table a mapped class of this module maps. Why a helper: SQLAlchemy types
    ``__table__`` as a FromClause (a class may map a join or a select), which insert(), update()
    and delete() do not take; every class here maps one Table, and this says so once."""
    table = model.__table__
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} maps no single table")
    return table


class Run(Base):
    """One invocation of the runner: what was run, with which model, config and template sources."""

    __tablename__ = "runs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    env: Mapped[str] = mapped_column(String(200))
    tasks: Mapped[list[Any]] = mapped_column(JSON)
    model: Mapped[str] = mapped_column(String(200))
    config: Mapped[dict[str, Any]] = mapped_column(JSON)  # secrets scrubbed before storing
    templates: Mapped[dict[str, Any]] = mapped_column(JSON)  # {template name: source}
    templates_hash: Mapped[str] = mapped_column(String(SHA256_LEN))
    agentkit_version: Mapped[str] = mapped_column(String(50))
    status: Mapped[str] = mapped_column(String(20), default="running")  # running | finished | unfinished
    # Who writes the run: lets readers tell a live run from one whose process died.
    writer_host: Mapped[str | None] = mapped_column(String(255))
    writer_pid: Mapped[int | None] = mapped_column(Integer)
    writer_start: Mapped[str | None] = mapped_column(String(40))  # process start marker (pid reuse)

    __table_args__ = (Index("ix_runs_created_at", "created_at"),)


class RunLease(Base):
    """The lease of a run's one live writer (``agentkit.transcripts.run_lease``): who holds it is
    the run's ``writer_*`` columns; here the holder's token and its last renewal. A table of its own,
    so an older database only gains a table when opened for writing."""

    __tablename__ = "run_leases"

    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    token: Mapped[str] = mapped_column(String(32))
    renewed_at: Mapped[float] = mapped_column(Float)  # unix time of the holder's last heartbeat


class Episode(Base):
    """One episode of a run. ``status`` is "running" until finished (or found dead: "unfinished")."""

    __tablename__ = "episodes"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    task: Mapped[str] = mapped_column(String(200))
    seed: Mapped[int] = mapped_column(WIDE)
    trial: Mapped[int] = mapped_column(Integer, default=0)
    # Relaunches of the same (task, trial, seed) after a failed or killed attempt; the latest counts.
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(20), default="running")  # running | finished | unfinished
    success: Mapped[bool | None] = mapped_column(Boolean)
    reward: Mapped[float | None] = mapped_column(Float)
    end_reason: Mapped[str | None] = mapped_column(String(40))
    scripts: Mapped[int | None] = mapped_column(Integer)
    turns: Mapped[int | None] = mapped_column(Integer)
    input_tokens: Mapped[int | None] = mapped_column(WIDE)
    output_tokens: Mapped[int | None] = mapped_column(WIDE)
    cost_usd: Mapped[float | None] = mapped_column(Float)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    error: Mapped[str | None] = mapped_column(ANY_TEXT)
    # Backend-specific outcome measures (e.g. Animal-AI "pass" and "level", TriFinger "overlap").
    metrics: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    writer_host: Mapped[str | None] = mapped_column(String(255))
    writer_pid: Mapped[int | None] = mapped_column(Integer)
    writer_start: Mapped[str | None] = mapped_column(String(40))

    __table_args__ = (
        Index("ix_episodes_run_id", "run_id"),
        Index("ix_episodes_task", "task"),
        Index("ix_episodes_status", "status"),
        Index("ix_episodes_started_at", "started_at"),
    )


class EpisodeContext(Base):
    """The variables an episode's prompt templates were rendered with: the vocabulary, the limits
    and the backend's facts of that episode (an arena's time limit, say), written with its first
    turn. A re-render reads them, so it needs neither the world nor guesses about it. A table of
    its own, so a database made before it existed only gains a table when opened for writing."""

    __tablename__ = "episode_contexts"

    episode_id: Mapped[str] = mapped_column(ForeignKey("episodes.id", ondelete="CASCADE"), primary_key=True)
    context: Mapped[dict[str, Any]] = mapped_column(JSON)
    # The backend's top-down drawing of the world as the episode began (Backend.world_map), if any.
    world_map: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))


class EpisodeSource(Base):
    """The text of the file an episode's task was read from (``Backend.task_source``: a custom arena
    file, say), written with its first turn. Why: a task named by a path is not reproducible from its
    name (the file moves, or is edited); replay plays the stored text. A table of its own, so a
    database made before it existed only gains a table when opened for writing."""

    __tablename__ = "episode_sources"

    episode_id: Mapped[str] = mapped_column(ForeignKey("episodes.id", ondelete="CASCADE"), primary_key=True)
    name: Mapped[str] = mapped_column(ANY_TEXT)  # the task's file as it was named when the episode ran
    text: Mapped[str] = mapped_column(ANY_TEXT)
    sha256: Mapped[str] = mapped_column(String(64))


class Turn(Base):
    """One turn as the loop recorded it (a ``TurnRecord`` minus its messages, which are normalised)."""

    __tablename__ = "turns"

    id: Mapped[int] = mapped_column(WIDE, primary_key=True, autoincrement=True)
    episode_id: Mapped[str] = mapped_column(ForeignKey("episodes.id", ondelete="CASCADE"))
    index: Mapped[int] = mapped_column("index", Integer)
    observation: Mapped[dict[str, Any]] = mapped_column(JSON)
    answer: Mapped[str] = mapped_column(ANY_TEXT)
    script: Mapped[list[Any] | None] = mapped_column(JSON(none_as_null=True))
    parse_error: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    compile_error: Mapped[str | None] = mapped_column(ANY_TEXT)
    actions: Mapped[list[Any]] = mapped_column(JSON)
    reward: Mapped[float] = mapped_column(Float)
    total_reward: Mapped[float] = mapped_column(Float)
    health: Mapped[float | None] = mapped_column(Float)
    done: Mapped[bool] = mapped_column(Boolean)
    timings: Mapped[dict[str, Any]] = mapped_column(JSON)
    input_tokens: Mapped[int] = mapped_column(WIDE)
    output_tokens: Mapped[int] = mapped_column(WIDE)
    cost_usd: Mapped[float] = mapped_column(Float)
    latency_s: Mapped[float] = mapped_column(Float)
    cached: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[float] = mapped_column(Float)  # unix time of the write (last sign of life)
    # An answer of tool calls (--action-format tools): [{"id", "name", "arguments"}]; None for text.
    tool_calls: Mapped[list[Any] | None] = mapped_column(JSON(none_as_null=True))
    # The prompt it sent, as spans of its episode's message rows (layout 2, schema 5 on; earlier
    # layout-2 turns have theirs in ``turn_prompts``). In the turn's own row: one row and one page
    # less per turn than a table of its own.
    prompt_spans: Mapped[list[Any] | None] = mapped_column(JSON(none_as_null=True))

    # The unique constraint doubles as the index for "turns of an episode, in order".
    __table_args__ = (UniqueConstraint("episode_id", "index", name="uq_turns_episode_index"),)


class TurnModelCall(Base):
    """How a turn's model call went, as the provider told it (``agentkit.records.ModelCall``): the
    finish reason ("length": cut by max tokens), the client's retries, the provider's token counts
    beside our own count of the prompt, and the warning when the server dropped part of it. Only
    turns answered by an API model have one. A table of its own, so a database made before it
    existed only gains a table when opened for writing (no migration), and readers of such a
    database find no row rather than a missing column."""

    __tablename__ = "model_calls"

    turn_id: Mapped[int] = mapped_column(WIDE, ForeignKey("turns.id", ondelete="CASCADE"), primary_key=True)
    finish_reason: Mapped[str | None] = mapped_column(String(40))
    retries: Mapped[int] = mapped_column(Integer, default=0)
    provider_input_tokens: Mapped[int | None] = mapped_column(WIDE)
    provider_output_tokens: Mapped[int | None] = mapped_column(WIDE)
    provider_cached_tokens: Mapped[int | None] = mapped_column(WIDE)
    our_input_tokens: Mapped[int | None] = mapped_column(WIDE)
    warning: Mapped[str | None] = mapped_column(ANY_TEXT)


class Message(Base):
    """The ``position``-th chat message sent on a turn; its content is a JSON blob. Layout 1 only:
    this release reads these rows but writes ``episode_messages`` and ``turn_prompts`` instead."""

    __tablename__ = "messages"

    turn_id: Mapped[int] = mapped_column(WIDE, ForeignKey("turns.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    role: Mapped[str] = mapped_column(String(20))
    content_sha256: Mapped[str] = mapped_column(ForeignKey("blobs.sha256"))
    # Keys of the message other than role and content (e.g. "name"), kept so it round-trips.
    extra: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    # No index on content_sha256: nothing looks messages up by content, and every index slows add_turn.


class EpisodeMessage(Base):
    """The ``seq``-th distinct message row of an episode (layout 2): written by the first turn that
    sent it; later turns refer to it by ``seq`` through their ``turn_prompts`` spans."""

    __tablename__ = "episode_messages"

    episode_id: Mapped[str] = mapped_column(ForeignKey("episodes.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    role: Mapped[str] = mapped_column(String(20))
    content_sha256: Mapped[str] = mapped_column(ForeignKey("blobs.sha256"))
    extra: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))


class TurnPrompt(Base):
    """The prompt a turn sent (layout 2, schema 2-4; read, no longer written: schema 5 keeps the
    spans in ``turns.prompt_spans``), as ``[[start, stop], ...]`` half-open spans of its
    episode's ``episode_messages`` seqs: full history is one growing span, a sliding window or a
    markovian prompt a few."""

    __tablename__ = "turn_prompts"

    turn_id: Mapped[int] = mapped_column(WIDE, ForeignKey("turns.id", ondelete="CASCADE"), primary_key=True)
    spans: Mapped[list[Any]] = mapped_column(JSON)


class SchemaVersion(Base):
    """The layout version of the database's tables (one row, ``id`` 1); no row or no table: 1."""

    __tablename__ = "agentkit_schema"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[int] = mapped_column(Integer)


class Blob(Base):
    """Content-addressed bytes: decoded images, and the canonical JSON of message contents."""

    __tablename__ = "blobs"

    sha256: Mapped[str] = mapped_column(String(SHA256_LEN), primary_key=True)
    media_type: Mapped[str] = mapped_column(String(100))
    data: Mapped[bytes] = mapped_column(LargeBinary)  # empty when the bytes are in a pack
    size: Mapped[int] = mapped_column(WIDE)
    # An image of a SQLite file store: the pack file beside the database holding its bytes, and
    # where (agentkit.transcripts.image_packs). NULL: the bytes are in ``data``.
    pack: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
    pack_offset: Mapped[int | None] = mapped_column(WIDE, nullable=True, default=None)


class CachedResponse(Base):
    """A model answer kept so that an identical request (model, parameters, messages) is not paid twice."""

    __tablename__ = "response_cache"

    key: Mapped[str] = mapped_column(String(SHA256_LEN), primary_key=True)
    model: Mapped[str] = mapped_column(String(200))
    answer: Mapped[str] = mapped_column(ANY_TEXT)
    input_tokens: Mapped[int] = mapped_column(WIDE, default=0)
    output_tokens: Mapped[int] = mapped_column(WIDE, default=0)
    cost_usd: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[float] = mapped_column(Float)
