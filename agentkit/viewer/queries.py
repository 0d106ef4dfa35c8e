"""The viewer's reads: paged listings, one turn at a time, and per-episode series, all cheap.

Why not only ``TranscriptStore.get_turns``: it reads every turn of an episode with all its
messages, which is the right thing for replay and export but far too much for showing one turn of
an episode with thousands. Here a turn page reads that turn's messages only, listings are paged in
SQL, and the per-turn series of an episode (reward, tokens, positions: what the plots and the map
need) is read once and kept while the episode does not change. Everything goes through bound
parameters on the store's own tables; nothing here writes.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, func, select

from agentkit.outcome_words import (
    FAILED,
    INCOMPLETE,
    NO_VERDICT,
    PASSED,
    fail_word,
    outcome_word,
    stored_outcome,
)
from agentkit.transcripts import TranscriptStore
from agentkit.transcripts.prompt_reader import parse_extra, turn_refs
from agentkit.transcripts.records import EpisodeInfo, RunInfo, TurnInfo
from agentkit.transcripts.schema import Blob, Episode, Run, Turn
from agentkit.viewer.step_path import StepPath, replay_step_path
from agentkit.viewer.trajectory import Pose, WorldMap, pose_of, world_map_of
from agentkit.viewer.verdicts import latest_outcomes, outcome_sql

RUNS = Run.__table__
EPISODES = Episode.__table__
TURNS = Turn.__table__
BLOBS = Blob.__table__

OUTCOMES = (PASSED, FAILED, INCOMPLETE, NO_VERDICT)
# Older links and habits: a filter on "success" or "failure" means the verdict, whatever its word.
OUTCOME_ALIASES = {"success": PASSED, "failure": FAILED}
_SERIES_CACHE_SIZE = 64


@dataclass(frozen=True)
class Page:
    """One page of a listing: ``items`` of ``total``, starting at item ``offset``."""

    items: list[Any]
    total: int
    offset: int
    limit: int

    @property
    def number(self) -> int:
        return self.offset // self.limit + 1

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.limit))


@dataclass(frozen=True)
class RunRow:
    id: str
    created_at: Any
    env: str
    model: str
    tasks: list[Any]
    status: str
    episodes: int
    passed: int  # latest attempts whose verdict is a pass (as the report and eval count)
    judged: int  # latest attempts with a verdict
    templates_hash: str
    name: str | None = None  # the run's --name, if it was given one

    @property
    def word(self) -> str:
        """The backend's word for its verdict ("pass" on Animal-AI, "success" elsewhere)."""
        return outcome_word(self.env).word


def episode_outcome(
    status: str,
    success: bool | None,
    metrics: dict[str, Any] | None,
    end_reason: str | None = None,
    rule: str | None = None,
) -> str:
    """The badge of an episode: pass, fail, incomplete, or no-verdict (an episode its run's pass rule
    leaves unjudged and uncounted, agentkit.pass_rule); ``outcome_label`` gives its backend's word."""
    return stored_outcome(status, success, end_reason, metrics, rule)


def outcome_label(outcome: str, env: str) -> str:
    """The word shown for an outcome: the backend's own ("pass"/"fail", "success"/"failure")."""
    word = outcome_word(env)
    return {PASSED: word.word, FAILED: fail_word(word)}.get(outcome, outcome)


@dataclass(frozen=True)
class EpisodeRow:
    id: str
    run_id: str
    env: str
    model: str
    task: str
    seed: int
    trial: int
    status: str
    success: bool | None
    reward: float | None
    end_reason: str | None
    turns: int | None
    cost_usd: float | None
    started_at: Any
    metrics: dict[str, Any] | None = None
    outcome: str = INCOMPLETE  # PASSED, FAILED, INCOMPLETE or NO_VERDICT (agentkit.viewer.verdicts)

    @property
    def outcome_label(self) -> str:
        return outcome_label(self.outcome, self.env)


@dataclass(frozen=True)
class TurnPoint:
    """What the plots, the map and the turn strip need of one turn."""

    index: int
    reward: float
    total_reward: float
    health: float | None
    done: bool
    parsed: bool  # the answer parsed into a script
    compile_error: bool
    n_actions: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    latency_s: float
    cached: bool
    pose: Pose | None


# One turn in full, as the store describes it; the viewer reads it with messages whose images are
# ``image_ref`` parts (served from /blob/<sha>), not data URLs.
TurnDetail = TurnInfo


@dataclass(frozen=True)
class Facets:
    """The values the listing filters offer."""

    envs: list[str]
    models: list[str]
    tasks: list[str]


class ViewerData:
    """Read-side queries for the viewer over one store (thread-safe; share one per server)."""

    def __init__(self, store: TranscriptStore) -> None:
        self.store = store
        self.engine = store.engine
        self._series: OrderedDict[tuple[str, int, float], list[TurnPoint]] = OrderedDict()
        self._paths: OrderedDict[tuple[str, int, float], StepPath] = OrderedDict()
        self._lock = threading.Lock()

    # --- listings ---------------------------------------------------------------------------------

    def facets(self) -> Facets:
        with self.engine.connect() as conn:
            envs = [r[0] for r in conn.execute(select(RUNS.c.env).distinct().order_by(RUNS.c.env))]
            models = [r[0] for r in conn.execute(select(RUNS.c.model).distinct().order_by(RUNS.c.model))]
            tasks = [r[0] for r in conn.execute(select(EPISODES.c.task).distinct().order_by(EPISODES.c.task))]
        return Facets(envs, models, tasks)

    def runs(
        self, env: str | None = None, model: str | None = None, offset: int = 0, limit: int = 50
    ) -> Page:
        """Runs newest first, with their episodes, passes and judged episodes (latest attempts)."""
        latest = latest_outcomes()
        counts = (
            select(
                latest.c.run_id,
                func.count().label("n"),
                func.sum(case((latest.c.outcome == PASSED, 1), else_=0)).label("ok"),
                func.sum(case((latest.c.outcome.in_([PASSED, FAILED]), 1), else_=0)).label("done"),
            )
            .group_by(latest.c.run_id)
            .subquery()
        )
        where = []
        if env:
            where.append(RUNS.c.env == env)
        if model:
            where.append(RUNS.c.model == model)
        stmt = (
            select(
                RUNS.c.id,
                RUNS.c.created_at,
                RUNS.c.env,
                RUNS.c.model,
                RUNS.c.tasks,
                RUNS.c.status,
                RUNS.c.templates_hash,
                func.coalesce(counts.c.n, 0),
                func.coalesce(counts.c.ok, 0),
                func.coalesce(counts.c.done, 0),
                RUNS.c.config["name"].as_string(),
            )
            .outerjoin(counts, counts.c.run_id == RUNS.c.id)
            .where(*where)
            .order_by(RUNS.c.created_at.desc(), RUNS.c.id)
            .offset(offset)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            total = conn.execute(select(func.count()).select_from(RUNS).where(*where)).scalar_one()
            rows = conn.execute(stmt).all()
        items = [
            RunRow(
                id=r[0],
                created_at=r[1],
                env=r[2],
                model=r[3],
                tasks=r[4] or [],
                status=r[5],
                templates_hash=r[6],
                episodes=int(r[7]),
                passed=int(r[8]),
                judged=int(r[9]),
                name=r[10],
            )
            for r in rows
        ]
        return Page(self._live_runs(items), total, offset, limit)

    def episodes(
        self,
        run_id: str | None = None,
        env: str | None = None,
        model: str | None = None,
        task: str | None = None,
        outcome: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> Page:
        """Episodes in start order, filtered by run, env, model, task and outcome."""
        where = []
        if run_id:
            where.append(EPISODES.c.run_id == run_id)
        if env:
            where.append(RUNS.c.env == env)
        if model:
            where.append(RUNS.c.model == model)
        if task:
            where.append(EPISODES.c.task == task)
        verdict = outcome_sql()
        outcome = OUTCOME_ALIASES.get(outcome or "", outcome)
        if outcome:
            where.append(verdict == outcome)
        joined = EPISODES.join(RUNS, RUNS.c.id == EPISODES.c.run_id)
        stmt = (
            select(
                EPISODES.c.id,
                EPISODES.c.run_id,
                RUNS.c.env,
                RUNS.c.model,
                EPISODES.c.task,
                EPISODES.c.seed,
                EPISODES.c.trial,
                EPISODES.c.status,
                EPISODES.c.success,
                EPISODES.c.reward,
                EPISODES.c.end_reason,
                EPISODES.c.turns,
                EPISODES.c.cost_usd,
                EPISODES.c.started_at,
                EPISODES.c.metrics,
                verdict,
            )
            .select_from(joined)
            .where(*where)
            .order_by(EPISODES.c.started_at, EPISODES.c.id)
            .offset(offset)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            total = conn.execute(select(func.count()).select_from(joined).where(*where)).scalar_one()
            rows = conn.execute(stmt).all()
        items = [EpisodeRow(*tuple(r)) for r in rows]
        return Page(self._live_episodes(items), total, offset, limit)

    def all_episodes(self, run_id: str) -> list[EpisodeInfo]:
        """Every episode of a run with its effective status (for comparisons)."""
        return self.store.list_episodes(run_id=run_id)

    # --- one run, one episode, one turn -----------------------------------------------------------

    def run(self, run_id: str) -> RunInfo:
        return self.store.get_run(run_id)

    def world_map(self, episode_id: str) -> WorldMap | None:
        """The backend's top-down drawing of the episode's world, if it stored one."""
        return world_map_of(self.store.get_world_map(episode_id))

    def episode(self, episode_id: str) -> EpisodeInfo:
        return self.store.get_episode(episode_id)

    def turn(self, episode_id: str, index: int) -> TurnDetail | None:
        """Turn ``index`` of an episode with its messages, or None if there is no such turn."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(TURNS).where(TURNS.c.episode_id == episode_id, TURNS.c["index"] == index)
            ).first()
            if row is None:
                return None
            values = dict(row._mapping)
            turn_id = values.pop("id")
            msg_rows = turn_refs(
                conn, episode_id, turn_id
            )  # either schema (agentkit.transcripts.prompt_reader)
            shas = sorted({sha for _, sha, _ in msg_rows})
            contents: dict[str, Any] = {}
            for i in range(0, len(shas), 500):
                for sha, data in conn.execute(
                    select(BLOBS.c.sha256, BLOBS.c.data).where(BLOBS.c.sha256.in_(shas[i : i + 500]))
                ):
                    contents[sha] = json.loads(bytes(data))
        messages = []
        for role, sha, extra in msg_rows:
            message: dict[str, Any] = {"role": role, "content": contents.get(sha, "")}
            if extra:
                message.update(parse_extra(extra) or {})
            messages.append(message)
        return TurnDetail(**values, messages=messages)

    def series(self, episode_id: str) -> list[TurnPoint]:
        """Per-turn points of an episode, kept in memory until the episode gets a new turn."""
        with self.engine.connect() as conn:
            key = _turns_key(conn, episode_id)
            with self._lock:
                hit = self._series.get(key)
                if hit is not None:
                    self._series.move_to_end(key)
                    return hit
            rows = conn.execute(
                select(
                    TURNS.c["index"],
                    TURNS.c.reward,
                    TURNS.c.total_reward,
                    TURNS.c.health,
                    TURNS.c.done,
                    TURNS.c.script.is_not(None),
                    TURNS.c.compile_error.is_not(None),
                    TURNS.c.actions,
                    TURNS.c.input_tokens,
                    TURNS.c.output_tokens,
                    TURNS.c.cost_usd,
                    TURNS.c.latency_s,
                    TURNS.c.cached,
                    TURNS.c.observation,
                )
                .where(TURNS.c.episode_id == episode_id)
                .order_by(TURNS.c["index"])
            ).all()
        points = [
            TurnPoint(
                index=r[0],
                reward=r[1],
                total_reward=r[2],
                health=r[3],
                done=bool(r[4]),
                parsed=bool(r[5]),
                compile_error=bool(r[6]),
                n_actions=len(r[7] or []),
                input_tokens=r[8],
                output_tokens=r[9],
                cost_usd=r[10],
                latency_s=r[11],
                cached=bool(r[12]),
                pose=pose_of(r[13]),
            )
            for r in rows
        ]
        with self._lock:
            self._series[key] = points
            while len(self._series) > _SERIES_CACHE_SIZE:
                self._series.popitem(last=False)
        return points

    def step_path(self, episode_id: str) -> StepPath:
        """The agent's position after every step (agentkit.viewer.step_path: a replay of the stored
        actions, checked against the record), kept in memory until the episode gets a new turn."""
        with self.engine.connect() as conn:
            key = _turns_key(conn, episode_id)
        with self._lock:
            hit = self._paths.get(key)
            if hit is not None:
                self._paths.move_to_end(key)
                return hit
        path = replay_step_path(self.store, episode_id)
        with self._lock:
            self._paths[key] = path
            while len(self._paths) > _SERIES_CACHE_SIZE:
                self._paths.popitem(last=False)
        return path

    def turn_keys(self, episode_id: str) -> list[dict[str, Any]]:
        """Per turn, the fields two episodes are compared on (no messages), in index order."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    TURNS.c["index"],
                    TURNS.c.observation,
                    TURNS.c.answer,
                    TURNS.c.script,
                    TURNS.c.parse_error,
                    TURNS.c.actions,
                    TURNS.c.reward,
                )
                .where(TURNS.c.episode_id == episode_id)
                .order_by(TURNS.c["index"])
            ).all()
        return [dict(r._mapping) for r in rows]

    def image(self, sha256: str) -> tuple[str, bytes] | None:
        """(media type, bytes) of an image blob; None for unknown hashes and for non-image blobs."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(BLOBS.c.media_type, BLOBS.c.data).where(BLOBS.c.sha256 == sha256)
            ).first()
        if row is None or not str(row.media_type).startswith("image/"):
            return None
        return str(row.media_type), bytes(row.data)

    # --- effective status -------------------------------------------------------------------------

    def _live_episodes(self, rows: list[EpisodeRow]) -> list[EpisodeRow]:
        """Rows stored as "running" get the store's effective status (their writer may be dead)."""
        return _with_live_status(rows, self.store.get_episode)

    def _live_runs(self, rows: list[RunRow]) -> list[RunRow]:
        return _with_live_status(rows, self.store.get_run)


def _with_live_status(rows: list[Any], lookup: Any) -> list[Any]:
    """``rows`` with each "running" one's status replaced by what ``lookup(id).status`` says now."""
    out = []
    for row in rows:
        if row.status == "running":
            try:
                status = lookup(row.id).status
            except KeyError:
                status = row.status
            if status != row.status:
                row = type(row)(**{**row.__dict__, "status": status})
        out.append(row)
    return out


def _turns_key(conn: Any, episode_id: str) -> tuple[str, int, float]:
    """A cache key that changes when the episode gets a new turn: its turn count and newest turn time."""
    n, last = conn.execute(
        select(func.count(), func.max(TURNS.c.created_at)).where(TURNS.c.episode_id == episode_id)
    ).one()
    return (episode_id, int(n), float(last or 0.0))
