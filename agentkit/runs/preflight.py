"""Checks made before a run's first episode, so a model that can never answer fails in seconds.

Why: without them a run with a missing API key or a server that is not listening retried every
turn of every episode (six attempts with backoff, half a minute per episode), stored a column of
``model_error`` episodes and exited 0. An unset ``--api-key-env`` variable and an ``--api-base``
nobody listens on are known before any episode starts; each is refused here in one line naming
the option. The reachability check is a plain TCP connect with a short timeout: it proves a server
listens, not that it answers well (the model client's error handling covers the rest).
"""

from __future__ import annotations

import os
import socket
import urllib.request
from urllib.parse import urlsplit

from agentkit.leaves.url_redaction import redact_url
from agentkit.models.controller_agent import is_controller_model

LOCAL_MODELS = ("reference", "human")  # answered in this process: no key, no server
CONNECT_TIMEOUT_S = 2.0


class PreflightError(ValueError):
    """The run cannot reach its model; the message is one line naming the option to fix."""


def check_model_access(
    model: str, api_base: str | None, api_key_env: str | None, timeout_s: float = CONNECT_TIMEOUT_S
) -> None:
    """Raise PreflightError when ``api_key_env`` names an unset or empty variable, or when nothing
    accepts a TCP connection at ``api_base``'s host and port. Local models need neither."""
    if model in LOCAL_MODELS or is_controller_model(model):
        return
    if api_key_env is not None and not os.environ.get(api_key_env, "").strip():
        raise PreflightError(
            f"--api-key-env: the environment variable {api_key_env} is unset or empty "
            f"(set it to the API key of {model})"
        )
    if api_base:
        _check_reachable(api_base, timeout_s)


def _check_reachable(api_base: str, timeout_s: float) -> None:
    shown = redact_url(api_base)
    try:
        parts = urlsplit(api_base)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise PreflightError(f"--api-base {shown}: not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not host:
        raise PreflightError(f"--api-base {shown}: not an http(s) URL with a host")
    port = port or (443 if parts.scheme == "https" else 80)
    if _through_proxy(parts.scheme, host):
        return  # the client connects to the proxy, not to the host: a direct connect proves nothing
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        if isinstance(exc, TimeoutError):
            reason = f"no answer within {timeout_s:g} s"
        raise PreflightError(f"--api-base {shown}: cannot connect to {host}:{port} ({reason})") from None


def _through_proxy(scheme: str, host: str) -> bool:
    """Whether the environment's proxy settings (HTTP(S)_PROXY, NO_PROXY) route requests to ``host``."""
    return bool(urllib.request.getproxies().get(scheme)) and not urllib.request.proxy_bypass(host)
