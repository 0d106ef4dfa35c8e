"""Prompt caching: cache breakpoints on the stable prefix of a request, and what cached tokens saved.

Why: a full-history episode resends every earlier turn (and its images) on every turn, so 30 turns
of 512 px frames pay for the same prefix again and again. Providers cache a prompt's prefix and
bill the cached part at a fraction of the input rate. OpenAI-style providers (and most
OpenAI-compatible servers) do it by themselves for any repeated prefix: nothing is added to the
request, the client only keeps the prefix byte-stable (the messages are sent as rendered).
Anthropic's models cache only up to explicit breakpoints: a ``cache_control`` marker on a content
part. litellm (1.106.2, 1.110.2) passes a ``cache_control`` found on an OpenAI-shaped content part (text or
image_url, system or user message) through to Anthropic's request (see its
``litellm_core_utils/prompt_templates/factory.py``, ``add_cache_control_to_content``), so the
markers are put on the OpenAI-shaped messages here and litellm does the rest.

Where the breakpoints go (Anthropic allows four): the end of the system message, the end of the
first user message (the task and, in most templates, the worked example), and the ends of the last
two user messages. The last one writes the cache the next turn reads; the one before reads the
cache the previous turn wrote. Only the request carries them: the store keeps the messages as
rendered.

``--prompt-cache off`` (``prompt_cache: false``) sends no markers; a provider's automatic caching
cannot be turned off from the client and is still counted when the response reports it.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)

# Anthropic's one cache type (5 minutes); https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4  # Anthropic refuses a request with more

# litellm provider names whose models take explicit markers when the model is one of Anthropic's.
_ANTHROPIC_HOSTS = ("bedrock", "vertex_ai", "vertex_ai_beta", "openrouter")


def takes_cache_markers(model: str) -> bool:
    """Whether ``model`` (a litellm id) caches only at explicit ``cache_control`` markers: Anthropic's
    own API (``anthropic/...``, or a bare ``claude-...`` id litellm routes there), and Claude models
    served by Bedrock, Vertex AI or OpenRouter."""
    name = model.lower()
    provider, _, rest = name.partition("/")
    if not rest:  # a bare id: litellm routes claude-* to Anthropic
        return name.startswith("claude")
    if provider == "anthropic":
        return True
    return provider in _ANTHROPIC_HOSTS and "claude" in rest


def mark_stable_prefix(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy of ``messages`` with cache breakpoints at the end of the system message, the first user
    message and the last two user messages (at most four). Only the marked messages are copied (and
    their last content part); the input is not changed. A string content becomes one text part."""
    chosen: list[int] = []
    system = [i for i, m in enumerate(messages) if m.get("role") == "system"]
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    for i in system[-1:] + users[:1] + users[-2:]:
        if i not in chosen:
            chosen.append(i)
    chosen = sorted(chosen)[-MAX_BREAKPOINTS:] if len(chosen) > MAX_BREAKPOINTS else chosen
    if not chosen:
        return messages
    out = list(messages)
    for i in chosen:
        marked = _marked(messages[i])
        if marked is not None:
            out[i] = marked
    return out


def _marked(message: dict[str, Any]) -> dict[str, Any] | None:
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            return None  # Anthropic refuses a marker on an empty text block
        return {**message, "content": [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]}
    if isinstance(content, list) and content and isinstance(content[-1], dict):
        last = {**content[-1], "cache_control": dict(EPHEMERAL)}
        return {**message, "content": [*content[:-1], last]}
    return None


def cache_rates(model: str) -> tuple[float, float] | None:
    """``(input, cached input)`` US dollars per token from litellm's bundled price map, or None when
    the model or its cached rate is not listed."""
    import litellm

    entry = _price_entry(litellm.model_cost, model)
    if not entry:
        return None
    full, cached = entry.get("input_cost_per_token"), entry.get("cache_read_input_token_cost")
    if not isinstance(full, (int, float)) or not isinstance(cached, (int, float)):
        return None
    return float(full), float(cached)


def _price_entry(table: dict[str, Any], model: str) -> dict[str, Any] | None:
    """The price map's entry for a litellm id: the id itself, or without its provider prefix."""
    if model in table:
        return table[model]
    _, _, bare = model.partition("/")
    return table.get(bare) if bare else None


def saved_usd(model: str, cached_tokens: int, price_per_mtok: tuple[float, float] | None = None) -> float:
    """What ``cached_tokens`` cost less than the same tokens at the full input rate. A hand-given
    ``price_per_mtok`` has no cached rate (cached tokens are billed at its input rate): nothing saved."""
    if cached_tokens <= 0 or price_per_mtok is not None:
        return 0.0
    rates = cache_rates(model)
    if rates is None:
        return 0.0
    return cached_tokens * max(0.0, rates[0] - rates[1])


def input_tokens_line(input_tokens: int, cached_tokens: int, cost_usd: float, saved: float) -> str:
    """``input tokens: 120,000 (96,000 cached), cost $0.0412 (saved $0.2592)``."""
    return (
        f"input tokens: {input_tokens:,} ({cached_tokens:,} cached), cost ${cost_usd:.4f} "
        f"(saved ${saved:.4f})"
    )
