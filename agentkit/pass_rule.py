"""How an episode is judged when the world did not end it: the pass rule of a run.

Why a module of its own: the loop, the run summary, ``agentkit eval``, the viewer and ``agentkit
report aai`` must all call the same episode a pass, and an episode that our limits or a failure cut
short is where they used to disagree (judged on the reward so far, a task whose pass mark is below
zero "passed" without a move). The rule is stated here once; ``docs/scoring.md`` explains it.

An episode ends in one of three ways, and each is judged differently:

* the world ended it (a goal, a death zone, the clock): judged by the backend on its final state
  (the Animal-AI backends: final reward >= the arena's pass mark, ``episode_metrics``);
* our limits stopped it (``STOPPED_BY_LIMITS``: scripts, consecutive parse failures, tokens, cost,
  wall time, per episode or per run): the world goes on with the idle action until its own clock
  ends the episode (``Backend.run_out_clock``), as it would for a child who stops moving, and the
  episode is then judged like the first kind. A world with no clock is judged as it stands;
* it broke (``BROKEN``: the model could not answer, the simulator raised) or was interrupted
  (Ctrl-C): the rule decides, below.

Two rules, chosen per run (``RunConfig.pass_rule``, ``--pass-rule``) and stored with it:

``aai`` (the default): Animal-AI's. A broken episode is never a pass (it counts, as a failure);
an interrupted one has no verdict (``None``: not counted, ``--resume`` plays it again).

``llm-aai``: as the LLM-AAI code judged (Kinds-of-Intelligence-CFI/LLM-AAI at commit e339118, the
version its README says produced the paper's results; read for the facts, nothing copied). At its
script limit it ran the clock out with no-op steps and judged the final reward, as ``aai`` does
(``experiment1.py``, "run down the clock"); an unparseable answer cost one no-op step and no limit
on them ended an episode. An episode whose model call or environment raised was recorded with its
end reason ``RUNTIME_ERROR`` and never judged, and the paper's reproducibility statement says such
trials were discarded and rerun. So under ``llm-aai`` a broken episode has no verdict (``None``):
it is left out of every rate, and ``--resume`` plays it again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from agentkit.records import EndReason

#: The metric a backend reports its verdict under (the Animal-AI backends do); None means no verdict.
PASS = "pass"


class PassRule(str, Enum):
    AAI = "aai"
    LLM_AAI = "llm-aai"


#: Our limits, not the world's: the episode's clock is run out before it is judged.
STOPPED_BY_LIMITS = frozenset(
    {EndReason.SCRIPT_LIMIT, EndReason.PARSE_FAILURE_LIMIT, EndReason.BUDGET, EndReason.WALL_TIME}
)
#: The model or the environment failed: never a pass.
BROKEN = frozenset({EndReason.MODEL_ERROR, EndReason.ENV_ERROR})
#: The user interrupted the run, or the store could not record it: no verdict under either rule.
INTERRUPTED = frozenset({EndReason.CANCELLED, EndReason.STORAGE_ERROR})


def runs_out_clock(end_reason: EndReason | None) -> bool:
    """Whether an episode that ended for ``end_reason`` has its clock run out before it is judged."""
    return end_reason in STOPPED_BY_LIMITS


@dataclass(frozen=True)
class Verdict:
    """``success``: what the run summary and the store's ``success`` column say; ``passed``: the
    verdict, None when the episode has none (it is not counted anywhere)."""

    success: bool
    passed: bool | None


def judge(
    rule: PassRule | str, end_reason: EndReason, goal_success: bool, metrics: Mapping[str, Any]
) -> Verdict:
    """The verdict on a finished episode.

    ``goal_success``: the world ended the episode with success; used by backends that report no
    ``pass`` metric. A backend's ``pass`` metric (judged on the final state, after any run-out of
    the clock) is the verdict otherwise, so ``success`` and ``pass`` never disagree.
    """
    rule = PassRule(rule)
    if end_reason in INTERRUPTED or (end_reason in BROKEN and rule is PassRule.LLM_AAI):
        return Verdict(False, None)
    if end_reason in BROKEN:
        return Verdict(False, False)
    if PASS in metrics:
        ok = bool(metrics[PASS])
        return Verdict(ok, ok)
    return Verdict(goal_success, goal_success)


def apply(
    rule: PassRule | str, end_reason: EndReason, goal_success: bool, metrics: Mapping[str, Any]
) -> tuple[bool, dict[str, Any]]:
    """``(success, metrics)`` of a finished episode under ``rule``: the backend's ``pass`` metric is
    replaced by the verdict, and added (as None) when the episode has no verdict."""
    verdict = judge(rule, end_reason, goal_success, metrics)
    out = dict(metrics)
    if PASS in out or verdict.passed is None:
        out[PASS] = verdict.passed
    return verdict.success, out


def has_verdict(metrics: Mapping[str, Any] | None) -> bool:
    """False for an episode judged to have no verdict (its ``pass`` metric is None): it is left out
    of every rate."""
    return not (metrics and PASS in metrics and metrics[PASS] is None)


def stored_verdict(
    end_reason: str | None, metrics: Mapping[str, Any] | None, rule: PassRule | str | None
) -> bool | None:
    """The verdict on a stored episode, for readers of the store (reports, eval tables, viewer).

    Episodes stored by this version carry it in their ``pass`` metric. Broken and interrupted
    episodes are re-judged from their end reason, so episodes stored before this rule (judged on the
    reward so far) and episodes that ended before the loop began (no metrics) read the same way.
    ``rule`` None (a run stored before runs recorded one) reads as ``aai``. Raises KeyError when the
    episode has no ``pass`` metric and its end reason gives no verdict (the backend reports none).
    """
    rule = PassRule(rule or PassRule.AAI)
    try:
        reason = EndReason(end_reason) if end_reason else None
    except ValueError:
        reason = None
    if reason in INTERRUPTED or (reason in BROKEN and rule is PassRule.LLM_AAI):
        return None
    if reason in BROKEN:
        return False
    metrics = metrics or {}
    if PASS not in metrics:
        raise KeyError(PASS)
    value = metrics[PASS]
    return None if value is None else bool(value)


def rule_of(config: Mapping[str, Any] | None) -> PassRule | None:
    """The pass rule a stored run recorded (None for runs stored before runs recorded one)."""
    value = (config or {}).get("pass_rule")
    return PassRule(value) if value else None
