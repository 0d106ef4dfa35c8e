"""What went wrong in each run, counted: parse-error codes of its turns and the end reasons of its episodes.

Why: a pass rate alone cannot tell a model that plays badly from one that cannot write the script
language or one whose server was down. The viewer's run list puts these counts beside the rate
(``no_commands 12``, ``2 model errors``), so the reader sees which it was before opening an episode.

Counted over the latest attempt of each (task, trial, seed), the attempt the verdict counts
(``agentkit.transcripts.listings.latest_verdicts``), so the counts describe the same episodes as
the pass count beside them. One grouped query per figure for a page of runs, whatever their size.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine, Subquery, Text, func, select, type_coerce
from sqlalchemy.exc import DBAPIError

from agentkit.transcripts import stored_json
from agentkit.transcripts.schema import Episode, Turn, table_of

log = logging.getLogger(__name__)

EPISODES = table_of(Episode)
TURNS = table_of(Turn)
#: The code shown for a stored parse error without one (none is expected; kept countable anyway).
UNCODED = "uncoded"
#: The code shown for a stored parse error that is not JSON at all (a damaged or hostile database).
UNREADABLE = "unreadable"


@dataclass(frozen=True)
class RunProblems:
    """Per run: turns by parse-error code and episodes by end reason (latest attempts only)."""

    parse_errors: dict[str, int] = field(default_factory=dict)  # code -> turns whose answer did not parse
    end_reasons: dict[str, int] = field(default_factory=dict)  # end reason -> episodes that ended so

    @property
    def parse_error_turns(self) -> int:
        return sum(self.parse_errors.values())

    def ended_by(self, reason: str) -> int:
        """Episodes that ended for ``reason`` (an ``agentkit.records.EndReason`` value)."""
        return self.end_reasons.get(reason, 0)


def _latest_episode_ids(run_ids: Sequence[str]) -> Subquery:
    """A subquery of (run_id, id) of the latest attempt of each (run, task, trial, seed) of ``run_ids``."""
    keys = (EPISODES.c.run_id, EPISODES.c.task, EPISODES.c.trial, EPISODES.c.seed)
    rank = func.row_number().over(
        partition_by=keys,
        order_by=(EPISODES.c.attempt.desc(), EPISODES.c.started_at.desc(), EPISODES.c.id.desc()),
    )
    ranked = (
        select(EPISODES.c.run_id, EPISODES.c.id, EPISODES.c.end_reason, rank.label("attempt_rank"))
        .where(EPISODES.c.run_id.in_(list(run_ids)))
        .subquery("ranked_attempts")
    )
    return (
        select(ranked.c.run_id, ranked.c.id, ranked.c.end_reason)
        .where(ranked.c.attempt_rank == 1)
        .subquery("latest_attempts")
    )


def count_run_problems(engine: Engine, run_ids: Sequence[str]) -> dict[str, RunProblems]:
    """The problem counts of each run in ``run_ids`` (a run with none gets empty counts)."""
    if not run_ids:
        return {}
    latest = _latest_episode_ids(run_ids)
    code = func.coalesce(TURNS.c.parse_error["code"].as_string(), UNCODED)
    codes = (
        select(latest.c.run_id, code, func.count())
        .select_from(TURNS.join(latest, latest.c.id == TURNS.c.episode_id))
        .where(TURNS.c.parse_error.is_not(None))
        .group_by(latest.c.run_id, code)
    )
    reasons = (
        select(latest.c.run_id, latest.c.end_reason, func.count())
        .where(latest.c.end_reason.is_not(None))
        .group_by(latest.c.run_id, latest.c.end_reason)
    )
    parse: dict[str, dict[str, int]] = defaultdict(dict)
    ended: dict[str, dict[str, int]] = defaultdict(dict)
    try:
        with engine.connect() as conn:
            code_rows = [tuple(r) for r in conn.execute(codes)]
    except DBAPIError as exc:  # SQLite's json_extract refuses the whole query for one malformed value
        log.debug("parse-error codes by SQL failed (%s); reading them one by one", exc)
        code_rows = _codes_one_by_one(engine, latest)
    for run_id, name, n in code_rows:
        parse[run_id][str(name)] = int(n)
    with engine.connect() as conn:
        for run_id, reason, n in conn.execute(reasons):
            ended[run_id][str(reason)] = int(n)
    return {
        r: RunProblems(
            dict(sorted(parse[r].items(), key=lambda kv: (-kv[1], kv[0]))),
            dict(sorted(ended[r].items(), key=lambda kv: (-kv[1], kv[0]))),
        )
        for r in run_ids
    }


def _codes_one_by_one(engine: Engine, latest: Subquery) -> list[tuple[str, str, int]]:
    """(run id, code, turns) read value by value, a stored ``parse_error`` that is not JSON counted
    under UNREADABLE with one warning naming the column, so a damaged turn cannot take the run list
    down (``agentkit.transcripts.stored_json`` reads each value, bounded as every reader does)."""
    counts: Counter[tuple[str, str]] = Counter()
    unreadable = 0
    raw = type_coerce(TURNS.c.parse_error, Text)
    query = (
        select(latest.c.run_id, raw)
        .select_from(TURNS.join(latest, latest.c.id == TURNS.c.episode_id))
        .where(TURNS.c.parse_error.is_not(None))
    )
    with engine.connect() as conn:
        for run_id, text in conn.execute(query):
            try:
                value = stored_json.loads(text)
            except stored_json.StoredJsonError:
                unreadable += 1
                counts[(run_id, UNREADABLE)] += 1
                continue
            code = value.get("code") if isinstance(value, dict) else None
            counts[(run_id, code if isinstance(code, str) else UNCODED)] += 1
    if unreadable:
        log.warning(
            "turns.parse_error: %d stored value%s not JSON; counted as %r on the run list",
            unreadable,
            " is" if unreadable == 1 else "s are",
            UNREADABLE,
        )
    return [(run_id, code, n) for (run_id, code), n in counts.items()]
