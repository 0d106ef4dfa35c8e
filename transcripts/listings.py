"""Cheap reads of the store for pages: paged listings, one turn, per-turn figures, a version stamp.

Why apart from ``TranscriptReader.get_turns``: that reads every turn of an episode with all its
messages, right for replay and export but far too much to show one turn of an episode with
thousands, or one page of a run with eleven thousand episodes. Here listings are paged and
filtered in SQL, a turn is read alone, and an episode's per-turn figures come without messages.
``TranscriptReader`` offers each of these as a method; the viewer is their first user.

What an episode's verdict is belongs to the application (the run's pass rule), not to the store:
a caller that wants listings filtered or counted by verdict passes it in as a ``Verdict``, an SQL
expression over the episodes and runs tables. The store decides only which attempt is the latest
of a (task, trial, seed), as everywhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import Engine, Table, case, func, select
from sqlalchemy.sql.elements import ColumnElement

from agentkit.transcripts.liveness import _Liveness
from agentkit.transcripts.schema import Episode, Run, Turn, table_of

RUNS = table_of(Run)
EPISODES = table_of(Episode)
TURNS = table_of(Turn)

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a listing: ``items`` of ``total``, starting at item ``offset``."""

    items: list[T]
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
class Facets:
    """The distinct envs, models and tasks of the store (what listing filters offer)."""

    envs: list[str]
    models: list[str]
    tasks: list[str]


@dataclass(frozen=True)
class Verdict:
    """How the caller judges an episode, as SQL: ``sql(episodes, runs)`` gives one value per episode
    row (``runs`` joined on its run); ``passed`` and ``failed`` are the values that count as a
    judged pass and a judged failure."""

    sql: Callable[[Table, Table], ColumnElement[str]]
    passed: str
    failed: str


@dataclass(frozen=True)
class RunSummary:
    """A run as a listing shows it, with verdict counts over the latest attempt of each pairing."""

    id: str
    created_at: datetime | None
    env: str
    model: str
    tasks: list[Any]
    status: str  # effective status (a dead writer's "running" run reads "unfinished")
    episodes: int
    passed: int  # latest attempts whose verdict is a pass
    judged: int  # latest attempts with a verdict (pass or failure)
    templates_hash: str
    name: str | None = None  # the run's --name, if it was given one


@dataclass(frozen=True)
class EpisodeSummary:
    """An episode as a listing shows it, with its run's env and model and its verdict."""

    id: str
    run_id: str
    env: str
    model: str
    task: str
    seed: int
    trial: int
    status: str  # effective status
    success: bool | None
    reward: float | None
    end_reason: str | None
    turns: int | None
    cost_usd: float | None
    started_at: datetime | None
    metrics: dict[str, Any] | None
    outcome: str  # the value of the caller's Verdict


@dataclass(frozen=True)
class TurnFigures:
    """What plots, maps and a turn strip need of one turn: its figures and stored observation, no
    messages."""

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
    observation: dict[str, Any] | None


def facets(engine: Engine) -> Facets:
    with engine.connect() as conn:
        envs = [r[0] for r in conn.execute(select(RUNS.c.env).distinct().order_by(RUNS.c.env))]
        models = [r[0] for r in conn.execute(select(RUNS.c.model).distinct().order_by(RUNS.c.model))]
        tasks = [r[0] for r in conn.execute(select(EPISODES.c.task).distinct().order_by(EPISODES.c.task))]
    return Facets(envs, models, tasks)


def latest_verdicts(verdict: Verdict) -> Any:
    """A subquery of (run_id, outcome) for the latest attempt of each (run, task, trial, seed).

    Ranked with a window function (one sort): highest attempt, then the latest start, as the
    reports pick it. A correlated NOT EXISTS compared every episode with every other of its run
    (80 s on a run of 11,000 episodes, against 0.2 s).
    """
    keys = (EPISODES.c.run_id, EPISODES.c.task, EPISODES.c.trial, EPISODES.c.seed)
    rank = func.row_number().over(
        partition_by=keys,
        order_by=(EPISODES.c.attempt.desc(), EPISODES.c.started_at.desc(), EPISODES.c.id.desc()),
    )
    ranked = (
        select(EPISODES.c.run_id, verdict.sql(EPISODES, RUNS).label("outcome"), rank.label("attempt_rank"))
        .select_from(EPISODES.join(RUNS, RUNS.c.id == EPISODES.c.run_id))
        .subquery("ranked_attempts")
    )
    return (
        select(ranked.c.run_id, ranked.c.outcome)
        .where(ranked.c.attempt_rank == 1)
        .subquery("latest_outcomes")
    )


def run_summaries(
    engine: Engine,
    verdict: Verdict,
    env: str | None = None,
    model: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[RunSummary]:
    """Runs newest first, filtered by env and model, with their latest attempts' verdict counts."""
    latest = latest_verdicts(verdict)
    counts = (
        select(
            latest.c.run_id,
            func.count().label("n"),
            func.sum(case((latest.c.outcome == verdict.passed, 1), else_=0)).label("ok"),
            func.sum(case((latest.c.outcome.in_([verdict.passed, verdict.failed]), 1), else_=0)).label(
                "done"
            ),
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
            RUNS.c.writer_host,
            RUNS.c.writer_pid,
            RUNS.c.writer_start,
        )
        .outerjoin(counts, counts.c.run_id == RUNS.c.id)
        .where(*where)
        .order_by(RUNS.c.created_at.desc(), RUNS.c.id)
        .offset(offset)
        .limit(limit)
    )
    with engine.connect() as conn:
        total = conn.execute(select(func.count()).select_from(RUNS).where(*where)).scalar_one()
        rows = conn.execute(stmt).all()
    live = _Liveness()
    items = [
        RunSummary(
            id=r[0],
            created_at=r[1],
            env=r[2],
            model=r[3],
            tasks=r[4] or [],
            status=live.status(r[5], r[11], r[12], r[13]),
            templates_hash=r[6],
            episodes=int(r[7]),
            passed=int(r[8]),
            judged=int(r[9]),
            name=r[10],
        )
        for r in rows
    ]
    return Page(items, total, offset, limit)


def episode_summaries(
    engine: Engine,
    verdict: Verdict,
    run_id: str | None = None,
    env: str | None = None,
    model: str | None = None,
    task: str | None = None,
    outcome: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[EpisodeSummary]:
    """Episodes in start order, filtered by run, env, model, task and verdict value."""
    where = []
    if run_id:
        where.append(EPISODES.c.run_id == run_id)
    if env:
        where.append(RUNS.c.env == env)
    if model:
        where.append(RUNS.c.model == model)
    if task:
        where.append(EPISODES.c.task == task)
    judged = verdict.sql(EPISODES, RUNS)
    if outcome:
        where.append(judged == outcome)
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
            judged,
            EPISODES.c.writer_host,
            EPISODES.c.writer_pid,
            EPISODES.c.writer_start,
        )
        .select_from(joined)
        .where(*where)
        .order_by(EPISODES.c.started_at, EPISODES.c.id)
        .offset(offset)
        .limit(limit)
    )
    with engine.connect() as conn:
        total = conn.execute(select(func.count()).select_from(joined).where(*where)).scalar_one()
        rows = conn.execute(stmt).all()
    live = _Liveness()
    items = [EpisodeSummary(*r[:7], live.status(r[7], r[16], r[17], r[18]), *r[8:16]) for r in rows]
    return Page(items, total, offset, limit)


def turn_figures(engine: Engine, episode_id: str) -> list[TurnFigures]:
    """Per turn of an episode, in index order: its figures and stored observation (no messages)."""
    with engine.connect() as conn:
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
    return [
        TurnFigures(
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
            observation=r[13],
        )
        for r in rows
    ]


def turn_fields(engine: Engine, episode_id: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per turn of an episode, in index order, the named columns of its row only (and ``index``)."""
    columns = [TURNS.c["index"], *(TURNS.c[f] for f in fields if f != "index")]
    with engine.connect() as conn:
        rows = conn.execute(
            select(*columns).where(TURNS.c.episode_id == episode_id).order_by(TURNS.c["index"])
        ).all()
    return [dict(r._mapping) for r in rows]


def turns_stamp(engine: Engine, episode_id: str) -> tuple[int, float]:
    """(number of turns, newest turn's write time) of an episode: it changes when a turn is added,
    so a cache of anything computed from the turns can key on it."""
    with engine.connect() as conn:
        n, last = conn.execute(
            select(func.count(), func.max(TURNS.c.created_at)).where(TURNS.c.episode_id == episode_id)
        ).one()
    return int(n), float(last or 0.0)
