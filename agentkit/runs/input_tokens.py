"""A run's input tokens, how many of them the provider served from its cache, and what that saved.

Why: prompt caching (``agentkit.models.prompt_cache``) is worth turning on only if it pays, and a
run's cost alone does not say whether the cache was hit. The run summary therefore adds
``input tokens: N (M cached), cost $X (saved $Y)``, read from the store for the whole run (a
resumed run included): inputs and cost from its turns, cached tokens from its ``model_calls``
rows, the saving at the gap between litellm's input and cached-input rates for the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentkit.models.prompt_cache import input_tokens_line, saved_usd


@dataclass(frozen=True)
class RunInputTokens:
    """The run's sums: input tokens, the cached part, cost in US dollars and what the cache saved."""

    input_tokens: int
    cached_tokens: int
    cost_usd: float
    saved_usd: float

    def line(self) -> str:
        return input_tokens_line(self.input_tokens, self.cached_tokens, self.cost_usd, self.saved_usd)


def run_input_tokens(
    store: Any, run_id: str, model: str, price_per_mtok: tuple[float, float] | None = None
) -> RunInputTokens | None:
    """The sums of run ``run_id`` in ``store`` (a ``TranscriptStore``), or None when it sent no input
    tokens (reference, human and replayed answers) or the database cannot say."""
    from sqlalchemy import func, select
    from sqlalchemy.exc import SQLAlchemyError

    from agentkit.transcripts.schema import Episode, Turn, TurnModelCall

    turns = (
        select(func.coalesce(func.sum(Turn.input_tokens), 0), func.coalesce(func.sum(Turn.cost_usd), 0.0))
        .join(Episode, Episode.id == Turn.episode_id)
        .where(Episode.run_id == run_id)
    )
    cached = (
        select(func.coalesce(func.sum(TurnModelCall.provider_cached_tokens), 0))
        .select_from(TurnModelCall)
        .join(Turn, Turn.id == TurnModelCall.turn_id)
        .join(Episode, Episode.id == Turn.episode_id)
        .where(Episode.run_id == run_id)
    )
    try:
        with store.engine.connect() as conn:
            inputs, cost = conn.execute(turns).one()
            try:
                hits = conn.execute(cached).scalar_one()
            except SQLAlchemyError:  # a database made before the model_calls table, opened read-only
                hits = 0
    except SQLAlchemyError:
        return None
    if not inputs:
        return None
    return RunInputTokens(int(inputs), int(hits), float(cost), saved_usd(model, int(hits), price_per_mtok))
