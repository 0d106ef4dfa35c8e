"""A run's rate with its broken episodes counted apart: "pass 40.0% of 10; 2 model errors: 50.0% of the 8 that played".

Why: under the default pass rule an episode a model or environment error ended counts as a fail,
which is right for the headline (the run is judged on what it was asked to play) but makes an
outage look like a bad model: a server killed mid-run gave "success rate 0.0% (0/4)", three of
them errors. The rate over the episodes that played to their end beside it tells the two apart.
``run``, ``eval`` (text and ``--json``) and ``report aai`` all say it the same way, through here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from agentkit.records import EndReason

MODEL_ERROR, ENV_ERROR = EndReason.MODEL_ERROR.value, EndReason.ENV_ERROR.value


@dataclass(frozen=True)
class ErrorsApart:
    """Judged episodes, their passes, and how many of them a model or environment error ended."""

    word: str  # the outcome word ("pass": one vocabulary, docs/scoring.md), agentkit.outcome_words
    judged: int
    passed: int
    model_errors: int = 0
    env_errors: int = 0

    @property
    def played(self) -> int:
        """Judged episodes that no error ended (an errored one is never a pass, so passes are all here)."""
        return self.judged - self.model_errors - self.env_errors

    @property
    def rate(self) -> float | None:
        return self.passed / self.judged if self.judged else None

    @property
    def played_rate(self) -> float | None:
        return self.passed / self.played if self.played else None

    def line(self) -> str | None:
        """``pass 40.0% of 10; 2 model errors: 50.0% of the 8 that played``; None when no judged
        episode ended in an error (the headline already says everything)."""
        if not self.model_errors and not self.env_errors or self.rate is None:
            return None
        errors = []
        if self.model_errors:
            errors.append(_count(self.model_errors, "model error"))
        if self.env_errors:
            errors.append(_count(self.env_errors, "environment error"))
        rest = (
            f"{self.played_rate:.1%} of the {self.played} that played"
            if self.played_rate is not None
            else "none played to its end"
        )
        return f"{self.word} {self.rate:.1%} of {self.judged}; {' and '.join(errors)}: {rest}"

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "played": self.played, "rate": self.rate, "played_rate": self.played_rate}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def errors_apart(word: str, judged: Iterable[tuple[bool, str | None]]) -> ErrorsApart:
    """The figures of ``judged``: one ``(passed, end_reason)`` per episode with a verdict."""
    episodes = list(judged)
    return ErrorsApart(
        word=word,
        judged=len(episodes),
        passed=sum(bool(passed) for passed, _ in episodes),
        model_errors=sum(reason == MODEL_ERROR for _, reason in episodes),
        env_errors=sum(reason == ENV_ERROR for _, reason in episodes),
    )


def run_errors_apart(summary: Any) -> ErrorsApart:
    """:func:`errors_apart` of a ``RunSummary``'s judged episodes, by its backend's outcome word."""
    from agentkit.outcome_words import outcome_word, verdict

    word = outcome_word(summary.config.env).word
    return errors_apart(
        word, ((bool(verdict(e.success, e.metrics)), e.end_reason.value) for e in summary.judged)
    )
