"""A run's model calls in one line and one JSON object: retries, answers cut by max tokens, errors.

Why: a model that is retried on every turn, cut off by ``--max-tokens`` or failing episode after
episode looks, in a pass rate alone, like a model that is bad at the task. The run's summary
(``agentkit run``, ``agentkit eval``, their ``--json``) therefore says how its calls went.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentkit.records import EndReason, EpisodeResult


def model_call_totals(episodes: Iterable[EpisodeResult]) -> dict[str, Any]:
    """Retries, turns cut by max tokens, dropped-prompt warnings and episodes ended by a model error."""
    totals = {"retries": 0, "cut_by_max_tokens": 0, "dropped_prompt_warnings": 0, "model_errors": 0}
    errors: list[str] = []
    for e in episodes:
        calls = getattr(e, "model_calls", None)
        if calls is not None:
            totals["retries"] += calls.retries
            totals["cut_by_max_tokens"] += calls.cut_by_max_tokens
            totals["dropped_prompt_warnings"] += calls.dropped_prompt
        if e.end_reason is EndReason.MODEL_ERROR:
            totals["model_errors"] += 1
            if e.error and e.error not in errors:
                errors.append(e.error)
    totals["errors"] = errors[:5]  # the distinct error texts, the first few
    return totals


def model_call_line(totals: dict[str, Any]) -> str | None:
    """``model calls: 3 retries, 2 turns cut by --max-tokens, 1 episode ended by a model error (...)``,
    or None when there is nothing to say."""
    parts = []
    if totals["retries"]:
        parts.append(f"{totals['retries']} retr{'y' if totals['retries'] == 1 else 'ies'}")
    if totals["cut_by_max_tokens"]:
        n = totals["cut_by_max_tokens"]
        parts.append(f"{n} turn{'' if n == 1 else 's'} cut by --max-tokens (finish reason: length)")
    if totals["dropped_prompt_warnings"]:
        n = totals["dropped_prompt_warnings"]
        parts.append(f"{n} turn{'' if n == 1 else 's'} where the server dropped part of the prompt")
    if totals["model_errors"]:
        n = totals["model_errors"]
        last = f" (last: {totals['errors'][-1]})" if totals["errors"] else ""
        parts.append(f"{n} episode{'' if n == 1 else 's'} ended by a model error{last}")
    return "model calls: " + ", ".join(parts) if parts else None


def describe_call(call: Any) -> str | None:
    """One turn's call in words, for ``transcripts show`` and the viewer:
    ``finish reason: length (cut by --max-tokens) · 2 retries · provider tokens 1234 in (1000 cached) /
    56 out · our count ~1300 in``; None when the turn has no record of its call (not an API model)."""
    if call is None:
        return None
    reason = call.finish_reason or "not given"
    if call.finish_reason == "length":
        reason += " (cut by --max-tokens)"
    parts = [f"finish reason: {reason}", f"{call.retries} retr{'y' if call.retries == 1 else 'ies'}"]
    if call.provider_input_tokens is not None:
        cached = f" ({call.provider_cached_tokens} cached)" if call.provider_cached_tokens else ""
        parts.append(f"provider tokens {call.provider_input_tokens} in{cached} / {call.provider_output_tokens} out")
    if call.our_input_tokens is not None:
        parts.append(f"our count ~{call.our_input_tokens} in")
    return " · ".join(parts)
