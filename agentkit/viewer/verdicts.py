"""The episode verdict as SQL, so the viewer's listings filter and count what the report counts.

Why: the viewer counted the store's ``success`` column, the report and ``agentkit eval`` the
verdict (``agentkit.outcome_words.stored_outcome``: the ``pass`` metric under the run's pass rule).
On runs stored before the two were made to agree they differ (87 "success" against 93 "pass" on
one reference run), so the same run showed two different figures. Listings are paged and filtered
in SQL, so the verdict is written here as one SQL expression mirroring ``stored_outcome`` (a test
holds the two together), and counts keep only the latest attempt of each (task, trial, seed), as
the report and ``eval --resume`` do.
"""

from __future__ import annotations

from sqlalchemy import and_, case, exists, literal, select
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


def latest_attempt_sql(episodes=EPISODES) -> ColumnElement[bool]:
    """True for an episode no later attempt of the same (run, task, trial, seed) replaces."""
    later = EPISODES.alias("later_attempt")
    return ~exists(select(later.c.id).where(
        later.c.run_id == episodes.c.run_id, later.c.task == episodes.c.task, later.c.trial == episodes.c.trial,
        later.c.seed == episodes.c.seed, later.c.attempt > episodes.c.attempt))
