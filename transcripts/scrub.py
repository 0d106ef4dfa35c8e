"""Keep credentials out of transcripts.

Run configs are stored verbatim for reproducibility, and configs tend to collect API keys, auth
headers and tokens on their way through a program. ``scrub_secrets`` is applied to every config
before it is written, so a transcript database can be shared without leaking them.
"""

from __future__ import annotations

import re
from typing import Any

from agentkit.leaves.url_redaction import redact_urls

REDACTED = "[redacted]"

# A key is secret when its words (snake_case, kebab-case or camelCase) end with one of these.
# Matching on whole trailing words keeps "max_tokens", "token_budget" or "api_key_env" (the *name*
# of an environment variable) while catching "access_token", "x-api-key" or "OPENAI_API_KEY".
_SECRET_KEY_ENDINGS = (
    "api_key",
    "apikey",
    "access_key",
    "secret_key",
    "private_key",
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "authorization",
    "auth",
    "bearer",
    "credential",
    "credentials",
    "cookie",
)

# Values that look like credentials whatever key they sit under (e.g. inside a list of headers).
_SECRET_VALUE = re.compile(
    r"\bBearer\s+[A-Za-z0-9._~+/=-]{16,}"  # auth header values
    r"|\bsk-[A-Za-z0-9_-]{20,}"  # OpenAI / Anthropic style keys
    r"|\bAIza[0-9A-Za-z_-]{35}"  # Google API keys
    r"|\bgh[pousr]_[A-Za-z0-9]{36,}"  # GitHub tokens
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}",  # Slack tokens
    re.IGNORECASE,
)

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORD = re.compile(r"[a-z0-9]+")


def is_secret_key(key: object) -> bool:
    """Whether a mapping key names a credential (see ``_SECRET_KEY_ENDINGS``)."""
    words = _WORD.findall(_CAMEL.sub(r"\1_\2", str(key)).lower())
    if not words:
        return False
    joined = "_".join(words)
    return any(joined == end or joined.endswith("_" + end) for end in _SECRET_KEY_ENDINGS)


def scrub_secrets(obj: Any) -> Any:
    """A copy of ``obj`` without secret-named keys, with credential-looking strings redacted, and
    with URLs stripped of user info and secret query values (``agentkit.leaves.url_redaction``).

    Dicts, lists and tuples are walked recursively; the input is not modified.
    """
    if isinstance(obj, dict):
        return {k: scrub_secrets(v) for k, v in obj.items() if not is_secret_key(k)}
    if isinstance(obj, list):
        return [scrub_secrets(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(scrub_secrets(v) for v in obj)
    if isinstance(obj, str) and _SECRET_VALUE.search(obj):
        return REDACTED
    if isinstance(obj, str):
        return redact_urls(obj)  # "http://user:pass@host/v1?api_key=...": user info and key removed
    return obj
