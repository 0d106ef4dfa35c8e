"""The one vocabulary of an episode's verdict (pass, fail, incomplete, no-verdict), for every command.

Why: the same Animal-AI run was a "success rate" in `agentkit run`, a "pass rate" in `eval` and
"pass" in the report, with different figures; then each backend named its verdict its own way, so
a gridworld episode was a "failure" in `agentkit run` and a "fail" in `agentkit eval`. Every
command, report and viewer page now counts ``verdict`` (the backend's pass metric where it reports
one, else its success flag) and calls it **pass** or **fail**, whatever the backend; only what a
pass means differs, and each backend says it (``Backend.outcome_meaning``, ``envs/base.py``).
docs/scoring.md lists the words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentkit.pass_rule import PASS

#: The whole vocabulary of an episode's outcome, in every command, report, export and viewer page:
#: a verdict (``pass``/``fail``), or why it has none (``incomplete``: not finished; ``no-verdict``:
#: finished, but its run's pass rule leaves it unjudged and uncounted).
PASSED, FAILED, INCOMPLETE, NO_VERDICT = "pass", "fail", "incomplete", "no-verdict"
OUTCOMES = (PASSED, FAILED, INCOMPLETE, NO_VERDICT)


@dataclass(frozen=True)
class OutcomeWord:
    word: str  # always PASSED: one vocabulary for every backend
    meaning: str  # what a pass is on this backend, one clause shown next to the rate


_DEFAULT_MEANING = "the backend's success flag"


def outcome_word(env: str) -> OutcomeWord:
    """The verdict's word ("pass") and what a pass means on backend ``env`` (``Backend.outcome_meaning``)."""
    from agentkit.envs import get_backend

    try:
        backend = get_backend(env)
    except ValueError:  # an unknown env, or one whose extra is missing
        return OutcomeWord(PASSED, _DEFAULT_MEANING)
    return OutcomeWord(PASSED, backend.outcome_meaning)


def verdict(success: bool | None, metrics: Mapping[str, Any] | None) -> bool | None:
    """The pass metric if the backend reports one, else the success flag; None: no verdict."""
    value = (metrics or {}).get(PASS, success)
    return None if value is None else bool(value)


def fail_word(word: OutcomeWord) -> str:
    """The word of a negative verdict: always FAILED (kept so callers name the pair in one place)."""
    return FAILED


def verdict_text(passed: bool | None) -> str:
    """The word of one verdict as printed: "pass", "fail", or "no-verdict" (None: left out of rates)."""
    return NO_VERDICT if passed is None else PASSED if passed else FAILED


def stored_outcome(
    status: str,
    success: bool | None,
    end_reason: str | None,
    metrics: Mapping[str, Any] | None,
    rule: str | None,
) -> str:
    """PASSED, FAILED, INCOMPLETE or NO_VERDICT for a stored episode, as the report and eval count it.

    The verdict is ``agentkit.pass_rule.stored_verdict`` (broken and interrupted episodes re-judged
    from their end reason under the run's rule); a backend that reports no ``pass`` metric is judged
    by its success flag. The viewer's SQL twin is ``agentkit.viewer.verdicts``.
    """
    from agentkit.pass_rule import stored_verdict

    if status != "finished":
        return INCOMPLETE
    try:
        value = stored_verdict(end_reason, metrics, rule)
    except KeyError:  # no pass metric: the backend's success flag is its verdict
        value = bool(success)
    if value is None:
        return NO_VERDICT
    return PASSED if value else FAILED
