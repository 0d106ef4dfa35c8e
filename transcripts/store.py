"""The transcript store: runs, episodes and turns written as they happen, and read back for
listing, replay and export (the reading methods are ``agentkit.transcripts.reader``'s).

Writes are shaped for crash safety: ``start_episode`` commits at once and every ``add_turn`` is
its own short transaction, committed before it returns, so killing the process loses at most the
turn in flight. ``add_turn`` is the hot path (called once per model answer, possibly from many
parallel episodes), so it uses prepared Core insert statements and remembers which blobs are
already stored instead of asking the database.

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

import base64
import binascii
import hashlib
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Engine, Insert, delete, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DatabaseError, IntegrityError

from agentkit.messages import Message
from agentkit.records import VERSION as AGENTKIT_VERSION
from agentkit.records import EpisodeResult, StorageError, TurnRecord, templates_hash
from agentkit.transcripts import prompt_reader, run_lease
from agentkit.transcripts.db import WAL_AUTOCHECKPOINT_PAGES, begin_write, canonical_json, make_engine
from agentkit.transcripts.image_packs import PackWriteError, PackWriter, folder_of
from agentkit.transcripts.liveness import _Liveness, _writer_identity
from agentkit.transcripts.message_images import _split_data_url, stored_content
from agentkit.transcripts.message_tool_calls import tool_extra
from agentkit.transcripts.prompt_spans import EpisodeMessages, MessageKey, PromptPlan
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
from agentkit.transcripts.schema import CachedResponse, EpisodeMessage, table_of
from agentkit.transcripts.scrub import scrub_secrets
from agentkit.transcripts.sqlite_driver import sqlite_connection
from agentkit.transcripts.sqlite_turn_writer import _SQLiteTurnWriter
from agentkit.transcripts.storable_text import escape_turn, escape_value, is_unstorable_text_error
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
CACHE = table_of(CachedResponse)

JSON_MEDIA_TYPE = "application/json"
_IMAGE_CACHE_SIZE = 512  # data URLs remembered with their hash (full-history prompts resend them)
_MESSAGE_CACHE_SIZE = 4096  # message objects remembered with their content hash (treated as immutable)
_EPISODE_LOG_SIZE = (
    1024  # episodes whose message rows are remembered (others are read back on their next turn)
)


# --- content addressing ----------------------------------------------------------------------------


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
        # data URL -> (sha256, media type): resent images are not decoded and hashed again.
        self._image_hashes: dict[str, tuple[str, str]] = {}
        # Typed messages (agentkit.messages) by value -> (content sha256, key): a resent message is not encoded again.
        self._typed_hashes: dict[Message, tuple[str, MessageKey]] = {}
        # Per episode, the message rows it has committed: a turn writes only the ones it adds.
        self._episode_logs: dict[str, EpisodeMessages] = {}
        # Per episode, its last prompt as sent and encoded: a full-history prompt repeats it.
        self._last_prompts: dict[
            str, tuple[list[dict[str, Any]], list[MessageKey], dict[MessageKey, Any]]
        ] = {}

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
        """A cached answer for ``key`` younger than ``max_age_s`` (None: any age), or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(CACHE).where(CACHE.c.key == key)).first()
        if row is None or (max_age_s is not None and time.time() - row.created_at > max_age_s):
            return None
        return dict(row._mapping)

    def cache_put(
        self, key: str, model: str, answer: str, input_tokens: int, output_tokens: int, cost_usd: float
    ) -> None:
        row = {
            "key": key,
            "model": model,
            "answer": escape_value(answer),
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cost_usd": cost_usd,
            "created_at": time.time(),
        }
        with self._transaction() as conn:
            conn.execute(delete(CACHE).where(CACHE.c.key == key))
            conn.execute(insert(CACHE), row)

    def add_turn(self, episode_id: str, turn: TurnRecord) -> None:
        """Store one turn in its own transaction, committed before returning.

        Text the database refuses (a lone surrogate, a NUL) is stored escaped as ``\\uXXXX``
        (``agentkit.transcripts.storable_text``) rather than losing a paid answer. Raises
        ``TurnExistsError`` if the episode already has this index, ``KeyError`` for an unknown
        episode, ``StorageError`` when the database cannot be written.
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
        keys, extras, new_blobs = self._encode_prompt(episode_id, turn.messages)
        blob_rows, blob_bytes_in_db = self._place_blobs(new_blobs)
        usage = turn.usage
        row = {
            "episode_id": episode_id,
            "index": turn.index,
            "observation": turn.observation,
            "answer": turn.answer,
            "script": turn.script,
            "parse_error": turn.parse_error,
            "compile_error": turn.compile_error,
            "actions": turn.actions,
            "reward": turn.reward,
            "total_reward": turn.total_reward,
            "health": turn.health,
            "done": turn.done,
            "timings": turn.timings,
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cost_usd": usage.cost_usd,
            "latency_s": turn.latency_s,
            "cached": turn.cached,
            "created_at": time.time(),
            "tool_calls": turn.tool_calls,
        }
        fast = self._fast
        try:
            # The first INSERT opens the transaction (BEGIN IMMEDIATE on SQLite, see db.py).
            with self._writing() as conn, conn.begin():
                log_of_episode = self._episode_log(conn, episode_id)
                plan = log_of_episode.plan(keys)
                row["prompt_spans"] = plan.spans
                new_rows = [
                    {
                        "episode_id": episode_id,
                        "seq": seq,
                        "role": key[0],
                        "content_sha256": key[1],
                        "extra": extras.get(key),
                    }
                    for seq, key in plan.new_rows
                ]
                if blob_bytes_in_db and self._checkpointer is not None:
                    self._checkpointer.wrote(blob_bytes_in_db)
                if fast is not None:
                    turn_id = fast.add_turn(conn, row, blob_rows, new_rows)
                else:
                    if blob_rows:
                        self._insert_blobs(conn, blob_rows)
                    primary = conn.execute(self._turn_insert, row).inserted_primary_key
                    assert primary is not None  # a one-row INSERT with an autoincrement key
                    turn_id = primary[0]
                    if new_rows:
                        conn.execute(self._message_insert, new_rows)
                if turn.prompt_context is not None:  # an episode's first turn: its prompt variables
                    conn.execute(
                        insert(CONTEXTS),
                        {
                            "episode_id": episode_id,
                            "context": turn.prompt_context,
                            "world_map": turn.world_map,
                        },
                    )
                if turn.task_source is not None:  # the task's file, for a task named by a path
                    conn.execute(insert(SOURCES), {"episode_id": episode_id, **turn.task_source})
                if turn.model_call is not None:  # an API model's call: finish reason, retries, its counts
                    conn.execute(insert(CALLS), {"turn_id": turn_id, **asdict(turn.model_call)})
        except (IntegrityError, sqlite3.IntegrityError) as exc:
            if not reread and episode_id in self._episode_logs:
                # Another store wrote turns of this episode since (its message rows took the seqs
                # remembered here as free): read the episode's rows back and try once more.
                self._episode_logs.pop(episode_id, None)
                self._last_prompts.pop(episode_id, None)
                return self._add_turn(episode_id, turn, reread=True)
            raise self._explain_turn_conflict(episode_id, turn.index) from exc
        if new_blobs:  # only after the commit: a rolled-back blob is not known
            self._known_blobs.update(new_blobs)
            if self._packed:
                for sha in new_blobs:
                    self._packed.pop(sha, None)
        self._commit_plan(episode_id, log_of_episode, plan)
        self._last_prompts[episode_id] = (list(turn.messages), keys, extras)

    def _place_blobs(self, new_blobs: dict[str, dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
        """The rows of a turn's new blobs, and how many of their bytes go into the database.

        An image of a SQLite file store is appended to this process's pack first (before the
        transaction, outside the writer lock) and its row names where; other blobs (message
        contents, images of other backends) keep their bytes in the row."""
        packs = self._packs
        in_db = 0
        for sha, blob in new_blobs.items():  # the rows as queued for this turn: completed in place
            if packs is None or not str(blob["media_type"]).startswith("image/"):
                blob["pack"] = blob["pack_offset"] = None
                in_db += blob["size"]
                continue
            where = self._packed.get(sha)
            if where is None:
                try:
                    where = packs.append(blob["data"])
                except PackWriteError as exc:
                    raise StorageError(f"the transcript store cannot write: {exc.strerror}") from exc
                if len(self._packed) >= _IMAGE_CACHE_SIZE:  # only failed turns leave entries behind
                    self._packed.clear()
                self._packed[sha] = where
            blob.update(data=b"", pack=where[0], pack_offset=where[1])
        return list(new_blobs.values()), in_db

    def _encode_prompt(
        self, episode_id: str, messages: list[Message | dict[str, Any]]
    ) -> tuple[list[MessageKey], dict[MessageKey, dict[str, Any]], dict[str, dict[str, Any]]]:
        """``_encode_messages`` of a prompt, reusing the keys of the episode's previous prompt when
        this one starts with it (full history: only the turn's new messages are encoded). Equal
        messages have equal keys, and the list comparison is by identity first, at C speed."""
        last = self._last_prompts.get(episode_id)
        if last is not None:
            sent, keys, extras = last
            k = len(sent)
            try:
                continues = 0 < k <= len(messages) and messages[:k] == sent
            except (TypeError, ValueError):  # values without a plain == (an array, say): encode afresh
                continues = False
            if continues:
                new_keys, new_extras, new_blobs = self._encode_messages(messages[k:])
                return [*keys, *new_keys], {**extras, **new_extras} if new_extras else extras, new_blobs
            # Not a continuation (a markovian or windowed prompt): the messages it still shares with
            # the previous prompt at its start (the system message, a worked example) keep their keys.
            same = 0
            for now, before in zip(messages, sent):
                if now is not before:
                    break
                same += 1
            if same and not extras:
                new_keys, new_extras, new_blobs = self._encode_messages(messages[same:])
                return [*keys[:same], *new_keys], new_extras, new_blobs
        return self._encode_messages(messages)

    def _episode_log(self, conn: Connection, episode_id: str) -> EpisodeMessages:
        """The episode's committed message rows: remembered, or read back (another store wrote them)."""
        found = self._episode_logs.get(episode_id)
        if found is None:
            found = prompt_reader.episode_messages(conn, episode_id)
        return found

    def _commit_plan(self, episode_id: str, log_of_episode: EpisodeMessages, plan: PromptPlan) -> None:
        log_of_episode.commit(plan)
        self._remember_log(episode_id, log_of_episode)

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
        self._image_hashes.clear()
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

    def _encode_messages(
        self, messages: list[Message | dict[str, Any]]
    ) -> tuple[list[MessageKey], dict[MessageKey, dict[str, Any]], dict[str, dict[str, Any]]]:
        """Each message's key (role, content hash, extra keys), the extra keys of those that have
        any, and the blobs not yet known to be stored."""
        known = self._known_blobs
        new_blobs: dict[str, dict[str, Any]] = {}
        keys: list[MessageKey] = []
        extras: dict[MessageKey, dict[str, Any]] = {}
        typed_cache = self._typed_hashes
        for message in messages:
            if isinstance(message, Message):  # typed: images come with their bytes and sha256
                typed = typed_cache.get(message)
                if typed is None or typed[0] not in known:
                    data = canonical_json(stored_content(message.content, new_blobs, known))
                    sha = hashlib.sha256(data).hexdigest()
                    if sha not in known and sha not in new_blobs:
                        new_blobs[sha] = {
                            "sha256": sha,
                            "media_type": JSON_MEDIA_TYPE,
                            "data": data,
                            "size": len(data),
                        }
                    typed = (sha, prompt_reader.message_key(message.role, sha, tool_extra(message)))
                    if len(typed_cache) >= _MESSAGE_CACHE_SIZE:
                        typed_cache.pop(next(iter(typed_cache)), None)
                    typed_cache[message] = typed
                keys.append(typed[1])
                if typed[1][2] is not None:  # a tool call or result: its keys go to the row's extra
                    extras[typed[1]] = tool_extra(message) or {}
                continue
            # An OpenAI-style dict (a caller not on typed messages): encoded afresh; a full-history
            # prompt's earlier messages were already skipped by _encode_prompt.
            content = message.get("content")
            if isinstance(content, list):
                content = self._encode_parts(content, new_blobs)
            data = canonical_json(content)
            sha = hashlib.sha256(data).hexdigest()
            if sha not in known and sha not in new_blobs:
                new_blobs[sha] = {
                    "sha256": sha,
                    "media_type": JSON_MEDIA_TYPE,
                    "data": data,
                    "size": len(data),
                }
            extra = {k: v for k, v in message.items() if k != "role" and k != "content"} or None
            key = prompt_reader.message_key(message.get("role", ""), sha, extra)
            keys.append(key)
            if extra is not None:
                extras[key] = extra
        return keys, extras, new_blobs

    def _encode_parts(self, parts: list[Any], new_blobs: dict[str, dict[str, Any]]) -> list[Any]:
        """Content parts with every base64 data-URL image replaced by an ``image_ref`` part."""
        out: list[Any] = []
        for part in parts:
            image_url = (
                part.get("image_url") if isinstance(part, dict) and part.get("type") == "image_url" else None
            )
            url = image_url.get("url") if isinstance(image_url, dict) else None
            ref = self._image_ref(url, new_blobs) if isinstance(url, str) else None
            if ref is None:
                out.append(part)
                continue
            sha, media_type = ref
            new_part = {k: v for k, v in part.items() if k not in ("type", "image_url")}
            new_part.update(type="image_ref", sha256=sha, media_type=media_type)
            options = {k: v for k, v in (image_url or {}).items() if k != "url"}  # e.g. "detail"; a dict here
            if options:
                new_part["image_url_options"] = options
            out.append(new_part)
        return out

    def _image_ref(self, url: str, new_blobs: dict[str, dict[str, Any]]) -> tuple[str, str] | None:
        """(sha256, media type) of a data-URL image, queuing its blob if not stored yet."""
        cached = self._image_hashes.get(url)
        if cached is not None and (cached[0] in self._known_blobs or cached[0] in new_blobs):
            return cached
        split = _split_data_url(url)
        if split is None:
            return None
        media_type, payload = split
        try:
            data = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            return None  # kept inline in the message content, still stored once per distinct content
        sha = hashlib.sha256(data).hexdigest()
        if sha not in self._known_blobs and sha not in new_blobs:
            new_blobs[sha] = {"sha256": sha, "media_type": media_type, "data": data, "size": len(data)}
        if len(self._image_hashes) >= _IMAGE_CACHE_SIZE:
            try:  # evict the oldest entry; another thread may be evicting at the same moment
                self._image_hashes.pop(next(iter(self._image_hashes)), None)
            except (RuntimeError, StopIteration):
                pass
        self._image_hashes[url] = (sha, media_type)
        return sha, media_type

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
