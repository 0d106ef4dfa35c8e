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
