"""The episode verdict as SQL, so the viewer's listings filter and count what the report counts.

Why: the viewer counted the store's ``success`` column, the report and ``agentkit eval`` the
verdict (``agentkit.outcome_words.stored_outcome``: the ``pass`` metric under the run's pass rule).
On runs stored before the two were made to agree they differ (87 "success" against 93 "pass" on
one reference run), so the same run showed two different figures. Listings are paged and filtered
in SQL, so the verdict is written here as one SQL expression mirroring ``stored_outcome`` (a test
holds the two together), and counts keep only the latest attempt of each (task, trial, seed), as
the report and ``eval --resume`` do (``latest_outcomes``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, case, func, literal, select
from sqlalchemy.sql.elements import ColumnElement

from agentkit.outcome_words import FAILED, INCOMPLETE, NO_VERDICT, PASSED
from agentkit.pass_rule import BROKEN, INTERRUPTED, PASS, PassRule
from agentkit.transcripts.schema import Episode, Run

EPISODES = Episode.__table__
RUNS = Run.__table__
_INTERRUPTED = sorted(r.value for r in INTERRUPTED)
_BROKEN = sorted(r.value for r in BROKEN)


def outcome_sql(episodes=EPISODES, runs=RUNS) -> ColumnElement[str]:
    """PASSED, FAILED, INCOMPLETE or NO_VERDICT of each episode row (``runs`` joined on its run)."""
    passed = episodes.c.metrics[PASS].as_boolean()
    rule = runs.c.config["pass_rule"].as_string()
    return case(
        (episodes.c.status != "finished", literal(INCOMPLETE)),
        (episodes.c.end_reason.in_(_INTERRUPTED), literal(NO_VERDICT)),
        (and_(episodes.c.end_reason.in_(_BROKEN), rule == PassRule.LLM_AAI.value), literal(NO_VERDICT)),
        (episodes.c.end_reason.in_(_BROKEN), literal(FAILED)),
        (passed.is_(True), literal(PASSED)),
        (passed.is_(False), literal(FAILED)),
        # no pass metric (or a JSON null, which only the two no-verdict cases above store)
        (episodes.c.success.is_(True), literal(PASSED)),
        else_=literal(FAILED),
    )


def latest_outcomes() -> Any:
    """A subquery of (run_id, outcome) for the latest attempt of each (run, task, trial, seed).

    Ranked with a window function (one sort), as ``reports.run_results`` picks the latest attempt
    (highest attempt, then the latest start); a correlated NOT EXISTS compared every episode with
    every other of its run (80 s on a run of 11,000 episodes, against 0.2 s).
    """
    keys = (EPISODES.c.run_id, EPISODES.c.task, EPISODES.c.trial, EPISODES.c.seed)
    rank = func.row_number().over(
        partition_by=keys,
        order_by=(EPISODES.c.attempt.desc(), EPISODES.c.started_at.desc(), EPISODES.c.id.desc()),
    )
    ranked = (
        select(EPISODES.c.run_id, outcome_sql().label("outcome"), rank.label("attempt_rank"))
        .select_from(EPISODES.join(RUNS, RUNS.c.id == EPISODES.c.run_id))
        .subquery("ranked_attempts")
    )
    return (
        select(ranked.c.run_id, ranked.c.outcome)
        .where(ranked.c.attempt_rank == 1)
        .subquery("latest_outcomes")
    )
