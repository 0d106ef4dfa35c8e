"""HTTP clients for OpenAI-compatible servers that keep an answer whose token counts are not numbers.

Why: litellm validates the ``usage`` block of an answer as whole numbers; a server that reports
``"prompt_tokens": "many"`` (or 1.5, or a list) made litellm raise "Invalid response object", which
surfaced as a 500 and was retried: a paid answer thrown away and bought again. These clients look at
each JSON answer as it arrives and replace any count that is not a whole number by -1, which
``litellm_model`` then records as unknown. A message content of text parts becomes its text
(``answer_content``). Nothing else of the answer is touched.

Only used for ``openai/...`` models with an ``api_base`` (local and self-hosted OpenAI-compatible
servers, where such answers come from); hosted providers keep litellm's own clients. Every answer
is read with a cap on its inflated size, error bodies only in part (``answer_size``). A proxy named
by the environment (``HTTPS_PROXY``, ``HTTP_PROXY``, ``NO_PROXY``) applies to these servers as it would
to any other client.
"""

from __future__ import annotations

import json
import os
import urllib.request
from typing import Any, cast
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx
import openai

from agentkit.leaves.url_redaction import redact_url
from agentkit.models import answer_content, answer_size
from agentkit.models.tls_context import shared_tls_context

_COUNTS = ("prompt_tokens", "completion_tokens", "total_tokens")
_DETAILS = ("prompt_tokens_details", "completion_tokens_details")
_DROPPED_HEADERS = (b"content-length", b"content-encoding", b"transfer-encoding")
UNKNOWN_COUNT = -1  # what a count that is not a number becomes (negative: recorded as unknown)


def checked_answer_body(body: bytes, endpoint: str) -> bytes | None:
    """``body`` with its usage counts made whole numbers (or -1) and text parts joined into the
    message's text (``answer_content``), or None when nothing had to change. Raises
    ``RefusedAnswer`` for content parts that are not text."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None  # not JSON: litellm reports it as it always has
    if not isinstance(data, dict):
        return None
    changed = _checked_usage(data)
    changed = answer_content.joined_text_parts(data, endpoint) or changed
    return json.dumps(data).encode("utf-8") if changed else None


def _checked_usage(data: dict[str, Any]) -> bool:
    """Make ``data``'s usage counts whole numbers (or -1); whether anything changed."""
    if "usage" not in data or data["usage"] is None:
        return False
    usage = data["usage"]
    changed = False
    if not isinstance(usage, dict):
        usage, changed = {}, True
    for key in _COUNTS:
        value = usage.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            usage[key], changed = UNKNOWN_COUNT, True
    if changed:
        usage.setdefault("prompt_tokens", UNKNOWN_COUNT)
        usage.setdefault("completion_tokens", UNKNOWN_COUNT)
    for key in _DETAILS:
        if key in usage and usage[key] is not None and not isinstance(usage[key], dict):
            del usage[key]
            changed = True
    if changed:
        data["usage"] = usage
    return changed


def _replaced(response: httpx.Response, body: bytes, request: httpx.Request) -> httpx.Response:
    headers = [(k, v) for k, v in response.headers.raw if k.lower() not in _DROPPED_HEADERS]
    return httpx.Response(
        response.status_code, headers=headers, content=body, request=request, extensions=response.extensions
    )


def _is_json_answer(response: httpx.Response) -> bool:
    return response.status_code == 200 and "json" in response.headers.get("content-type", "")


def environment_proxy(api_base: str) -> str | None:
    """The proxy the environment names for ``api_base`` (None when there is none or its host bypasses it)."""
    parts = urlsplit(api_base)
    if not parts.hostname or urllib.request.proxy_bypass(parts.hostname):
        return None
    return urllib.request.getproxies().get(parts.scheme)


class UsageCheckingTransport(httpx.BaseTransport):
    """httpx's transport, with each JSON answer's usage counts checked (see the module docstring)."""

    def __init__(self, proxy: str | None = None, inner: httpx.BaseTransport | None = None) -> None:
        """``inner``: the transport that sends (httpx's own through ``proxy`` when None)."""
        self._inner = inner or httpx.HTTPTransport(proxy=proxy, verify=shared_tls_context())

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        answer_size.ask_capped_encodings(request)
        response = answer_size.capped(self._inner.handle_request(request), request)
        if not _is_json_answer(response):
            return response
        body = response.read()
        fixed = checked_answer_body(body, redact_url(str(request.url)))
        return response if fixed is None else _replaced(response, fixed, request)

    def close(self) -> None:
        self._inner.close()


class AsyncUsageCheckingTransport(httpx.AsyncBaseTransport):
    """The async twin of :class:`UsageCheckingTransport`."""

    def __init__(self, proxy: str | None = None, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx.AsyncHTTPTransport(proxy=proxy, verify=shared_tls_context())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        answer_size.ask_capped_encodings(request)
        response = await answer_size.acapped(await self._inner.handle_async_request(request), request)
        if not _is_json_answer(response):
            return response
        body = await response.aread()
        fixed = checked_answer_body(body, redact_url(str(request.url)))
        return response if fixed is None else _replaced(response, fixed, request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def _key(api_key: str | None) -> str:
    # As litellm would: the given key, else the provider's variable; a local server may want none,
    # but the SDK refuses to start without one.
    return api_key or os.environ.get("OPENAI_API_KEY") or "no-key"


def split_query(api_base: str) -> tuple[str, dict[str, str] | None]:
    """The base URL without its query, and the query as the client's ``default_query``.

    Why: openai 3 appends each route (``/chat/completions``) to the base URL's raw text, so a
    base such as ``http://host/v1?api_key=K`` would post to ``/v1?api_key=K/chat/completions``, that
    is to ``/v1``. Given as ``default_query``, the query goes on every request's URL instead, which is
    where servers that read a key from the query expect it (openai 2 did the same by itself).
    """
    parts = urlsplit(api_base)
    if not parts.query:
        return api_base, None
    base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", parts.fragment))
    return base, dict(parse_qsl(parts.query, keep_blank_values=True))


def sync_client(api_base: str, api_key: str | None, timeout_s: float) -> openai.OpenAI:
    base, query = split_query(api_base)
    return openai.OpenAI(
        base_url=base,
        default_query=query,
        api_key=_key(api_key),
        timeout=timeout_s,
        max_retries=0,
        http_client=cast(  # openai 3 names httpx2's client in its types, yet takes httpx's
            Any,
            httpx.Client(transport=UsageCheckingTransport(environment_proxy(api_base)), timeout=timeout_s),
        ),
    )


def async_client(api_base: str, api_key: str | None, timeout_s: float) -> openai.AsyncOpenAI:
    base, query = split_query(api_base)
    return openai.AsyncOpenAI(
        base_url=base,
        default_query=query,
        api_key=_key(api_key),
        timeout=timeout_s,
        max_retries=0,
        http_client=cast(  # as above
            Any,
            httpx.AsyncClient(
                transport=AsyncUsageCheckingTransport(environment_proxy(api_base)), timeout=timeout_s
            ),
        ),
    )


def wants_checked_client(model: str, api_base: str | None) -> bool:
    """Whether calls of ``model`` go through these clients: OpenAI-compatible servers named by URL."""
    return bool(api_base) and model.startswith("openai/")
