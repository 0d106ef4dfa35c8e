"""The one word each backend's episode verdict goes by, and what it means, for every command.

Why: the same Animal-AI run was a "success rate" in `agentkit run`, a "pass rate" in `eval` and
"pass" in the report, with different figures (success = a goal was reached; pass = the final reward
reached the task's pass mark, which is what Animal-AI and the report count). Every command now
counts ``verdict`` (the backend's pass metric where it reports one, else its success) and names it
with ``outcome_word``, saying what it means; each backend declares its own word (``envs/base.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentkit.pass_rule import PASS


@dataclass(frozen=True)
class OutcomeWord:
    word: str  # "pass" or "success"
    meaning: str  # one clause, shown next to the rate


_DEFAULT = OutcomeWord("success", "the backend's success flag")


def outcome_word(env: str) -> OutcomeWord:
    """What the backend ``env`` calls its verdict (``Backend.outcome_word`` / ``outcome_meaning``)."""
    from agentkit.envs import get_backend

    try:
        backend = get_backend(env)
    except ValueError:  # an unknown env, or one whose extra is missing
        return _DEFAULT
    return OutcomeWord(backend.outcome_word, backend.outcome_meaning)


def verdict(success: bool | None, metrics: Mapping[str, Any] | None) -> bool | None:
    """The pass metric if the backend reports one, else the success flag; None: no verdict."""
    value = (metrics or {}).get(PASS, success)
    return None if value is None else bool(value)


#: What an episode shows in the viewer: a verdict (``pass``/``fail``), or why it has none.
PASSED, FAILED, INCOMPLETE, NO_VERDICT = "pass", "fail", "incomplete", "no-verdict"
OUTCOMES = (PASSED, FAILED, INCOMPLETE, NO_VERDICT)


def fail_word(word: OutcomeWord) -> str:
    """The word of a negative verdict: "fail" beside "pass", "failure" beside "success"."""
    return {"pass": "fail", "success": "failure"}.get(word.word, f"no {word.word}")


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
