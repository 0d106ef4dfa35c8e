"""People's runs (``agentkit play``) pooled into one column of the Animal-AI report, beside the 2022 children.

Why: each participant's sitting is a run of its own (model ``human:<id>``), but a comparison wants
the group: every (participant x task) pair counts once, as the children's column counts them, and
the column's cluster-robust interval is clustered by participant, as the children's is. The
tutorial arena a sitting began with is practice and never counts (``read_run`` leaves it out, by
the identity ``agentkit.tutorial_episode`` gives it; the same task played as a counted one counts).
A run that is not a person's is refused in one line, so a model never slips into the humans column.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from agentkit.reports.aai_report import AAIReport
from agentkit.reports.proportions import Proportion
from agentkit.reports.run_results import RunResults, RunResultsError, read_run
from agentkit.transcripts import TranscriptReader

log = logging.getLogger(__name__)

HUMANS = "humans"  # the column's key in the report (JSON: runs.humans)
HUMAN_PREFIX = "human:"


@dataclass
class HumanResults(RunResults):
    """The pooled runs, and each participant's own counts (for an interval clustered by person)."""

    by_participant: dict[str, dict[str, Proportion]] = field(default_factory=dict)


def cluster_by_participant(report: AAIReport, humans: HumanResults) -> None:
    """Make the report's humans column cluster its interval by participant, as the children's does
    (a person's tasks share that person's skill; pairs are not independent)."""
    report.columns = [
        replace(c, by_participant=humans.by_participant) if c.is_run and c.key == HUMANS else c
        for c in report.columns
    ]


def read_humans(store: TranscriptReader, run_ids: list[str]) -> HumanResults:
    """The pooled outcomes of the people's runs ``run_ids``; RunResultsError (one line) for a run
    that is missing, not Animal-AI, or not a person's."""
    by_task: dict[str, Proportion] = {}
    by_participant: dict[str, dict[str, Proportion]] = {}
    participants: list[str] = []
    rules = set()
    not_counted = not_judged = 0
    episodes: list[str] = []
    env = ""
    for run_id in run_ids:
        try:
            run = store.get_run(run_id)
        except KeyError:
            raise RunResultsError(f"--humans: no run {run_id!r} in the transcript store") from None
        if not run.model.startswith(HUMAN_PREFIX):
            raise RunResultsError(
                f"--humans {run_id}: a run of model {run.model!r}, not a person's "
                f"(agentkit play stores human:<id>); give it with --runs"
            )
        result = read_run(store, run_id)
        person = run.model[len(HUMAN_PREFIX) :]
        own = by_participant.setdefault(person, {})
        for task, counts in result.by_task.items():
            by_task[task] = by_task.get(task, Proportion(0, 0)) + counts
            own[task] = own.get(task, Proportion(0, 0)) + counts
        participants.append(person)
        rules.add(result.pass_rule)
        not_counted += result.not_counted
        not_judged += result.not_judged
        episodes.extend(result.episodes)
        env = env or result.env
    if len(rules) > 1:
        log.warning(
            "--humans: the runs were judged by different pass rules (%s)", ", ".join(sorted(map(str, rules)))
        )
    people = len(set(participants))
    return HumanResults(
        run_id=HUMANS,
        model="human",
        env=env,
        by_task=dict(sorted(by_task.items())),
        not_counted=not_counted,
        episodes=episodes,
        pass_rule=next(iter(rules)) if len(rules) == 1 else None,
        not_judged=not_judged,
        name=f"humans (n={people})",
        by_participant=by_participant,
    )
