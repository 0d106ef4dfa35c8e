"""The transcript store: runs, episodes and turns written as they happen, and read back for
listing, replay and export (the reading methods are ``agentkit.transcripts.reader``'s).

Writes are shaped for crash safety: ``start_episode`` commits at once and every ``add_turn`` is
its own short transaction, committed before it returns, so killing the process loses at most the
turn in flight. ``add_turn`` is the hot path (called once per model answer, possibly from many
parallel episodes): what to write is decided by ``encode_turn`` (``agentkit.transcripts.turn_encoding``,
pure code given what this store remembers: the blobs already stored, each episode's message rows and
last prompt), and the rows go in through prepared Core insert statements. The response cache is a
``ResponseCache`` (``agentkit.transcripts.response_cache``) the store holds and passes through.

Status of episodes (and runs)
-----------------------------
The stored status is "running" from ``start_episode`` until ``finish_episode`` ("finished") or
``mark_unfinished`` / ``close_stale`` ("unfinished"). A process that is killed cannot write
anything, so the writer's host name, pid and process start time are stored with each episode and
run. Readers report a "running" row as **"unfinished"** when it was written on this host and that
process no longer exists (or the pid now belongs to a different process, or is a zombie).
Rows written on another host are reported as stored, since their process cannot be checked from
here; ``close_stale(older_than_s=...)`` closes those by age of their last turn. ``close_stale()``
rewrites the rows readers already report as unfinished, filling in turn and token totals from the
stored turns. A run has one live writer at a time: ``take_run`` gives it a lease that the writer
renews and that expires (``agentkit.transcripts.run_lease``).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Engine, Insert, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DatabaseError, IntegrityError

from agentkit.messages import Message
from agentkit.records import VERSION as AGENTKIT_VERSION
from agentkit.records import EpisodeResult, StorageError, TurnRecord, templates_hash
from agentkit.transcripts import prompt_reader, run_lease
from agentkit.transcripts.db import WAL_AUTOCHECKPOINT_PAGES, begin_write, make_engine
from agentkit.transcripts.image_packs import PackWriteError, PackWriter, folder_of
from agentkit.transcripts.liveness import _Liveness, _writer_identity
from agentkit.transcripts.prompt_spans import EpisodeMessages
from agentkit.transcripts.reader import (
    BLOBS,
    CALLS,
    CONTEXTS,
    EPISODES,
    RUNS,
    SOURCES,
    TURNS,
    TranscriptReader,
    _chunks,
    _utc,
)
from agentkit.transcripts.records import (  # re-exported
    BlobInfo,
    EpisodeInfo,
    RunInfo,
    TurnExistsError,
    TurnInfo,
)
from agentkit.transcripts.response_cache import ResponseCache
from agentkit.transcripts.schema import EpisodeMessage, table_of
from agentkit.transcripts.scrub import scrub_secrets
from agentkit.transcripts.sqlite_driver import sqlite_connection
from agentkit.transcripts.sqlite_turn_writer import _SQLiteTurnWriter
from agentkit.transcripts.storable_text import escape_turn, is_unstorable_text_error
from agentkit.transcripts.turn_encoding import (
    BlobRow,
    EncodedMessage,
    KnownToStore,
    SentPrompt,
    TurnRows,
    encode_turn,
)
from agentkit.transcripts.wal_checkpointer import BACKSTOP_PAGES, WalCheckpointer

__all__ = [
    "BlobInfo",
    "EpisodeInfo",
    "RunInfo",
    "TranscriptStore",
    "TurnExistsError",
    "TurnInfo",
    "scrub_secrets",
]

log = logging.getLogger(__name__)

EPISODE_MESSAGES = table_of(
    EpisodeMessage
)  # the reader's tables (RUNS, TURNS, ...) come from agentkit.transcripts.reader

_PACKED_SIZE = 512  # images appended to a pack by turns that failed, remembered for their retry
_MESSAGE_CACHE_SIZE = 4096  # message objects remembered with their content hash (treated as immutable)
_EPISODE_LOG_SIZE = (
    1024  # episodes whose message rows are remembered (others are read back on their next turn)
)


# --- helpers ---------------------------------------------------------------------------------------


def _new_id(n: int) -> str:
    return uuid.uuid4().hex[:n]


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _insert_ignore(engine: Engine) -> Insert | None:
    """An INSERT into blobs that skips rows already present, for this backend; None if unknown."""
    name = engine.dialect.name
    if name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(BLOBS).on_conflict_do_nothing(index_elements=["sha256"])
    if name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(BLOBS).on_conflict_do_nothing(index_elements=["sha256"])
    if name in ("mysql", "mariadb"):
        return insert(BLOBS).prefix_with("IGNORE")
    return None


# --- the store -------------------------------------------------------------------------------------


class TranscriptStore(TranscriptReader):
    """Transcripts in a SQLAlchemy database (default: ``agentkit.db`` in the working directory);
    its reading methods are ``TranscriptReader``'s.

    Safe to share between threads; each process should open its own store.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        engine: Engine | None = None,
        fast_path: bool = True,
        background_checkpoints: bool = True,
        image_files: bool = True,
    ) -> None:
        """Open (and create if needed) the store at ``url``, or on an engine from ``make_engine``.

        ``fast_path`` (SQLite only) runs add_turn's Core insert statements, compiled once, on the
        driver connection; False runs them through ``Connection.execute`` (same SQL, same
        transaction, about 1.5 times the time per turn). ``background_checkpoints`` (a SQLite file
        only) copies the write-ahead log back on a thread (``agentkit.transcripts.wal_checkpointer``);
        False leaves that to SQLite, inside the commit that crosses its threshold. ``image_files``
        (a SQLite file only) appends image bytes to pack files beside the database
        (``agentkit.transcripts.image_packs``); False keeps them inside it: a single-file store, at
        about two thirds of the turn rate (``bench/store_speed.py``).
        """
        if engine is None:
            self.engine = make_engine(url)  # make_engine refuses a newer agentkit's database
        else:  # e.g. a read-only engine: refused all the same
            super().__init__(engine)
        sqlite = self.engine.dialect.name == "sqlite"
        self._fast = (
            _SQLiteTurnWriter(self.engine) if fast_path and self.engine.dialect.driver == "pysqlite" else None
        )
        self._blob_insert = _insert_ignore(self.engine)
        self._turn_insert = insert(TURNS)
        self._message_insert = insert(EPISODE_MESSAGES)
        # Blob hashes known to be committed (blobs are never deleted while writers run).
        self._known_blobs: set[str] = set()
        # SQLite has one writer at a time anyway, so turns go through one held connection (no pool
        # round trip per turn), guarded by a lock; other backends take pooled connections.
        self._hold_writer = sqlite
        self._writer_lock = threading.Lock()
        self._writer_conn: Connection | None = None
        self._writer_pid = os.getpid()
        # A file on SQLite: its log is copied back into the database on a thread of its own, not
        # inside the commit of whichever turn crosses the threshold (agentkit.transcripts.wal_checkpointer).
        folder = folder_of(self.engine) if image_files and sqlite and not self.is_memory else None
        self._packs = PackWriter(folder) if folder is not None else None
        # Image bytes appended to a pack whose rows are not committed yet: a retried turn reuses them.
        self._packed: dict[str, tuple[str, int]] = {}
        self._checkpointer = (
            WalCheckpointer(self.engine, before_checkpoint=self._packs.sync if self._packs else None)
            if background_checkpoints and sqlite and not self.is_memory
            else None
        )
        # Typed messages (agentkit.messages) by value -> (content sha256, key): a resent message is not encoded again.
        self._typed_hashes: dict[Message, EncodedMessage] = {}
        # Per episode, the message rows it has committed: a turn writes only the ones it adds.
        self._episode_logs: dict[str, EpisodeMessages] = {}
        # Per episode, its last prompt as sent and encoded: a full-history prompt repeats it.
        self._last_prompts: dict[str, SentPrompt] = {}
        self._responses = ResponseCache(self.engine, self._transaction)

    @property
    def url(self) -> str:
        """The database URL (with any password), for worker processes that open their own store."""
        return self.engine.url.render_as_string(hide_password=False)

    @property
    def is_memory(self) -> bool:
        return self.engine.dialect.name == "sqlite" and self.engine.url.database in (None, "", ":memory:")

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
        if self._packs is not None:
            self._packs.close()
        with self._writer_lock:
            if self._writer_conn is not None and self._writer_pid == os.getpid():
                self._release_writer()
            self._writer_conn = None
        self.engine.dispose()

    def __enter__(self) -> TranscriptStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing -----------------------------------------------------------------------------------

    def create_run(
        self,
        env: str,
        tasks: Iterable[str] | str,
        model: str,
        config: dict[str, Any],
        templates: dict[str, str],
    ) -> str:
        """Record a run; ``config`` is stored with secrets removed (``scrub_secrets``)."""
        run_id = _new_id(12)
        host, pid, start = _writer_identity()
        row = {
            "id": run_id,
            "created_at": _now(),
            "env": env,
            "tasks": [tasks] if isinstance(tasks, str) else list(tasks),
            "model": model,
            "config": scrub_secrets(config),
            "templates": dict(templates),
            "templates_hash": templates_hash(templates),
            "agentkit_version": AGENTKIT_VERSION,
            "status": "running",
            "writer_host": host,
            "writer_pid": pid,
            "writer_start": start,
        }
        with self._transaction() as conn:
            conn.execute(insert(RUNS), row)
        log.debug("run %s created (%s, %s)", run_id, env, model)
        return run_id

    def finish_run(self, run_id: str, status: str = "finished") -> None:
        """Mark a run as done (its episodes carry their own status)."""
        with self._transaction() as conn:
            if conn.execute(update(RUNS).where(RUNS.c.id == run_id).values(status=status)).rowcount == 0:
                raise KeyError(f"no run {run_id!r}")

    def start_episode(
        self,
        run_id: str,
        task: str,
        seed: int,
        trial: int = 0,
        attempt: int = 0,
        episode_id: str | None = None,
    ) -> str:
        """Record the start of an episode (committed at once, status "running").

        ``episode_id`` lets the runner use stable ids derived from (run, task, trial, seed, attempt).
        """
        episode_id = episode_id or _new_id(16)
        host, pid, start = _writer_identity()
        row = {
            "id": episode_id,
            "run_id": run_id,
            "task": task,
            "seed": seed,
            "trial": trial,
            "attempt": attempt,
            "status": "running",
            "started_at": _now(),
            "writer_host": host,
            "writer_pid": pid,
            "writer_start": start,
        }
        try:
            with self._transaction() as conn:
                conn.execute(insert(EPISODES), row)
        except IntegrityError as exc:
            with self.engine.connect() as conn:
                taken = conn.execute(select(EPISODES.c.id).where(EPISODES.c.id == episode_id)).first()
            if taken is not None:
                raise KeyError(f"episode {episode_id} exists already (run {run_id})") from exc
            raise KeyError(f"no run {run_id!r}") from exc
        self._remember_log(episode_id, EpisodeMessages())  # a new episode has no message rows to read back
        return episode_id

    def reopen_run(self, run_id: str) -> None:
        """Make this process the writer of an existing run again (for ``--resume``)."""
        host, pid, start = _writer_identity()
        with self._transaction() as conn:
            done = conn.execute(
                update(RUNS)
                .where(RUNS.c.id == run_id)
                .values(status="running", writer_host=host, writer_pid=pid, writer_start=start)
            ).rowcount
        if not done:
            raise KeyError(f"no run {run_id!r}")

    def take_run(self, run_id: str) -> str:
        """Become the run's one live writer; returns the lease token (``agentkit.transcripts.run_lease``).

        Raises ``RunBusyError`` (one line) when another live process writes the run, KeyError
        for an unknown run.
        """
        with self._transaction(reads_first=True) as conn:
            return run_lease.take(conn, run_id)

    def renew_run(self, run_id: str, token: str) -> bool:
        """The writer's heartbeat; False when another process has taken the run over."""
        with self._transaction() as conn:
            return run_lease.renew(conn, run_id, token)

    def release_run(self, run_id: str, token: str) -> None:
        with self._transaction() as conn:
            run_lease.release(conn, run_id, token)

    # --- response cache -------------------------------------------------------------------------

    def cache_get(self, key: str, max_age_s: float | None = None) -> dict[str, Any] | None:
        """A cached answer for ``key`` younger than ``max_age_s`` (None: any age), or None
        (``agentkit.transcripts.response_cache``)."""
        return self._responses.get(key, max_age_s)

    def cache_put(
        self, key: str, model: str, answer: str, input_tokens: int, output_tokens: int, cost_usd: float
    ) -> None:
        """Keep the answer for ``key`` in the response cache."""
        self._responses.put(key, model, answer, input_tokens, output_tokens, cost_usd)

    def add_turn(self, episode_id: str, turn: TurnRecord) -> None:
        """Store one turn in its own transaction, committed before returning.

        Text the database refuses (a lone surrogate, a NUL) is stored escaped as ``\\uXXXX``
        (``agentkit.transcripts.storable_text``) rather than losing a paid answer. Raises
        ``TurnExistsError`` if the episode already has this index, ``KeyError`` for an unknown
        episode, ``StorageError`` when the database cannot be written, and ``UntypedMessageError``
        (``agentkit.transcripts.turn_encoding``, a ``TypeError`` naming the message) when
        ``turn.messages`` holds anything but ``agentkit.messages.Message``: a caller's OpenAI-style
        dicts are read with ``agentkit.messages.messages_from_openai`` first, never stored as they are.
        """
        try:
            self._add_turn(episode_id, turn)
        except ValueError as exc:  # UnicodeEncodeError included
            if not is_unstorable_text_error(exc):
                raise
            log.warning(
                "episode %s turn %d: characters the database refuses stored as \\uXXXX escapes",
                episode_id,
                turn.index,
            )
            self._add_turn(episode_id, escape_turn(turn))

    def _add_turn(self, episode_id: str, turn: TurnRecord, reread: bool = False) -> None:
        """Read what the store knows, encode the turn (``encode_turn``, no database), insert its rows.

        The episode's message log is remembered from its earlier turns, or read back when another
        store wrote them; if another store wrote turns since (its rows took the seqs taken here as
        free), the insert conflicts and the turn is encoded and tried once more on a fresh log."""
        log_of_episode = self._episode_logs.get(episode_id)
        if log_of_episode is None:
            with self._writing() as conn, conn.begin():
                log_of_episode = prompt_reader.episode_messages(conn, episode_id)
        known = KnownToStore(
            self._known_blobs, log_of_episode, self._last_prompts.get(episode_id), self._typed_hashes
        )
        rows = encode_turn(turn, known, episode_id=episode_id, created_at=time.time())
        self._remember_encoded(rows.encoded)
        blob_rows, blob_bytes_in_db = self._place_blobs(rows.blobs)
        try:
            # The first INSERT opens the transaction (BEGIN IMMEDIATE on SQLite, see db.py).
            with self._writing() as conn, conn.begin():
                if blob_bytes_in_db and self._checkpointer is not None:
                    self._checkpointer.wrote(blob_bytes_in_db)
                self._insert_turn(conn, rows, blob_rows)
        except (IntegrityError, sqlite3.IntegrityError) as exc:
            if not reread:
                self._episode_logs.pop(episode_id, None)
                self._last_prompts.pop(episode_id, None)
                return self._add_turn(episode_id, turn, reread=True)
            raise self._explain_turn_conflict(episode_id, turn.index) from exc
        if rows.blobs:  # only after the commit: a rolled-back blob is not known
            known_blobs, packed = self._known_blobs, self._packed
            for blob in rows.blobs:
                known_blobs.add(blob["sha256"])
                if packed:
                    packed.pop(blob["sha256"], None)
        log_of_episode.commit(rows.plan)
        self._remember_log(episode_id, log_of_episode)
        self._last_prompts[episode_id] = rows.prompt

    def _insert_turn(self, conn: Connection, rows: TurnRows, blob_rows: list[dict[str, Any]]) -> None:
        """The turn's rows, inside the caller's transaction: its new blobs, the turn, the episode's new
        message rows, and the rows of a first turn and of the model call when it has them."""
        if self._fast is not None:
            turn_id = self._fast.add_turn(conn, rows.turn, blob_rows, rows.messages)
        else:
            if blob_rows:
                self._insert_blobs(conn, blob_rows)
            primary = conn.execute(self._turn_insert, rows.turn).inserted_primary_key
            assert primary is not None  # a one-row INSERT with an autoincrement key
            turn_id = primary[0]
            if rows.messages:
                conn.execute(self._message_insert, rows.messages)
        if rows.context is not None:  # an episode's first turn: its prompt variables
            conn.execute(insert(CONTEXTS), rows.context)
        if rows.source is not None:  # the task's file, for a task named by a path
            conn.execute(insert(SOURCES), rows.source)
        if rows.call is not None:  # an API model's call: finish reason, retries, its counts
            conn.execute(insert(CALLS), {"turn_id": turn_id, **rows.call})

    def _remember_encoded(self, encoded: dict[Message, EncodedMessage]) -> None:
        """Keep the typed messages a turn encoded, so a full-history prompt does not encode them again."""
        memo = self._typed_hashes
        for message, done in encoded.items():
            if len(memo) >= _MESSAGE_CACHE_SIZE:
                try:  # evict the oldest entry; another thread may be evicting at the same moment
                    memo.pop(next(iter(memo)), None)
                except (RuntimeError, StopIteration):
                    pass
            memo[message] = done

    def _place_blobs(self, new_blobs: list[BlobRow]) -> tuple[list[dict[str, Any]], int]:
        """The rows of a turn's new blobs as inserted, and how many of their bytes go into the database.

        An image of a SQLite file store is appended to this process's pack first (before the
        transaction, outside the writer lock) and its row names where; other blobs (message
        contents, images of other backends) keep their bytes in the row."""
        packs = self._packs
        in_db = 0
        placed: list[dict[str, Any]] = []
        for blob in new_blobs:
            if packs is None or not blob["media_type"].startswith("image/"):
                placed.append({**blob, "pack": None, "pack_offset": None})
                in_db += blob["size"]
                continue
            sha = blob["sha256"]
            where = self._packed.get(sha)
            if where is None:
                try:
                    where = packs.append(blob["data"])
                except PackWriteError as exc:
                    raise StorageError(f"the transcript store cannot write: {exc.strerror}") from exc
                if len(self._packed) >= _PACKED_SIZE:  # only failed turns leave entries behind
                    self._packed.clear()
                self._packed[sha] = where
            placed.append({**blob, "data": b"", "pack": where[0], "pack_offset": where[1]})
        return placed, in_db

    def _remember_log(self, episode_id: str, log_of_episode: EpisodeMessages) -> None:
        logs = self._episode_logs
        if episode_id not in logs and len(logs) >= _EPISODE_LOG_SIZE:
            try:  # forget the oldest episode; it is read back should it write again
                oldest = next(iter(logs))
                logs.pop(oldest, None)
                self._last_prompts.pop(oldest, None)
            except (RuntimeError, StopIteration):
                pass
        logs[episode_id] = log_of_episode

    @contextmanager
    def _transaction(self, reads_first: bool = False) -> Iterator[Connection]:
        """One committed write transaction; ``reads_first`` takes the write lock before reading."""
        with self._writing() as conn, conn.begin():
            if reads_first:
                begin_write(conn)
            yield conn

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        """A connection for one write transaction; a database that cannot be written (full disk,
        read-only file, I/O error) raises ``StorageError`` (constraint violations stay as they are)."""
        try:
            with self._writing_connection() as conn:
                yield conn
        except (IntegrityError, sqlite3.IntegrityError):
            raise
        except (DatabaseError, sqlite3.DatabaseError) as exc:
            raise StorageError(
                f"the transcript store cannot write: {getattr(exc, 'orig', None) or exc}"
            ) from exc

    @contextmanager
    def _writing_connection(self) -> Iterator[Connection]:
        """A connection for one write transaction (the held one on SQLite, under its lock)."""
        if not self._hold_writer:
            with self.engine.connect() as conn:
                yield conn
            return
        with self._writer_lock:
            if self._writer_pid != os.getpid():  # forked: the parent's connections are not ours
                self.engine.dispose(close=False)
                self._writer_conn, self._writer_pid = None, os.getpid()
            if self._writer_conn is None or self._writer_conn.closed or self._writer_conn.invalidated:
                self._writer_conn = self.engine.connect()
                if self._checkpointer is not None:  # its commits leave checkpoints to the thread
                    sqlite_connection(self._writer_conn).execute(
                        f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}"
                    )
            try:
                yield self._writer_conn
            except BaseException:
                # Leave no half-state behind: the next write starts from a fresh connection.
                self._release_writer()
                self._writer_conn = None
                raise
            if self._checkpointer is not None:  # committed (or nothing written), lock still held
                self._checkpointer.committed(sqlite_connection(self._writer_conn))

    def _release_writer(self) -> None:
        """Close the held writer connection, giving it back to the pool with the usual checkpoint."""
        conn = self._writer_conn
        if conn is None:
            return
        if self._checkpointer is not None and not conn.closed and not conn.invalidated:
            try:
                sqlite_connection(conn).execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
            except (sqlite3.Error, RuntimeError):  # a broken connection: the pool discards it anyway
                pass
        conn.close()

    def finish_episode(self, episode_id: str, result: EpisodeResult, error: str | None = None) -> None:
        """Record the outcome of an episode; its status becomes "finished"."""
        if result.episode_id and result.episode_id != episode_id:
            log.warning("finish_episode(%s) given the result of episode %s", episode_id, result.episode_id)
        values = {
            "status": "finished",
            "success": result.success,
            "reward": result.reward,
            "end_reason": getattr(result.end_reason, "value", result.end_reason),
            "scripts": result.scripts,
            "turns": result.turns,
            "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens,
            "cost_usd": result.usage.cost_usd,
            "ended_at": _now(),
            "error": error,
            "metrics": result.metrics or None,
        }
        with self._transaction() as conn:
            if (
                conn.execute(update(EPISODES).where(EPISODES.c.id == episode_id).values(**values)).rowcount
                == 0
            ):
                raise KeyError(f"no episode {episode_id!r}")
        # The hash caches only pay off within an episode (full-history prompts resend its messages);
        # they hold message objects and data URLs alive, so a long run would grow by them.
        # Emptying them here costs episodes still running one re-hash of their history.
        self._typed_hashes.clear()
        self._episode_logs.pop(episode_id, None)
        self._last_prompts.pop(episode_id, None)

    def mark_unfinished(self, episode_id: str, error: str | None = None) -> bool:
        """Close a running episode that will never finish (the loop crashed, the writer died).

        Totals are summed from the stored turns. A finished episode is left alone (returns False).
        """
        self._episode_logs.pop(episode_id, None)
        self._last_prompts.pop(episode_id, None)
        with self._transaction(reads_first=True) as conn:
            if self._mark_unfinished(conn, [episode_id], error):
                return True
            if conn.execute(select(EPISODES.c.id).where(EPISODES.c.id == episode_id)).first() is None:
                raise KeyError(f"no episode {episode_id!r}")
        return False

    def close_stale(self, older_than_s: float | None = None) -> list[str]:
        """Rewrite "running" episodes (and runs) whose writer is gone as "unfinished".

        With ``older_than_s``, also those of any host whose last turn (or start) is older than
        that. Returns the ids of the episodes closed.
        """
        live = _Liveness()
        cutoff = time.time() - older_than_s if older_than_s is not None else None
        with self._transaction(reads_first=True) as conn:
            last_turn = (
                select(TURNS.c.episode_id, func.max(TURNS.c.created_at).label("last"))
                .group_by(TURNS.c.episode_id)
                .subquery()
            )
            rows = conn.execute(
                select(
                    EPISODES.c.id,
                    EPISODES.c.started_at,
                    EPISODES.c.writer_host,
                    EPISODES.c.writer_pid,
                    EPISODES.c.writer_start,
                    last_turn.c.last,
                )
                .outerjoin(last_turn, last_turn.c.episode_id == EPISODES.c.id)
                .where(EPISODES.c.status == "running")
            ).all()
            stale: list[str] = []
            for r in rows:
                if live.status("running", r.writer_host, r.writer_pid, r.writer_start) == "unfinished":
                    stale.append(r.id)
                elif cutoff is not None:
                    last = r.last if r.last is not None else _utc(r.started_at).timestamp()
                    if last < cutoff:
                        stale.append(r.id)
            if stale:
                self._mark_unfinished(conn, stale, "writer process gone; episode never finished")
            runs = conn.execute(
                select(RUNS.c.id, RUNS.c.writer_host, RUNS.c.writer_pid, RUNS.c.writer_start).where(
                    RUNS.c.status == "running"
                )
            ).all()
            dead_runs = [
                r.id
                for r in runs
                if live.status("running", r.writer_host, r.writer_pid, r.writer_start) == "unfinished"
            ]
            for chunk in _chunks(dead_runs):
                conn.execute(
                    update(RUNS)
                    .where(RUNS.c.id.in_(chunk), RUNS.c.status == "running")
                    .values(status="unfinished")
                )
        if stale:
            log.info("closed %d stale episode(s) as unfinished", len(stale))
        return stale

    # --- internals ---------------------------------------------------------------------------------

    def _insert_blobs(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        if self._blob_insert is not None:
            conn.execute(self._blob_insert, rows)
            return
        # Unknown backend: check, then insert inside a savepoint in case another writer won the race.
        for row in rows:
            if conn.execute(select(BLOBS.c.sha256).where(BLOBS.c.sha256 == row["sha256"])).first() is None:
                try:
                    with conn.begin_nested():
                        conn.execute(insert(BLOBS), row)
                except IntegrityError:
                    pass

    def _explain_turn_conflict(self, episode_id: str, index: int) -> Exception:
        with self.engine.connect() as conn:
            if conn.execute(select(EPISODES.c.id).where(EPISODES.c.id == episode_id)).first() is None:
                return KeyError(f"no episode {episode_id!r}")
            taken = conn.execute(
                select(TURNS.c.id).where(TURNS.c.episode_id == episode_id, TURNS.c["index"] == index)
            ).first()
        if taken is not None:
            return TurnExistsError(f"episode {episode_id} already has turn {index}")
        return ValueError(f"turn {index} of episode {episode_id} violates a database constraint")

    def _mark_unfinished(self, conn: Connection, episode_ids: Sequence[str], error: str | None) -> int:
        """Set running episodes to "unfinished" with totals from their turns; returns how many."""
        totals = self._turn_totals(conn, episode_ids)
        now = _now()
        changed = 0
        for episode_id in episode_ids:
            t = totals.get(episode_id, (0, 0, 0, 0, 0.0))
            changed += conn.execute(
                update(EPISODES)
                .where(EPISODES.c.id == episode_id, EPISODES.c.status == "running")
                .values(
                    status="unfinished",
                    ended_at=now,
                    error=error,
                    turns=t[0],
                    scripts=t[1],
                    input_tokens=t[2],
                    output_tokens=t[3],
                    cost_usd=t[4],
                )
            ).rowcount
        return changed
