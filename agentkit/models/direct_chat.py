"""Chat requests to an OpenAI-compatible server sent by us, with litellm's errors, answers and prices.

Why: for an ``openai/...`` model at an ``api_base`` (a local or self-hosted OpenAI-compatible
server) litellm's own work per call (its parameter mapping, message transform, logging objects and
the openai SDK it calls) costs about 4 ms at turn 1 and, with full history, grows with every
earlier frame the request carries: the SDK encoded the 4.5 MB body of turn 100 twice and litellm
walked every content part, ~30 ms of client time per call while holding the interpreter lock
(bench/model_client.py). For such a server nothing needs routing, so the request is built here
(``agentkit.models.chat_body``: each message's JSON encoded once per episode) and posted on one
kept-alive httpx client per model, on the caller's own thread under one deadline for the whole
request (``agentkit.models.request_deadline``). litellm keeps its three other jobs: the answer becomes its
``ModelResponse`` (``convert_to_model_response_object``, as its openai route does), errors become
its exception classes with its messages (an HTTP error is worded as the openai SDK words it, then
mapped by litellm's ``exception_type``, as its openai route does), and the cost comes from its
price map (``completion_cost``).

What is sent on this path: :func:`direct_fields` says which requests qualify (plain messages,
the parameters litellm passes to an OpenAI-compatible server unchanged, ``tools``/``tool_choice``
included); everything else, and every other provider, goes through litellm as before. The HTTP
client checks the answer's usage counts (``usage_guard``) and is patched by the cassette
recorder like any httpx transport, so recorded tests replay through it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any, cast

import httpx

from agentkit.messages import Message
from agentkit.models import chat_body, usage_guard
from agentkit.models.request_deadline import deadline, deadline_transport
from agentkit.models.tls_context import shared_tls_context

logger = logging.getLogger(__name__)

# Parameters an OpenAI-compatible server takes as litellm would send them (litellm passes these to
# the openai route unchanged); a request with any other key goes through litellm.
_PASSED = frozenset(
    {
        "temperature",
        "max_tokens",
        "stop",
        "top_p",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "user",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "logprobs",
        "top_logprobs",
    }
)
# Request keys that are not body fields: how the call is made, handled here or by the caller.
_CALL_KEYS = frozenset(
    {"model", "messages", "timeout", "max_retries", "api_base", "api_key", "_skip_mcp_handler"}
)
_PROVIDERS = ("openai/",)


def takes_direct(model: str, api_base: str | None) -> bool:
    """Whether ``model`` may be called directly: an ``openai/`` id at an ``api_base`` (an
    OpenAI-compatible server named by URL, where litellm routes nothing), a plain http(s) URL."""
    if not api_base or not model.startswith(_PROVIDERS):
        return False
    return api_base.startswith(("http://", "https://")) and "?" not in api_base and "#" not in api_base


def direct_fields(request: dict[str, Any]) -> dict[str, Any] | None:
    """The body fields of a litellm request, in the order the openai SDK writes them, or None when
    the request needs litellm (an unknown parameter, streaming, a response format, ...)."""
    extra = set(request) - _CALL_KEYS
    if extra - _PASSED:
        return None
    tools = request.get("tools")
    if tools is not None and not (
        isinstance(tools, list) and all(isinstance(t, dict) and "cache_control" not in t for t in tools)
    ):
        return None
    fields: dict[str, Any] = {"messages": request["messages"], "model": request["model"].partition("/")[2]}
    for key in _SDK_ORDER:
        if key in extra and request[key] is not None:
            fields[key] = request[key]
    return fields


# The openai SDK's order of body keys (its create() signature), so the bytes match the SDK's.
_SDK_ORDER = (
    "frequency_penalty",
    "logit_bias",
    "logprobs",
    "max_tokens",
    "parallel_tool_calls",
    "presence_penalty",
    "seed",
    "stop",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
)


class DirectChat:
    """One kept-alive HTTP client for one model's server, posting prepared bodies (sync and async).

    ``transport`` replaces the network (the client warm-up's in-process answer)."""

    def __init__(
        self,
        model: str,
        api_base: str,
        api_key: str | None,
        timeout_s: float,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.model = model
        self.url = api_base.rstrip("/") + "/chat/completions"
        key = usage_guard._key(api_key)  # as litellm would: the given key, else the provider's variable
        self._headers = {
            "authorization": f"Bearer {key}",
            "content-type": "application/json",
            "accept": "application/json",
        }
        self._timeout_s = timeout_s
        self._proxy = usage_guard.environment_proxy(api_base)
        if transport is None:  # usage_guard's answer check over connections that keep the thread's deadline
            transport = usage_guard.UsageCheckingTransport(
                inner=deadline_transport(self._proxy, verify=shared_tls_context())
            )
        self._client = httpx.Client(transport=transport, timeout=timeout_s)
        self._api_base = api_base
        self._key = key
        self._wording: Any = None  # an openai.OpenAI, made for the first error (see _status_error)

    def close(self) -> None:
        self._client.close()

    def complete(self, body: bytes) -> Any:
        """POST ``body`` on this thread, all of it within ``timeout_s``; litellm's ``ModelResponse``
        of the answer, or litellm's exception (a passed deadline: TimeoutError, in the words the
        litellm route uses)."""
        try:
            with deadline(self._timeout_s):
                response = self._client.post(self.url, content=body, headers=self._headers)
        except httpx.TimeoutException:
            raise TimeoutError(f"no complete answer within timeout_s = {self._timeout_s:g} s") from None
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        return self._answer(response)

    async def acomplete(self, body: bytes) -> Any:
        """As :meth:`complete` on a client of the running event loop (made and closed here: an async
        client belongs to the loop it was made in)."""
        inner = httpx.AsyncHTTPTransport(proxy=self._proxy, verify=shared_tls_context())
        checked = usage_guard.AsyncUsageCheckingTransport(inner=inner)
        async with httpx.AsyncClient(transport=checked, timeout=self._timeout_s) as client:
            try:
                response = await client.post(self.url, content=body, headers=self._headers)
            except httpx.HTTPError as exc:
                raise self._transport_error(exc) from exc
        return self._answer(response)

    # ------------------------------------------------------------------ answers and errors
    def _answer(self, response: httpx.Response) -> Any:
        from litellm.litellm_core_utils.llm_response_utils.convert_dict_to_response import (
            convert_to_model_response_object,
        )
        from litellm.types.utils import ModelResponse

        if response.status_code >= 400:
            raise self._status_error(response)
        try:
            data = json.loads(response.content)
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict):
            raise self._litellm_error(
                500,
                f"Empty or invalid response from LLM endpoint. Received: {response.text[:200]!r}.",
                response.headers,
                None,
            )
        try:
            return convert_to_model_response_object(
                response_object=data,
                model_response_object=ModelResponse(),
                _response_headers=dict(response.headers),
            )
        except Exception as exc:  # litellm's words for an answer it cannot read
            raise self._litellm_error(500, str(exc), response.headers, None) from exc

    def _status_error(self, response: httpx.Response) -> BaseException:
        if self._wording is None:
            import openai

            # Never sends: it words an HTTP error response as the openai SDK does, as litellm's route did.
            self._wording = openai.OpenAI(
                base_url=self._api_base,
                api_key=self._key,
                max_retries=0,
                http_client=cast(Any, self._client),  # openai 3 takes httpx's client, though typed httpx2's
            )
        sdk_error = self._wording._make_status_error_from_response(response)
        error = self._litellm_error(
            sdk_error.status_code, str(sdk_error), response.headers, getattr(sdk_error, "body", None)
        )
        if error.__cause__ is None:
            error.__cause__ = sdk_error
        return error

    def _transport_error(self, exc: httpx.HTTPError) -> BaseException:
        import openai

        try:
            request = exc.request
        except RuntimeError:  # httpx raised before the request was made
            request = httpx.Request("POST", self.url)
        sdk_error: openai.APIError = (
            openai.APITimeoutError(request=cast(Any, request))
            if isinstance(exc, httpx.TimeoutException)
            else openai.APIConnectionError(request=cast(Any, request))
        )
        sdk_error.__cause__ = exc
        error = self._litellm_error(500, str(sdk_error), None, None)
        if error.__cause__ is None:
            error.__cause__ = sdk_error
        return error

    def _litellm_error(self, status: int, message: str, headers: Any, body: Any) -> BaseException:
        """The exception litellm's openai route raises for this failure (its class and message)."""
        from litellm.litellm_core_utils.exception_mapping_utils import exception_type
        from litellm.llms.openai.common_utils import OpenAIError

        original = OpenAIError(status_code=status, message=message, headers=headers, body=body)
        try:
            mapped = exception_type(
                model=self.model.partition("/")[2], original_exception=original, custom_llm_provider="openai"
            )
        except Exception as raised:  # exception_type raises the mapped exception
            mapped = raised
        if mapped is not original and mapped.__cause__ is None:
            mapped.__cause__ = original
        return mapped


class DirectRoute:
    """A model's direct route: which of its requests take it, the client, the price.
    ``enabled = False`` sends everything through litellm. The client is made with the route (not on
    the first call, whose latency is stored with turn 1); :meth:`use_transport` replaces the network
    (the client warm-up answers in-process)."""

    def __init__(self, model: str, api_base: str | None, api_key: str | None, timeout_s: float) -> None:
        self.model = model
        self.enabled = takes_direct(model, api_base)
        self._api_base = api_base
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._chat: DirectChat | None = self._new_client(None) if self.enabled else None
        self._priced: bool | None = None  # None until the first answer was priced (or found unpriced)

    def body(self, request: dict[str, Any], typed: Sequence[Message] | None = None) -> bytes | None:
        """The JSON body to post for a litellm ``request``, or None when litellm should send it.
        ``typed``: the prompt the request's messages were made from one for one, by ``to_openai``
        and nothing else (typed messages, frozen and hashed once, are looked up as they are; see
        ``chat_body.encode_body``); the caller passes None when it changed them (``fold_system``)."""
        if not self.enabled:
            return None
        fields = direct_fields(request)
        if fields is None:
            return None
        same = typed is not None and len(typed) == len(fields["messages"])
        return chat_body.encode_body(fields, typed if same else None)

    def complete(self, body: bytes) -> Any:
        """The answer to ``body``, sent on this thread within the model's ``timeout_s``."""
        return self._priced_answer(self._client().complete(body))

    async def acomplete(self, body: bytes) -> Any:
        return self._priced_answer(await self._client().acomplete(body))

    def use_transport(self, transport: httpx.BaseTransport) -> None:
        """Send through ``transport`` instead of the network."""
        if self._chat is not None:
            self._chat.close()
        self._chat = self._new_client(transport)

    def _new_client(self, transport: httpx.BaseTransport | None) -> DirectChat:
        return DirectChat(self.model, str(self._api_base), self._api_key, self._timeout_s, transport)

    def _client(self) -> DirectChat:
        if self._chat is None:
            self._chat = self._new_client(None)
        return self._chat

    def _priced_answer(self, response: Any) -> Any:
        """The answer with litellm's cost in its hidden params, as litellm's logging puts it there; a
        model missing from the price map is looked up once (the caller logs and counts it 0.0)."""
        usage = getattr(response, "usage", None)
        counts = (getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None))
        if self._priced is False or not all(isinstance(c, int) and c >= 0 for c in counts):
            return response  # unpriced, or counts that are not counts (recorded as unknown, not priced)
        from litellm import completion_cost

        try:
            cost = completion_cost(
                completion_response=response,
                model=self.model.partition("/")[2],
                custom_llm_provider="openai",
            )
        except Exception:  # not in the price map
            self._priced = False
            return response
        self._priced = True
        response._hidden_params["response_cost"] = cost
        return response
