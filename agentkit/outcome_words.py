"""The one word each backend's episode verdict goes by, and what it means, for every command.

Why: the same Animal-AI run was a "success rate" in `agentkit run`, a "pass rate" in `eval` and
"pass" in the report, with different figures (success = a goal was reached; pass = the final reward
reached the task's pass mark, which is what Animal-AI and the report count). Every command now
counts ``verdict`` (the backend's pass metric where it reports one, else its success) and names it
with ``outcome_word``, saying what it means.
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


_AAI = OutcomeWord("pass", "final reward >= the task's pass mark")
_WORDS: dict[str, OutcomeWord] = {
    "aai-arena": _AAI,
    "animalai": _AAI,
    "gridworld": OutcomeWord("success", "the mission was completed before the step limit"),
    "trifinger": OutcomeWord("success", "the cube overlapped its goal by more than 90%"),
}
_DEFAULT = OutcomeWord("success", "the backend's success flag")


def outcome_word(env: str) -> OutcomeWord:
    return _WORDS.get(env, _DEFAULT)


def verdict(success: bool | None, metrics: Mapping[str, Any] | None) -> bool | None:
    """The pass metric if the backend reports one, else the success flag; None: no verdict."""
    value = (metrics or {}).get(PASS, success)
    return None if value is None else bool(value)
