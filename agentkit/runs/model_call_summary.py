"""A run's model calls in one line and one JSON object: retries, answers cut by max tokens, errors.

Why: a model that is retried on every turn, cut off by ``--max-tokens`` or failing episode after
episode looks, in a pass rate alone, like a model that is bad at the task. The run's summary
(``agentkit run``, ``agentkit eval``, their ``--json``) therefore says how its calls went.

A resumed run's summary covers the whole run, not only the episodes of the invocation that
resumed it: :func:`run_model_call_totals` reads the calls from the store's ``model_calls`` table.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentkit.records import EndReason, EpisodeResult


def model_call_totals(episodes: Iterable[EpisodeResult]) -> dict[str, Any]:
    """Retries, turns cut by max tokens, dropped-prompt warnings and episodes ended by a model error."""
    totals: dict[str, Any] = {
        "retries": 0,
        "cut_by_max_tokens": 0,
        "dropped_prompt_warnings": 0,
        "model_errors": 0,
    }
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


def run_model_call_totals(store: Any, run_id: str, episodes: Iterable[EpisodeResult]) -> dict[str, Any]:
    """:func:`model_call_totals` of a whole run, as its store holds it: retries, turns cut by max tokens
    and dropped-prompt warnings summed over every call the run made (relaunched attempts and the
    episodes of earlier invocations of a resumed run included), episodes ended by a model error
    counted among ``episodes`` (one per trial, as the summary's rates count them) with the error
    texts the store kept. ``store`` is a ``TranscriptStore``; one query per figure, whatever the
    run's size. Falls back to ``model_call_totals(episodes)`` on a database without the table."""
    from sqlalchemy import case, func, select
    from sqlalchemy.exc import SQLAlchemyError

    from agentkit.transcripts.schema import Episode, Turn, TurnModelCall

    episodes = list(episodes)
    calls = (
        select(
            func.coalesce(func.sum(TurnModelCall.retries), 0),
            func.count(case((TurnModelCall.finish_reason == "length", 1))),
            func.count(TurnModelCall.warning),
        )
        .select_from(TurnModelCall)
        .join(Turn, Turn.id == TurnModelCall.turn_id)
        .join(Episode, Episode.id == Turn.episode_id)
        .where(Episode.run_id == run_id)
    )
    failed = [e.episode_id for e in episodes if e.end_reason is EndReason.MODEL_ERROR]
    texts = select(Episode.id, Episode.error).where(Episode.run_id == run_id, Episode.id.in_(failed))
    try:
        with store.engine.connect() as conn:
            retries, cut, dropped = conn.execute(calls).one()
            stored_errors = dict(conn.execute(texts).all()) if failed else {}
    except SQLAlchemyError:  # a database made before the model_calls table, opened read-only
        return model_call_totals(episodes)
    errors: list[str] = []
    for e in episodes:
        text = e.error or stored_errors.get(e.episode_id) if e.end_reason is EndReason.MODEL_ERROR else None
        if text and text not in errors:
            errors.append(text)
    return {
        "retries": int(retries),
        "cut_by_max_tokens": int(cut),
        "dropped_prompt_warnings": int(dropped),
        "model_errors": len(failed),
        "errors": errors[:5],
    }


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
        parts.append(
            f"provider tokens {call.provider_input_tokens} in{cached} / {call.provider_output_tokens} out"
        )
    if call.our_input_tokens is not None:
        parts.append(f"our count ~{call.our_input_tokens} in")
    return " · ".join(parts)
