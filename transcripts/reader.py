"""The read side of the transcript store: runs, episodes, turns with their messages, blobs.

Why: reading needs none of the writer's state (held connection, hash caches, prompt plans), and a
read-only open (``agentkit.viewer.readonly``) or an analysis should not carry it. ``TranscriptReader``
works on any engine; ``TranscriptStore`` is a reader that also writes. Stored prompts come back
from either schema through ``agentkit.transcripts.prompt_reader``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from functools import cached_property
from typing import TYPE_CHECKING, Any, overload

from sqlalchemy import Engine, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError
from sqlalchemy.sql.elements import ColumnElement

from agentkit.records import ModelCall
from agentkit.transcripts import listings, prompt_reader, stored_json
from agentkit.transcripts.foreign_objects import refuse_views_as_tables
from agentkit.transcripts.image_packs import PackReader, folder_of
from agentkit.transcripts.liveness import _Liveness
from agentkit.transcripts.message_images import ImageMode, _data_url, _restore
from agentkit.transcripts.records import BlobInfo, EpisodeInfo, RunInfo, TurnInfo
from agentkit.transcripts.run_problems import RunProblems, count_run_problems
from agentkit.transcripts.schema import (
    Blob,
    Episode,
    EpisodeContext,
    EpisodeSource,
    Run,
    Turn,
    TurnModelCall,
    table_of,
)
from agentkit.transcripts.schema_check import check_columns
from agentkit.transcripts.schema_version import check_readable, stored_version

if TYPE_CHECKING:
    from agentkit.observers.world_map import WorldMap

RUNS = table_of(Run)
EPISODES = table_of(Episode)
TURNS = table_of(Turn)
BLOBS = table_of(Blob)
#: A turn's columns as ``TurnInfo`` has them (its prompt's spans are read with its messages).
_TURN_INFO_COLUMNS = tuple(c for c in TURNS.c if c.key != "prompt_spans")
#: What reading a blob's bytes needs: they are in ``data``, or in the pack named (image_packs).
_BLOB_COLUMNS = (
    BLOBS.c.sha256,
    BLOBS.c.media_type,
    BLOBS.c.data,
    BLOBS.c.pack,
    BLOBS.c.pack_offset,
    BLOBS.c.size,
)
CONTEXTS = table_of(EpisodeContext)
SOURCES = table_of(EpisodeSource)
CALLS = table_of(TurnModelCall)

_IN_CHUNK = 500  # ids per IN (...) list, below every backend's parameter limit
_NO_DEFAULT = object()


@overload
def _utc(value: datetime) -> datetime: ...
@overload
def _utc(value: None) -> None: ...
def _utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything is stored in UTC."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


def _chunks(items: Sequence[Any], n: int = _IN_CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


class TranscriptReader:
    """Reads a transcript database (any schema this release knows; a newer one is refused)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        with engine.connect() as conn:
            refuse_views_as_tables(conn)  # a view named like a table is never run (foreign_objects)
            version = stored_version(conn)
            check_readable(version)
            check_columns(conn, version)  # a column dropped by hand: one line now, not mid-read

    def schema_version(self) -> int | None:
        """The layout version the database records (``agentkit.transcripts.schema_version``)."""
        with self.engine.connect() as conn:
            return stored_version(conn)

    # --- reading -----------------------------------------------------------------------------------

    def list_runs(self) -> list[RunInfo]:
        """All runs, newest first, with their episode counts."""
        counts = select(EPISODES.c.run_id, func.count().label("n")).group_by(EPISODES.c.run_id).subquery()
        stmt = (
            select(RUNS, func.coalesce(counts.c.n, 0).label("n_episodes"))
            .outerjoin(counts, counts.c.run_id == RUNS.c.id)
            .order_by(RUNS.c.created_at.desc(), RUNS.c.id)
        )
        live = _Liveness()
        with self.engine.connect() as conn:
            return [self._run_info(r, live, r.n_episodes) for r in conn.execute(stmt)]

    def get_run(self, run_id: str) -> RunInfo:
        with self.engine.connect() as conn:
            r = conn.execute(select(RUNS).where(RUNS.c.id == run_id)).first()
            if r is None:
                raise KeyError(f"no run {run_id!r}")
            n = conn.execute(select(func.count()).where(EPISODES.c.run_id == run_id)).scalar_one()
        return self._run_info(r, _Liveness(), n)

    def list_episodes(
        self, run_id: str | None = None, task: str | None = None, status: str | None = None
    ) -> list[EpisodeInfo]:
        """Episodes in start order, filtered; ``status`` filters on the effective status."""
        stmt = select(EPISODES).order_by(EPISODES.c.started_at, EPISODES.c.id)
        if run_id is not None:
            stmt = stmt.where(EPISODES.c.run_id == run_id)
        if task is not None:
            stmt = stmt.where(EPISODES.c.task == task)
        if status == "finished":
            stmt = stmt.where(EPISODES.c.status == "finished")
        elif status in ("running", "unfinished"):
            stmt = stmt.where(EPISODES.c.status.in_(["running", "unfinished"]))
        elif status is not None:
            stmt = stmt.where(EPISODES.c.status == status)
        with self.engine.connect() as conn:
            episodes = self._episode_infos(conn, conn.execute(stmt).all())
        if status is not None:
            episodes = [e for e in episodes if e.status == status]
        return episodes

    def get_episode(self, episode_id: str) -> EpisodeInfo:
        with self.engine.connect() as conn:
            rows = conn.execute(select(EPISODES).where(EPISODES.c.id == episode_id)).all()
            if not rows:
                raise KeyError(f"no episode {episode_id!r}")
            return self._episode_infos(conn, rows)[0]

    def get_turns(
        self, episode_id: str, with_messages: bool = True, images: ImageMode = "data_url"
    ) -> list[TurnInfo]:
        """The turns of an episode in index order.

        Message images come back as data URLs (exactly as sent), or with ``images="ref"`` as
        ``{"type": "image_ref", "sha256": ..., "media_type": ...}`` parts (see ``get_blob``).
        """
        if images not in ("data_url", "ref"):
            raise ValueError(f"images must be 'data_url' or 'ref', not {images!r}")
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(*_TURN_INFO_COLUMNS).where(TURNS.c.episode_id == episode_id).order_by(TURNS.c["index"])
            ).all()
            if (
                not rows
                and conn.execute(select(EPISODES.c.id).where(EPISODES.c.id == episode_id)).first() is None
            ):
                raise KeyError(f"no episode {episode_id!r}")
            by_turn = self._read_messages(conn, episode_id, images) if with_messages and rows else {}
            calls = self._model_calls(conn, episode_id) if rows else {}
        turns = []
        for row in rows:
            values = dict(row._mapping)  # not row.index: Row is a tuple, .index is tuple.index
            turn_id = values.pop("id")
            turns.append(
                TurnInfo(
                    **values,
                    messages=by_turn.get(turn_id, []) if with_messages else None,
                    model_call=calls.get(turn_id),
                )
            )
        return turns

    def get_model_call(self, episode_id: str, index: int) -> ModelCall | None:
        """How turn ``index``'s model call went (finish reason, retries, token counts), or None: not
        an API model's turn, no such turn, or a database written before calls were stored."""
        turn_id = select(TURNS.c.id).where(TURNS.c.episode_id == episode_id, TURNS.c["index"] == index)
        with self.engine.connect() as conn:
            return self._model_call_of(conn, turn_id.scalar_subquery())

    def get_turn(self, episode_id: str, index: int, images: ImageMode = "ref") -> TurnInfo | None:
        """Turn ``index`` of an episode with its messages (and nothing of the other turns), or None
        when there is no such turn. Images come as ``image_ref`` parts unless asked as data URLs."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(*_TURN_INFO_COLUMNS).where(TURNS.c.episode_id == episode_id, TURNS.c["index"] == index)
            ).first()
            if row is None:
                return None
            values = dict(row._mapping)
            turn_id = values.pop("id")
            refs = {turn_id: prompt_reader.turn_refs(conn, episode_id, turn_id)}
            messages = self._messages_of(conn, refs, images, missing="")[turn_id]
            call = self._model_call_of(conn, turn_id)
        return TurnInfo(**values, messages=messages, model_call=call)

    @staticmethod
    def _model_call_of(conn: Connection, turn_id: int | ColumnElement[int]) -> ModelCall | None:
        """One turn's model call (``turn_id``: its id, or an SQL expression giving it), read on the
        caller's connection (None: not an API model's turn, or a database written before calls were
        stored)."""
        try:
            row = conn.execute(select(CALLS).where(CALLS.c.turn_id == turn_id)).first()
        except OperationalError as exc:  # an older database opened read-only: the table was never added
            if "no such table" in str(exc):
                return None
            raise
        return None if row is None else ModelCall(**{k: v for k, v in row._mapping.items() if k != "turn_id"})

    def episode_prompt_reader(
        self, message: prompt_reader.MakeMessage[prompt_reader.M]
    ) -> prompt_reader.EpisodePromptReader[prompt_reader.M]:
        """A reader of whole episodes for a caller walking thousands of turns (``agentkit
        rerender``), to use as a context manager: ``read(episode_id)`` gives each turn's fields
        and its prompt as ``message(role, content, extra)`` objects, each distinct message made
        once for all episodes read (``agentkit.transcripts.prompt_reader.EpisodePromptReader``)."""
        return prompt_reader.EpisodePromptReader(self.engine, message)

    def facets(self) -> listings.Facets:
        """The distinct envs, models and tasks stored (what a listing's filters offer)."""
        return listings.facets(self.engine)

    def run_summaries(
        self,
        verdict: listings.Verdict,
        env: str | None = None,
        model: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> listings.Page[listings.RunSummary]:
        """One page of runs, newest first, with verdict counts over their latest attempts."""
        return listings.run_summaries(self.engine, verdict, env, model, offset, limit)

    def run_problems(self, run_ids: Sequence[str]) -> dict[str, RunProblems]:
        """Per run: its turns by parse-error code and its episodes by end reason (latest attempts)."""
        return count_run_problems(self.engine, run_ids)

    def episode_summaries(
        self,
        verdict: listings.Verdict,
        run_id: str | None = None,
        env: str | None = None,
        model: str | None = None,
        task: str | None = None,
        outcome: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> listings.Page[listings.EpisodeSummary]:
        """One page of episodes in start order, filtered (``outcome``: a value of ``verdict``)."""
        return listings.episode_summaries(
            self.engine, verdict, run_id, env, model, task, outcome, offset, limit
        )

    def turn_figures(self, episode_id: str) -> list[listings.TurnFigures]:
        """Per turn of an episode: rewards, tokens, flags and the stored observation; no messages."""
        return listings.turn_figures(self.engine, episode_id)

    def turn_fields(self, episode_id: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
        """Per turn of an episode, only the named columns (and ``index``), in index order."""
        return listings.turn_fields(self.engine, episode_id, fields)

    def turns_stamp(self, episode_id: str) -> tuple[int, float]:
        """(turns, newest turn's write time): changes whenever the episode gets a turn."""
        return listings.turns_stamp(self.engine, episode_id)

    def get_image(self, sha256: str) -> BlobInfo | None:
        """An image blob, or None for an unknown hash and for a blob that is not an image."""
        try:
            blob = self.get_blob(sha256)
        except KeyError:
            return None
        return blob if blob.media_type.startswith("image/") else None

    @staticmethod
    def _model_calls(conn: Connection, episode_id: str) -> dict[int, ModelCall]:
        """The episode's model calls by turn id; none in a database written before they were stored."""
        turn_ids = select(TURNS.c.id).where(TURNS.c.episode_id == episode_id).scalar_subquery()
        try:
            rows = conn.execute(select(CALLS).where(CALLS.c.turn_id.in_(turn_ids))).all()
        except OperationalError as exc:  # an older database opened read-only: the table was never added
            if "no such table" in str(exc):
                return {}
            raise
        return {r.turn_id: ModelCall(**{k: v for k, v in r._mapping.items() if k != "turn_id"}) for r in rows}

    def get_prompt_context(self, episode_id: str) -> dict[str, Any] | None:
        """The variables the episode's prompt templates were rendered with (stored with its first
        turn), or None: no turn yet, or a database written before they were stored."""
        return self._episode_start(CONTEXTS.c.context, episode_id)

    def get_world_map(self, episode_id: str) -> WorldMap | None:
        """The backend's top-down drawing of the episode's world (``Backend.world_map``), or None:
        none stored, or a stored one that is not usable (``WorldMap.from_json`` reads it
        defensively, as any stored JSON)."""
        # Imported here, as the viewer alone draws maps: the commands that only read a store (db,
        # report, export) load nothing of agentkit.observers.
        from agentkit.observers.world_map import WorldMap

        return WorldMap.from_json(self._episode_start(CONTEXTS.c.world_map, episode_id))

    def get_task_source(self, episode_id: str) -> dict[str, str] | None:
        """The text of the file the episode's task was read from (``{"name", "text", "sha256"}``,
        stored with its first turn), or None: a packaged task, no turn yet, or an older database."""
        try:
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(SOURCES.c.name, SOURCES.c.text, SOURCES.c.sha256).where(
                        SOURCES.c.episode_id == episode_id
                    )
                ).first()
        except OperationalError as exc:  # an older database opened read-only: the table was never added
            if "no such table" in str(exc):
                return None
            raise
        return None if row is None else {"name": row.name, "text": row.text, "sha256": row.sha256}

    def _episode_start(self, column: Any, episode_id: str) -> Any:
        try:
            with self.engine.connect() as conn:
                return conn.execute(select(column).where(CONTEXTS.c.episode_id == episode_id)).scalar()
        except OperationalError as exc:  # an older database opened read-only: the table was never added
            if "no such table" in str(exc):
                return None
            raise

    def get_blob(self, sha256: str) -> BlobInfo:
        """A blob's bytes, from the database or its image pack; KeyError for an unknown hash and
        for an image whose pack is missing or does not match (after a warning naming it)."""
        with self.engine.connect() as conn:
            r = conn.execute(select(*_BLOB_COLUMNS).where(BLOBS.c.sha256 == sha256)).first()
        data = None if r is None else self._blob_bytes(r)
        if r is None or data is None:
            raise KeyError(f"no blob {sha256!r}")
        return BlobInfo(sha256, r.media_type, data)

    @cached_property
    def _pack_reader(self) -> PackReader:
        """The image packs beside a SQLite file (``agentkit.transcripts.image_packs``), found once."""
        return PackReader(folder_of(self.engine))

    def _blob_bytes(self, row: Any) -> bytes | None:
        """The bytes of a row of ``_BLOB_COLUMNS``: in the database, or in its pack (None if absent)."""
        if row.pack is None:
            return bytes(row.data)
        return self._pack_reader.read(row.sha256, row.pack, row.pack_offset, row.size)

    @staticmethod
    def _turn_totals(
        conn: Connection, episode_ids: Sequence[str]
    ) -> dict[str, tuple[int, int, int, int, float]]:
        """Per episode: (turns, scripts, input tokens, output tokens, cost) summed over stored turns."""
        totals: dict[str, tuple[int, int, int, int, float]] = {}
        for chunk in _chunks(list(episode_ids)):
            stmt = (
                select(
                    TURNS.c.episode_id,
                    func.count(),
                    func.count(TURNS.c.script),
                    func.coalesce(func.sum(TURNS.c.input_tokens), 0),
                    func.coalesce(func.sum(TURNS.c.output_tokens), 0),
                    func.coalesce(func.sum(TURNS.c.cost_usd), 0.0),
                )
                .where(TURNS.c.episode_id.in_(chunk))
                .group_by(TURNS.c.episode_id)
            )
            for episode_id, n, scripts, tin, tout, cost in conn.execute(stmt):
                totals[episode_id] = (n, scripts, tin, tout, cost)
        return totals

    def _episode_infos(self, conn: Connection, rows: Sequence[Any]) -> list[EpisodeInfo]:
        live = _Liveness()
        infos = [
            EpisodeInfo(
                id=r.id,
                run_id=r.run_id,
                task=r.task,
                seed=r.seed,
                trial=r.trial,
                attempt=r.attempt or 0,
                status=live.status(r.status, r.writer_host, r.writer_pid, r.writer_start),
                success=r.success,
                reward=r.reward,
                end_reason=r.end_reason,
                scripts=r.scripts,
                turns=r.turns,
                input_tokens=r.input_tokens,
                output_tokens=r.output_tokens,
                cost_usd=r.cost_usd,
                started_at=_utc(r.started_at),
                ended_at=_utc(r.ended_at),
                error=r.error,
                metrics=r.metrics or {},
                writer_host=r.writer_host,
                writer_pid=r.writer_pid,
            )
            for r in rows
        ]
        # Episodes still being written (or never closed) have no totals yet: sum their turns.
        open_ids = [e.id for e in infos if e.turns is None]
        if open_ids:
            totals = self._turn_totals(conn, open_ids)
            for e in infos:
                if e.turns is None:
                    e.turns, e.scripts, e.input_tokens, e.output_tokens, e.cost_usd = totals.get(
                        e.id, (0, 0, 0, 0, 0.0)
                    )
        return infos

    @staticmethod
    def _run_info(r: Any, live: _Liveness, n_episodes: int) -> RunInfo:
        return RunInfo(
            id=r.id,
            created_at=_utc(r.created_at),
            env=r.env,
            tasks=r.tasks,
            model=r.model,
            config=r.config,
            templates=r.templates,
            templates_hash=r.templates_hash,
            agentkit_version=r.agentkit_version,
            status=live.status(r.status, r.writer_host, r.writer_pid, r.writer_start),
            episodes=n_episodes,
        )

    def _read_messages(
        self, conn: Connection, episode_id: str, images: ImageMode
    ) -> dict[int, list[dict[str, Any]]]:
        """Messages of an episode's turns, by turn id; each distinct content is read and parsed once."""
        return self._messages_of(conn, prompt_reader.episode_refs(conn, episode_id), images)

    def _messages_of(
        self,
        conn: Connection,
        refs: dict[int, list[prompt_reader.MessageRef]],
        images: ImageMode,
        missing: Any = _NO_DEFAULT,
    ) -> dict[int, list[dict[str, Any]]]:
        """The messages of the given message rows, by turn id (``missing``: the content of a message
        whose blob is absent, instead of a KeyError)."""
        contents = {
            sha: stored_json.loads(data, str(stored_json.Place("blobs", sha, "data")))
            for sha, data in self._fetch_blobs(conn, {r[1] for rs in refs.values() for r in rs})
        }
        urls: dict[str, str] = {}
        if images == "data_url":
            image_shas: set[str] = set()
            for content in contents.values():
                if isinstance(content, list):
                    image_shas.update(
                        p["sha256"] for p in content if isinstance(p, dict) and p.get("type") == "image_ref"
                    )
            media = {}
            for chunk in _chunks(sorted(image_shas)):
                for row in conn.execute(select(*_BLOB_COLUMNS).where(BLOBS.c.sha256.in_(chunk))):
                    data = self._blob_bytes(row)
                    if data is not None:  # else the part stays a reference (warned)
                        media[row.sha256] = _data_url(row.media_type, data)
            urls = media
        by_turn: dict[int, list[dict[str, Any]]] = {}
        for turn_id, turn_refs in refs.items():
            messages = by_turn[turn_id] = []
            for role, sha, extra in turn_refs:
                content = contents[sha] if missing is _NO_DEFAULT else contents.get(sha, missing)
                message: dict[str, Any] = {"role": role, "content": _restore(content, urls, images)}
                if extra:
                    message.update(prompt_reader.parse_extra(extra) or {})
                messages.append(message)
        return by_turn

    @staticmethod
    def _fetch_blobs(conn: Connection, shas: set[str]) -> Iterator[tuple[str, bytes]]:
        ordered = sorted(shas)
        for chunk in _chunks(ordered):
            for sha, data in conn.execute(
                select(BLOBS.c.sha256, BLOBS.c.data).where(BLOBS.c.sha256.in_(chunk))
            ):
                yield sha, bytes(data)
