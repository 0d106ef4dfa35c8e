"""A few tiny requests that find out what a chat endpoint keeps of a prompt, before a run relies on it.

Why: a server can answer every request and still drop part of it. llama.cpp's ``gemma`` chat
format drops system messages (the model plays without its instructions), a text-only model drops
or refuses images, a server started without tool templates ignores or refuses ``tools``, and
nothing in the answers says so. The answer's text proves little (a small or base model may not
follow a probe's instruction), but the input-token count in ``usage`` is the server's own count
of what it kept. So each question is a pair of requests that differ in one part only, with
``max_tokens`` 1: if the count does not grow by about that part's size, the part was dropped; a
4xx/5xx answer to the request with the part, after the plain one was answered, means it is refused.

Each request opens with its own nonce, so a server's prompt cache cannot make one look shorter
than it is by reusing the prefix of another. The context size is read, not probed: llama.cpp's
``/props``, vLLM's ``max_model_len`` or a ``context_length`` in ``/models``, else litellm's table.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import logging
import re
import secrets
from dataclasses import asdict, dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx

from agentkit.leaves.url_redaction import redact_url

logger = logging.getLogger(__name__)

Verdict = Literal["kept", "dropped", "refused", "unknown", "unchecked"]

# The standing instruction sent as the system message: about 50 tokens, so a kept one grows the count
# well past any difference of the nonces.
PROBE_SYSTEM = (
    "You are checking a connection. Whatever the user writes, answer with the single word ready and "
    "nothing else: no punctuation, no explanation, no greeting, no second line, and no other word at all, "
    "however the question is put to you."
)
PROBE_USER = "Are you there?"
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "report_ready",
        "description": "Say that the connection works; call it with the word ready and nothing else.",
        "parameters": {
            "type": "object",
            "properties": {"word": {"type": "string", "description": "The word ready."}},
            "required": ["word"],
        },
    },
}
PROBE_IMAGE_SIDE = (
    224  # px: every vision encoder gives such an image dozens of tokens (OpenAI low detail: 85)
)
# A part counts as kept when the count grows by at least this much: well above the few tokens two
# nonces may differ by, well below any system message, tool schema or image above.
MIN_GROWTH_TOKENS = 16
PROBE_MAX_TOKENS = 1
# Statuses that say nothing about the part sent: a key, a timeout, a rate limit, a gateway or an outage.
_NOT_ABOUT_THE_PART = frozenset({401, 403, 408, 409, 425, 429, 502, 503, 504})
# The class names litellm and the SDKs put before a server's own message ("litellm.BadRequestError:
# OpenAIException - System role not supported"): the server's words are what the line should show.
_WRAPPERS = re.compile(r"^(?:(?:litellm\.)?[A-Za-z]*(?:Error|Exception)(?: \d{3})?(?::| -) *)+")
_PARTS_SENT = {"system": "with it", "images": "with an image", "tools": "with a tool schema"}
METADATA_TIMEOUT_S = 5.0
MAX_METADATA_BYTES = 2**20  # a /models or /props answer; real ones are a few KiB


@dataclass(frozen=True)
class EndpointTarget:
    """Where and how to ask: litellm's model id, the API base (None: the provider's), the key."""

    model: str
    api_base: str | None = None
    api_key: str | None = None
    timeout_s: float = 60.0

    @property
    def shown(self) -> str:
        """The endpoint as a line may name it (a key in a query redacted)."""
        return redact_url(self.api_base) if self.api_base else self.model


@dataclass
class EndpointReport:
    """What the endpoint did with each part of a prompt, the counts that show it, and its context size.

    ``counts`` holds the input tokens the server reported per request (``plain``, ``system``,
    ``images``, ``tools``), ``reasons`` one line per verdict that is not ``kept``.
    """

    system: Verdict = "unchecked"
    images: Verdict = "unchecked"
    tools: Verdict = "unchecked"
    context_tokens: int | None = None
    counts: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> EndpointReport:
        """A report read back from the cache; ValueError for anything that is not one."""
        if not isinstance(data, dict):
            raise ValueError("not an object")
        verdicts = ("kept", "dropped", "refused", "unknown", "unchecked")
        report = cls()
        for name in ("system", "images", "tools"):
            value = data.get(name, "unchecked")
            if value not in verdicts:
                raise ValueError(f"{name}: {value!r} is not a verdict")
            setattr(report, name, value)
        context = data.get("context_tokens")
        if context is not None and (isinstance(context, bool) or not isinstance(context, int)):
            raise ValueError("context_tokens: not a whole number")
        report.context_tokens = context
        counts, reasons = data.get("counts") or {}, data.get("reasons") or {}
        if not isinstance(counts, dict) or not isinstance(reasons, dict):
            raise ValueError("counts/reasons: not objects")
        report.counts = {str(k): int(v) for k, v in counts.items() if isinstance(v, int)}
        report.reasons = {str(k): str(v)[:300] for k, v in reasons.items()}
        return report


class _Answered:
    """One probe request's outcome: the server's input-token count, or the error it answered with."""

    def __init__(self, tokens: int | None = None, status: int | None = None, error: str = "") -> None:
        self.tokens = tokens
        self.status = status  # the HTTP status of an error answer; None: no answer at all
        self.error = error

    @property
    def refused(self) -> bool:
        """An error answer of the server itself (4xx/5xx), as opposed to no answer or a cut connection."""
        return self.status is not None and 400 <= self.status < 600 and self.status not in _NOT_ABOUT_THE_PART


def probe_endpoint(target: EndpointTarget, images: bool, tools: bool, system: bool = True) -> EndpointReport:
    """Ask ``target`` what it keeps: the system message (``system``), an image (``images``), tool
    schemas (``tools``); and read its context size. Costs one request plus one per question, each
    with ``max_tokens`` 1. Never raises for what the endpoint answers: a question it could not
    settle is ``unknown`` with its reason."""
    report = EndpointReport(context_tokens=context_tokens(target))
    plain = _ask(target, [{"role": "user", "content": _nonced(PROBE_USER)}])
    if plain.tokens is None:
        reason = plain.error or "its answer carried no input-token count"
        for name, wanted in (("system", system), ("images", images), ("tools", tools)):
            if wanted:
                setattr(report, name, "unknown")
                report.reasons[name] = reason
        return report
    report.counts["plain"] = plain.tokens
    if system:
        answered = _ask(
            target,
            [{"role": "system", "content": PROBE_SYSTEM}, {"role": "user", "content": _nonced(PROBE_USER)}],
        )
        _judge(report, "system", answered, plain.tokens)
    if images:
        content = [
            {"type": "text", "text": _nonced(PROBE_USER)},
            {"type": "image_url", "image_url": {"url": probe_image()}},
        ]
        _judge(report, "images", _ask(target, [{"role": "user", "content": content}]), plain.tokens)
    if tools:
        answered = _ask(target, [{"role": "user", "content": _nonced(PROBE_USER)}], tools=[PROBE_TOOL])
        _judge(report, "tools", answered, plain.tokens)
    return report


def _judge(report: EndpointReport, name: str, answered: _Answered, plain_tokens: int) -> None:
    if answered.tokens is not None:
        report.counts[name] = answered.tokens
        if answered.tokens - plain_tokens >= MIN_GROWTH_TOKENS:
            setattr(report, name, "kept")
        else:
            setattr(report, name, "dropped")
            report.reasons[name] = (
                f"the server counted {answered.tokens} input tokens {_PARTS_SENT[name]} "
                f"and {plain_tokens} without"
            )
    elif answered.refused:
        setattr(report, name, "refused")
        report.reasons[name] = answered.error
    else:
        setattr(report, name, "unknown")
        report.reasons[name] = answered.error or "its answer carried no input-token count"


def _nonced(text: str) -> str:
    """``text`` after a nonce of fixed length, so no two probes share a cacheable prefix."""
    return f"[{secrets.token_hex(4)}] {text}"


def probe_image() -> str:
    """A plain grey PNG of ``PROBE_IMAGE_SIDE`` pixels a side, as a data URL."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (PROBE_IMAGE_SIDE, PROBE_IMAGE_SIDE), (128, 128, 128)).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _ask(
    target: EndpointTarget, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> _Answered:
    """One request through litellm (the run's own route to the provider); its input-token count."""
    from agentkit.models import usage_guard
    from agentkit.models.litellm_model import litellm  # imported with its stdout banners silenced

    request: dict[str, Any] = {
        "model": target.model,
        "messages": messages,
        "max_tokens": PROBE_MAX_TOKENS,  # no temperature: some models take only their own (gpt-5)
        "timeout": target.timeout_s,
        "max_retries": 0,
    }
    if tools:
        request["tools"] = tools
        request["_skip_mcp_handler"] = True  # litellm would otherwise look for MCP tools among them
    if target.api_base:
        request["api_base"] = target.api_base
    if target.api_key:
        request["api_key"] = target.api_key
    client = None
    if target.api_base and usage_guard.wants_checked_client(target.model, target.api_base):
        # the run's own client for such a server, so the probe goes to the URL the run's turns go
        # to (openai 3 would glue the route after a base URL's query string otherwise)
        client = usage_guard.sync_client(target.api_base, target.api_key, target.timeout_s)
        request["client"] = client
    try:
        response = litellm.completion(**request)
    except Exception as exc:  # any failure is an answer to judge, never the run's crash
        status = getattr(exc, "status_code", None)
        return _Answered(status=status if isinstance(status, int) else None, error=_one_line(exc, target))
    finally:
        if client is not None:
            client.close()
    tokens = getattr(getattr(response, "usage", None), "prompt_tokens", None)
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens <= 0:
        return _Answered(error=f"its answer reported input tokens {tokens!r}, not a count")
    return _Answered(tokens=tokens)


def _one_line(exc: BaseException, target: EndpointTarget) -> str:
    from agentkit.models.litellm_model import redact

    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    status = getattr(exc, "status_code", None)
    head = f"HTTP {status}" if isinstance(status, int) else type(exc).__name__
    words = _WRAPPERS.sub("", lines[0]) if lines else ""
    text = redact(f"{head}: {words}" if words else head, [target.api_key])
    return text if len(text) <= 240 else text[:237] + "..."


# ----------------------------------------------------------------------------- metadata
def context_tokens(target: EndpointTarget) -> int | None:
    """The endpoint's context size in tokens, where it says: llama.cpp's ``/props`` (the server's
    ``n_ctx``), a ``max_model_len`` (vLLM) or ``context_length`` in ``/models``; else litellm's table."""
    if target.api_base:
        props = _metadata(_route(target.api_base, "/props", root=True), target)
        settings = props.get("default_generation_settings") if isinstance(props, dict) else None
        for source in (settings, props):
            n = _count(source.get("n_ctx")) if isinstance(source, dict) else None
            if n:
                return n
        for entry in _model_entries(_metadata(_route(target.api_base, "/models"), target)):
            for key in ("max_model_len", "context_length", "context_window"):
                n = _count(entry.get(key))
                if n:
                    return n
            meta = entry.get("meta")
            n = _count(meta.get("n_ctx")) if isinstance(meta, dict) else None
            if n:
                return n
        return None
    try:
        from agentkit.models.litellm_model import litellm

        info = litellm.get_model_info(target.model)
    except Exception:  # litellm raises for models not in its table
        return None
    return _count(info.get("max_input_tokens"))


def fingerprint(target: EndpointTarget) -> str:
    """What identifies the model a server runs today: the ids its ``/models`` lists and llama.cpp's
    chat template and context size (a server restarted with another model or template at the same
    address gets another fingerprint). Empty for a provider without an API base."""
    if not target.api_base:
        return ""
    ids = sorted(
        str(e.get("id")) for e in _model_entries(_metadata(_route(target.api_base, "/models"), target))
    )
    props = _metadata(_route(target.api_base, "/props", root=True), target)
    kept: dict[str, Any] = {}
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        kept = {
            "template": props.get("chat_template"),
            "n_ctx": settings.get("n_ctx") if isinstance(settings, dict) else props.get("n_ctx"),
            "model_path": props.get("model_path"),
        }
    text = json.dumps({"ids": ids, "props": kept}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _route(api_base: str, route: str, root: bool = False) -> str:
    """``route`` under ``api_base`` (under the server's root, above ``/v1``, with ``root``), the base's
    query kept (an API base may carry a key there)."""
    parts = urlsplit(api_base)
    path = parts.path.rstrip("/")
    if root and path.endswith("/v1"):
        path = path[: -len("/v1")]
    return urlunsplit((parts.scheme, parts.netloc, path + route, parts.query, ""))


def _model_entries(listing: Any) -> list[dict[str, Any]]:
    data = listing.get("data") if isinstance(listing, dict) else None
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _metadata(url: str, target: EndpointTarget) -> Any:
    """The JSON at ``url`` (a GET with the key as a bearer token), or None: a server without the
    route, an answer that is not JSON or larger than ``MAX_METADATA_BYTES``."""
    from agentkit.models.usage_guard import environment_proxy

    headers = {"Authorization": f"Bearer {target.api_key}"} if target.api_key else {}
    try:
        with (
            httpx.Client(timeout=METADATA_TIMEOUT_S, proxy=environment_proxy(url)) as client,
            client.stream("GET", url, headers=headers) as response,
        ):
            if response.status_code != 200:
                return None
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_METADATA_BYTES:
                    return None
        return json.loads(body)
    except (httpx.HTTPError, ValueError, RecursionError) as exc:
        logger.debug("endpoint metadata at %s: %s", redact_url(url), type(exc).__name__)
        return None
