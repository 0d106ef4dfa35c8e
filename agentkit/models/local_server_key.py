"""The key sent to an OpenAI-compatible server named by ``api_base`` when the user set none.

Why one place: a local server (llama.cpp, vLLM, Ollama) usually wants no key, but the openai client
refuses to send a request without one. ``agentkit run``, its endpoint check and the Inspect provider
must send the same placeholder, or the check would probe a server differently from the run it vets.
"""

from __future__ import annotations

import os

PLACEHOLDER_KEY = "no-key-needed"


def key_for_server(api_key: str | None, api_base: str | None) -> str | None:
    """``api_key``; else, for a server named by URL and no ``OPENAI_API_KEY`` set, the placeholder;
    else None (the provider's own variable applies)."""
    if api_key is None and api_base and not os.environ.get("OPENAI_API_KEY"):
        return PLACEHOLDER_KEY
    return api_key
