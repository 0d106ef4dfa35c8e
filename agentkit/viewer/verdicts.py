"""The episode verdict as SQL, so the viewer's listings filter and count what the report counts.

Why: the viewer counted the store's ``success`` column, the report and ``agentkit eval`` the
verdict (``agentkit.outcome_words.stored_outcome``: the ``pass`` metric under the run's pass rule).
On runs stored before the two were made to agree they differ (87 "success" against 93 "pass" on
one reference run), so the same run showed two different figures. Listings are paged and filtered
in SQL, so the verdict is written here as one SQL expression mirroring ``stored_outcome`` (a test
holds the two together), and counts keep only the latest attempt of each (task, trial, seed), as
the report and ``eval --resume`` do (``agentkit.transcripts.listings.latest_verdicts``).
"""

from __future__ import annotations

from sqlalchemy import Table, and_, case, literal
from sqlalchemy.sql.elements import ColumnElement

from agentkit.outcome_words import FAILED, INCOMPLETE, NO_VERDICT, PASSED
from agentkit.pass_rule import BROKEN, INTERRUPTED, PASS, PassRule
from agentkit.transcripts.listings import Verdict
from agentkit.transcripts.schema import Episode, Run, table_of

EPISODES = table_of(Episode)
RUNS = table_of(Run)
_INTERRUPTED = sorted(r.value for r in INTERRUPTED)
_BROKEN = sorted(r.value for r in BROKEN)


def outcome_sql(episodes: Table = EPISODES, runs: Table = RUNS) -> ColumnElement[str]:
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


# The viewer's verdict, as the store's listings take it (agentkit.transcripts.listings.Verdict):
# they page, filter and count by it, keeping the latest attempt of each (task, trial, seed).
VERDICT = Verdict(outcome_sql, PASSED, FAILED)
