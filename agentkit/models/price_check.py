"""Whether a model's answers can be priced, so that a cost budget can stop a run.

Why: costs come from litellm's bundled price table (or ``price_per_mtok``). A model missing from it
costs 0.0 on every turn, so ``--max-cost`` or ``run_max_cost_usd`` never stops anything, and the run
spends without limit while looking budgeted. Checked once before the run: one warning line.
"""

from __future__ import annotations

from typing import Any

from agentkit.leaves.log_streams import import_litellm
from agentkit.models.controller_agent import is_controller_model

# Models that are no API call: nothing is paid, nothing needs a price.
_FREE_MODELS = ("reference", "human", "replay")


def has_price(model: str, price_per_mtok: Any = None) -> bool:
    """Whether litellm's table (or ``price_per_mtok``) gives ``model`` a price per token."""
    if price_per_mtok is not None or model in _FREE_MODELS or is_controller_model(model):
        return True
    litellm = import_litellm()
    litellm.suppress_debug_info = True  # its "Provider List" banner would go to stdout, breaking --json
    try:
        info = litellm.get_model_info(model)
    except Exception:  # litellm raises for a model its table does not list
        return False
    return bool(info.get("input_cost_per_token") or info.get("output_cost_per_token"))


def unpriced_budget_warning(model: str, price_per_mtok: Any, budgets: dict[str, float | None]) -> str | None:
    """One line when a cost budget is set (``budgets``: flag or key -> value) for a model with no
    price; None when every budget can take effect."""
    named = [name for name, value in budgets.items() if value is not None]
    if not named or has_price(model, price_per_mtok):
        return None
    return (
        f"{' and '.join(named)}: litellm has no price for {model}, so its answers cost 0.0 and the budget "
        "cannot stop this run (give --price-per-mtok IN,OUT, or price_per_mtok in an experiment file)"
    )
