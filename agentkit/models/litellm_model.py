"""Any provider's chat model through litellm, with retries on transient failures and cost accounting.

Why litellm: one call shape for every provider (OpenAI, Anthropic, Gemini, local OpenAI-compatible
servers), and its bundled price table gives costs without a hand-kept one. Why tenacity on top:
litellm's and the SDKs' own retries are switched off (``max_retries=0``) so there is exactly one
retry policy, visible here and testable: exponential backoff with full jitter on rate limits,
server errors, timeouts and connection failures; no retry on client errors (400/401/403/404/422),
which would only fail again, nor on a missing key or a refused connection (nothing listens at the
address), which litellm reports as a 500 but which another attempt cannot mend.

Limits: ``timeout_s`` bounds each whole request, not each network read (a server dripping a few bytes
at a time never trips a read timeout): the sync call runs in a helper thread the caller stops waiting
for, the async one under ``asyncio.wait_for``; either way the attempt fails as a timeout and is
retried. Token counts a server reports that are not whole numbers in ``0..MAX_REPORTED_TOKENS`` are
recorded as unknown (``raw["usage"] = None``, counts and cost 0) with a warning: the answer was paid
for, so it is kept rather than failed and bought again.

Secrets: the API key comes from the ``api_key`` argument or the provider's usual environment
variable (litellm reads it). It is never logged, never put into ``ModelReply.raw`` and scrubbed
from error messages.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from agentkit.leaves import run_defaults  # a leaf: the defaults a run gives every model, written once
from agentkit.leaves.log_streams import import_litellm
from agentkit.leaves.url_redaction import redact_url, redact_urls
from agentkit.messages import Message, ToolCall, escape_lone_surrogates, has_lone_surrogate
from agentkit.models import client_warmup, usage_guard
from agentkit.models.answer_size import refusal_in
from agentkit.models.base import ModelError
from agentkit.models.direct_chat import DirectRoute
from agentkit.models.fold_system import fold_system_message
from agentkit.models.openai_messages import to_openai
from agentkit.models.plain_openai_client import async_plain_messages, plain_messages
from agentkit.models.prompt_cache import mark_stable_prefix, takes_cache_markers
from agentkit.models.prompt_size import count_input_tokens, counter_for, dropped_prompt_warning
from agentkit.records import ModelCall, ModelReply, Usage

logger = logging.getLogger(__name__)
litellm = import_litellm()  # its own log handlers would write debug records to stdout, breaking --json

# litellm prints a "Give Feedback / Get Help" banner to stdout on every exception; errors reach the
# caller as ModelError and are logged, so the banner is only noise.
litellm.suppress_debug_info = True

# Status codes worth another try: request timeout, conflict/too-early (transient by definition),
# rate limit, and every server-side failure.
_TRANSIENT_STATUS = frozenset({408, 409, 425, 429})

# Client errors: the same request would fail again. Checked before the transient classes because
# litellm maps a few oddities onto broad classes.
_PERMANENT_ERRORS: tuple[type[BaseException], ...] = (
    litellm.BadRequestError,  # includes context-window and content-policy errors
    litellm.AuthenticationError,
    litellm.PermissionDeniedError,
    litellm.NotFoundError,
    litellm.UnprocessableEntityError,
)
_TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    litellm.RateLimitError,
    litellm.InternalServerError,
    litellm.ServiceUnavailableError,
    litellm.BadGatewayError,
    litellm.Timeout,
    litellm.APIConnectionError,
    TimeoutError,
    ConnectionError,
)

# The most tokens one request may report (inputs or outputs); more is a broken counter, not a bill.
MAX_REPORTED_TOKENS = 100_000_000

# Things that look like credentials, removed from any message we raise or log.
_KEY_PATTERN = re.compile(r"\b(sk|pk|rk|key|sess)-[A-Za-z0-9_\-]{6,}")
_BEARER_PATTERN = re.compile(r"(?i)bearer\s+[A-Za-z0-9._\-]+")


# Messages of the SDKs when no key was given at all: litellm reports them as a 500, yet no retry helps.
_MISSING_KEY_PATTERN = re.compile(r"(?i)missing credentials|api_key client option must be set")


def never_answers(exc: BaseException) -> bool:
    """Whether the failure says the model cannot be reached at all: no key, a refused key (401/403),
    or a refused connection (nothing listens at the address). litellm wraps these in broad classes
    (a missing key and a refused connection arrive as a 500), so the cause chain is searched."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 16:
        seen.add(id(current))
        if isinstance(
            current, (ConnectionRefusedError, litellm.AuthenticationError, litellm.PermissionDeniedError)
        ):
            return True
        if getattr(current, "status_code", None) in (401, 403):
            return True
        if _MISSING_KEY_PATTERN.search(str(current)):
            return True
        current = current.__cause__ or current.__context__
    return False


def _causes(exc: BaseException) -> Iterable[BaseException]:
    """``exc`` and the exceptions it was raised from or during, at most 16, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 16:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def connection_refused(exc: BaseException) -> bool:
    """Whether nothing listened at the address (the server is down or the port is wrong).

    litellm reports a refused connection as ``InternalServerError 500 ... Connection error``, which
    reads like a model that failed; the refusal is found in the cause chain instead."""
    return any(isinstance(cause, ConnectionRefusedError) for cause in _causes(exc))


def is_transient(exc: BaseException) -> bool:
    """Whether another attempt may succeed: rate limits, 5xx, timeouts, connection failures, but not
    a missing or refused key nor a refused connection (:func:`never_answers`), nor an answer refused
    unread (``answer_size``: the same endpoint would send it again)."""
    if isinstance(exc, _PERMANENT_ERRORS) or never_answers(exc) or refusal_in(exc) is not None:
        return False
    if isinstance(exc, _TRANSIENT_ERRORS):
        return True
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in _TRANSIENT_STATUS or status >= 500
    return False


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with the given secrets and anything shaped like an API key or bearer token removed."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    text = _BEARER_PATTERN.sub("Bearer [redacted]", text)
    return redact_urls(_KEY_PATTERN.sub("[redacted]", text))


# How openai 3 ends an HTTP error's message when the body is not JSON with an error message.
_BARE_STATUS = re.compile(r"Error code: \d{3}$")


def _unread_body(exc: BaseException) -> str | None:
    """The text of an error body that the message leaves out: openai 3 words a 500 whose body is plain
    text (or JSON cut short by ``answer_size``) as a bare "Error code: 500", where openai 2 showed the
    text; it stays on the exception as ``body``, and the server's own words are what tell the cause."""
    for cause in _causes(exc):
        body = getattr(cause, "body", None)
        if isinstance(body, str) and body.strip():
            return " ".join(body.split()[:100])
    return None


def _one_line(exc: BaseException, secrets: Iterable[str | None], limit: int = 300) -> str:
    """A short, single-line, key-free description of an exception for ModelError and logs."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    detail = lines[0] if lines else ""
    if _BARE_STATUS.search(detail) and (body := _unread_body(exc)):
        detail = f"{detail} - {body}"
    status = getattr(exc, "status_code", None)
    head = type(exc).__name__ + (f" {status}" if isinstance(status, int) else "")
    message = redact(f"{head}: {detail}" if detail else head, secrets)
    return message if len(message) <= limit else message[: limit - 3] + "..."


class LiteLLMModel:
    """A chat model reached through ``litellm.completion`` (or ``acompletion``).

    ``model`` is litellm's name, e.g. ``"openai/gpt-4o-mini"``, ``"anthropic/claude-3-5-haiku-latest"``
    or ``"openai/<local-name>"`` with ``api_base`` for an OpenAI-compatible local server.
    ``max_retries`` counts retries after the first attempt. Backoff waits are random in
    ``[0, min(retry_max_s, retry_base_s * 2**attempt)]`` (full jitter), so tests pass a tiny
    ``retry_base_s``. ``price_per_mtok=(input_usd, output_usd)`` per million tokens overrides
    litellm's price table (for local or unlisted models); without it an unpriced model costs 0.0.
    ``extra`` is merged into every litellm call (e.g. ``{"top_p": 0.9}`` or ``{"seed": 1}``).
    ``fold_system`` sends the system message as the start of the first user message, for models
    without a system role (``agentkit.models.fold_system``). ``prompt_cache`` puts cache breakpoints
    on the stable prefix for models that cache only at explicit markers (Anthropic's;
    ``agentkit.models.prompt_cache``); other providers cache repeated prefixes by themselves.
    ``warm_up`` makes one round trip to a local server before the first call, so the latency stored
    with the first turn is not the client's lazy imports (``agentkit.models.client_warmup``).
    """

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        temperature: float = run_defaults.TEMPERATURE,
        max_tokens: int = run_defaults.MAX_TOKENS,
        stop: list[str] | None = None,
        timeout_s: float = run_defaults.TIMEOUT_S,
        max_retries: int = run_defaults.MAX_RETRIES,
        extra: dict[str, Any] | None = None,
        *,
        name: str | None = None,
        price_per_mtok: tuple[float, float] | None = None,
        retry_base_s: float = run_defaults.RETRY_BASE_S,
        retry_max_s: float = 60.0,
        fold_system: bool = False,
        prompt_cache: bool = True,
        warm_up: bool = True,
        tools: list[dict[str, Any]] | None = None,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.model = model
        self.name = name or model
        self.api_base = api_base
        self._api_key = api_key  # private: kept out of repr, logs and raw
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.stop = list(stop) if stop else None
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.extra = dict(extra or {})
        self.price_per_mtok = price_per_mtok
        self.retry_base_s = retry_base_s
        self.retry_max_s = retry_max_s
        self.fold_system = fold_system  # send the system message as the start of the first user message
        self.prompt_cache = prompt_cache
        self.warm_up = (
            warm_up  # one local round trip before the first timed call (agentkit.models.client_warmup)
        )
        # The warm-up's fixed answer reports 1 input token; its twin must not warn of a dropped prompt.
        self.checks_prompt_size = True
        self._cache_markers = prompt_cache and takes_cache_markers(model)
        # --action-format tools: the vocabulary as tool schemas (agentkit.actions.tool_schema), sent
        # with every request; the answer's tool calls come back typed in ModelReply.tool_calls.
        self.tools = list(tools) if tools else None
        self._unpriced_logged = False
        self._checked_client: Any = None  # usage_guard's client for an OpenAI-compatible server, made once
        # OpenAI-compatible servers at an api_base: the request built and posted by us (direct_chat)
        self.direct = DirectRoute(model, api_base, api_key, timeout_s)

    def __repr__(self) -> str:
        api_base = redact_url(self.api_base) if self.api_base else None
        return f"LiteLLMModel(model={self.model!r}, api_base={api_base!r})"

    # ----------------------------------------------------------------- public
    def complete(self, messages: Sequence[Message]) -> ModelReply:
        """Answer ``messages``, made into OpenAI chat dicts (images as data URLs) here and nowhere before."""
        chat = to_openai(messages)
        if self.warm_up and not client_warmup.is_warm(self.model):
            client_warmup.warm_up(self)
        if self._checked_client is None and usage_guard.wants_checked_client(self.model, self.api_base):
            self._checked_client = plain_messages(
                usage_guard.sync_client(str(self.api_base), self._api_key, self.timeout_s)
            )
        start = time.perf_counter()
        attempts = 0
        try:
            for attempt in Retrying(**self._retry_policy()):
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    response = self._completion_within_deadline(self._request(chat), self._as_sent(messages))
        except Exception as exc:
            raise self._model_error(exc, attempts) from exc
        return self._reply(response, time.perf_counter() - start, attempts, chat)

    async def acomplete(self, messages: Sequence[Message]) -> ModelReply:
        """As :meth:`complete`, without blocking the event loop (for running episodes concurrently)."""
        chat = to_openai(messages)
        if self.warm_up and not client_warmup.is_warm(self.model):
            await asyncio.to_thread(client_warmup.warm_up, self)
        start = time.perf_counter()
        attempts = 0
        try:
            async for attempt in AsyncRetrying(**self._retry_policy()):
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    response = await self._acompletion_within_deadline(
                        self._request(chat), self._as_sent(messages)
                    )
        except Exception as exc:
            raise self._model_error(exc, attempts) from exc
        return self._reply(response, time.perf_counter() - start, attempts, chat)

    # ----------------------------------------------------------------- internals
    def _completion_within_deadline(
        self, request: dict[str, Any], typed: Sequence[Message] | None = None
    ) -> Any:
        """``litellm.completion`` that gives up after ``timeout_s`` in all (the thread it ran in is left
        to finish or time out on its own; it is a daemon and holds nothing of the caller's). ``typed``:
        the prompt as given, for the direct route to look its messages up by."""
        body = self.direct.body(request, typed)
        if body is not None:  # sent on this thread, which keeps the deadline itself (direct_chat)
            return self.direct.complete(body)
        outcome: dict[str, Any] = {}
        done = threading.Event()
        if usage_guard.wants_checked_client(self.model, self.api_base):
            if self._checked_client is None:
                self._checked_client = plain_messages(
                    usage_guard.sync_client(str(self.api_base), self._api_key, self.timeout_s)
                )
            request = {**request, "client": self._checked_client}

        def call() -> None:
            try:
                outcome["response"] = litellm.completion(**request)
            except BaseException as exc:  # handed to the waiting caller
                outcome["error"] = exc
            finally:
                done.set()

        threading.Thread(target=call, name=f"{self.name}-request", daemon=True).start()
        if not done.wait(self.timeout_s):
            raise TimeoutError(f"no complete answer within timeout_s = {self.timeout_s:g} s")
        if "error" in outcome:
            raise outcome["error"]
        return outcome["response"]

    async def _acompletion_within_deadline(
        self, request: dict[str, Any], typed: Sequence[Message] | None = None
    ) -> Any:
        body = self.direct.body(request, typed)
        client = None
        if body is None and usage_guard.wants_checked_client(self.model, self.api_base):
            # One per call: an async client belongs to the event loop it was made in.
            client = async_plain_messages(
                usage_guard.async_client(str(self.api_base), self._api_key, self.timeout_s)
            )
            request = {**request, "client": client}
        answer = litellm.acompletion(**request) if body is None else self.direct.acomplete(body)
        try:
            return await asyncio.wait_for(answer, timeout=self.timeout_s)
        except asyncio.TimeoutError:
            raise TimeoutError(f"no complete answer within timeout_s = {self.timeout_s:g} s") from None
        finally:
            if client is not None:
                await client.close()

    def _as_sent(self, messages: Sequence[Message]) -> Sequence[Message] | None:
        """The prompt, when the request's messages are made from it one for one (by ``to_openai``
        alone), for the direct route to look typed messages up by; None when ``_request`` changes
        them (a folded system message, cache markers)."""
        return None if self.fold_system or self._cache_markers else messages

    def _retry_policy(self) -> dict[str, Any]:
        return {
            "stop": stop_after_attempt(self.max_retries + 1),
            "wait": wait_random_exponential(multiplier=self.retry_base_s, max=self.retry_max_s),
            "retry": retry_if_exception(is_transient),
            "before_sleep": self._log_retry,
            "reraise": True,
        }

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        logger.warning(
            "%s: attempt %d/%d failed (%s); retrying in %.2fs",
            self.name,
            state.attempt_number,
            self.max_retries + 1,
            _one_line(exc, [self._api_key]) if exc is not None else "unknown error",
            wait,
        )

    def _request(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        sent = fold_system_message(messages) if self.fold_system else messages
        if self._cache_markers:
            sent = mark_stable_prefix(sent)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": sent,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "timeout": self.timeout_s,
            "max_retries": 0,  # the SDK's own retries would hide attempts from the policy above
        }
        if self.stop:
            kwargs["stop"] = self.stop
        if self.tools:
            kwargs["tools"] = self.tools
            kwargs["tool_choice"] = "auto"
            kwargs["_skip_mcp_handler"] = True  # litellm would otherwise look for MCP tools among them
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        kwargs.update(self.extra)
        return kwargs

    def _model_error(self, exc: BaseException, attempts: int) -> ModelError:
        # an answer refused unread says what is wrong itself; an SDK's wrapping would say "Connection error"
        reason = _one_line(refusal_in(exc) or exc, [self._api_key])
        if connection_refused(exc):  # a server that is down, named as such rather than as a 500
            reason = f"connection refused to {redact_url(self.api_base) if self.api_base else 'the provider'}"
        plural = "s" if attempts != 1 else ""
        logger.error("%s: giving up after %d attempt%s: %s", self.name, attempts, plural, reason)
        return ModelError(
            f"{self.name}: {reason} (after {attempts} attempt{plural})", transient=is_transient(exc)
        )

    def _reply(
        self, response: Any, latency_s: float, attempts: int, messages: list[dict[str, Any]] | None = None
    ) -> ModelReply:
        choice = response.choices[0] if getattr(response, "choices", None) else None
        message = getattr(choice, "message", None)
        text = getattr(message, "content", None) or ""
        usage = getattr(response, "usage", None)
        input_tokens = _token_count(getattr(usage, "prompt_tokens", 0))
        output_tokens = _token_count(getattr(usage, "completion_tokens", 0))
        known = input_tokens is not None and output_tokens is not None
        if known:
            cost, priced = self._cost(response, input_tokens or 0, output_tokens or 0)
        else:
            logger.warning(
                "%s: the server reported token counts that are not counts (%s); recording them as unknown",
                self.name,
                _short(usage),
            )
            cost, priced = 0.0, False
        raw = {
            "id": getattr(response, "id", None),
            "model": getattr(response, "model", None),
            "finish_reason": getattr(choice, "finish_reason", None),
            "attempts": attempts,
            "priced": priced,
        }
        counts = (input_tokens or 0, output_tokens or 0) if known else (0, 0)
        if not known:
            raw["usage"] = None  # unknown: the counts recorded are placeholders, not what was billed
        return ModelReply(
            text=text,
            usage=Usage(input_tokens=counts[0], output_tokens=counts[1], cost_usd=cost),
            latency_s=latency_s,
            model=self.name,
            raw=raw,
            call=self._call(
                choice,
                usage,
                attempts,
                messages,
                input_tokens if known else None,
                output_tokens if known else None,
            ),
            tool_calls=_tool_calls(message),
        )

    def _call(
        self,
        choice: Any,
        usage: Any,
        attempts: int,
        messages: list[dict[str, Any]] | None,
        input_tokens: int | None,
        output_tokens: int | None,
    ) -> ModelCall:
        """The turn's record of the call; logs one warning when the server dropped part of the prompt."""
        reported = usage is not None and getattr(usage, "prompt_tokens", None) is not None
        ours = count_input_tokens(messages, counter_for(self.model)) if messages else None
        call = ModelCall(
            finish_reason=_text_or_none(getattr(choice, "finish_reason", None)),
            retries=max(0, attempts - 1),
            provider_input_tokens=input_tokens if reported else None,
            provider_output_tokens=output_tokens if reported else None,
            provider_cached_tokens=_cached_tokens(usage),
            our_input_tokens=ours,
        )
        call.warning = (
            dropped_prompt_warning(call.provider_input_tokens, ours) if self.checks_prompt_size else None
        )
        if call.warning:
            logger.warning("%s: %s", self.name, call.warning)
        return call

    def _cost(self, response: Any, input_tokens: int, output_tokens: int) -> tuple[float, bool]:
        """USD cost and whether it is known; an unknown price is 0.0, never an exception."""
        if self.price_per_mtok is not None:
            in_price, out_price = self.price_per_mtok
            return (input_tokens * in_price + output_tokens * out_price) / 1_000_000, True
        # litellm prices every response while logging it; reading that figure spares a second
        # price-table search (a few ms of CPU per call, which concurrent episodes feel).
        hidden = getattr(response, "_hidden_params", None) or {}
        if hidden.get("response_cost") is not None:
            return float(hidden["response_cost"]), True
        if self._unpriced_logged:  # already known to be missing from the table
            return 0.0, False
        try:
            return float(litellm.completion_cost(completion_response=response)), True
        except Exception as exc:  # litellm raises for models missing from its price table
            if not self._unpriced_logged:
                logger.info("%s: no price known (%s); counting cost as 0.0", self.name, type(exc).__name__)
                self._unpriced_logged = True
            return 0.0, False


def _tool_calls(message: Any) -> tuple[ToolCall, ...]:
    """The answer's function calls, typed (none for an answer of text)."""
    calls = []
    for i, call in enumerate(getattr(message, "tool_calls", None) or ()):
        function = getattr(call, "function", None)
        name = getattr(function, "name", None)
        if name is None:
            continue
        arguments = getattr(function, "arguments", None)
        if not isinstance(arguments, str):  # a provider that sends an object: kept as its JSON text
            arguments = "{}" if arguments is None else json.dumps(arguments)
        name, call_id = str(name), str(getattr(call, "id", "") or f"call_{i}")
        if any(has_lone_surrogate(field) for field in (name, arguments, call_id)):
            # no request can carry one: kept in writing, so the turn is stored and the next request
            # encodes; the reader refuses such a call in a line the model reads (actions.tool_calls)
            logger.warning(
                "tool call %d: a lone surrogate (no character) in its name, arguments or id, "
                "written as a \\uXXXX escape",
                i,
            )
            name, arguments, call_id = map(escape_lone_surrogates, (name, arguments, call_id))
        # a server that gives no id still gets each call answered by id (tool results name their call)
        calls.append(ToolCall(name, arguments, call_id))
    return tuple(calls)


def _token_count(value: Any) -> int | None:
    """A reported token count, or None when it is not one (negative, huge, fractional, text, ...)."""
    if value is None:
        return 0  # not reported at all: counted as nothing, as before
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_REPORTED_TOKENS:
        return None
    return value


def _cached_tokens(usage: Any) -> int | None:
    """Prompt tokens the provider served from its cache, if it says: OpenAI's
    ``prompt_tokens_details.cached_tokens`` or Anthropic's ``cache_read_input_tokens`` (via litellm)."""
    details = getattr(usage, "prompt_tokens_details", None)
    value = (
        details.get("cached_tokens") if isinstance(details, dict) else getattr(details, "cached_tokens", None)
    )
    if value is None:
        value = getattr(usage, "cache_read_input_tokens", None)
    count = _token_count(value) if value is not None else None
    return count


def _text_or_none(value: Any, limit: int = 40) -> str | None:
    return None if value is None else str(value)[:limit]


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
