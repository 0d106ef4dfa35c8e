"""OpenAI SDK clients that send our chat messages as they are, without the SDK's request transform.

Why: before every request the openai SDK walks the whole body against its typed-dict schema
(``openai._utils._transform.maybe_transform``) to rename aliased keys and drop unset ones. Our
messages are plain JSON-ready dicts with no aliased keys, so the walk changes nothing, yet with
full history it visits every part of every earlier turn: measured at ~20 ms per call at turn 30
and ~100 ms at turn 100 of an arena episode (bench/model_client.py), holding the interpreter lock
while it runs, so threaded episodes queue on it. litellm still routes, prices and maps errors; its
call reaches ``chat.completions.create`` of the client we give it (``usage_guard``'s clients for
OpenAI-compatible servers), and that ``create`` is replaced here by one that builds the same body
(the same keys, in the SDK's own order, unset ones left out) and posts it the SDK's way.

Streaming, ``response_format`` (which the SDK validates) and any keyword this SDK does not name
go through the SDK's own ``create`` unchanged.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

import openai
from openai._base_client import make_request_options
from openai._streaming import AsyncStream, Stream
from openai._types import NotGiven, Omit
from openai.resources.chat.completions import AsyncCompletions, Completions
from openai.types.chat import ChatCompletion, ChatCompletionChunk

_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout")
_PARAMETERS = tuple(
    p for p in inspect.signature(Completions.create).parameters if p != "self" and p not in _OPTIONS
)


def _sdk_body_order() -> tuple[str, ...]:
    """The body's keys in the order the SDK's own create() writes them: the keys of the dict literal it
    posts. openai 2 wrote them in its signature's order; openai 3 puts ``model`` first, so the order is
    read from the SDK's source rather than assumed (the same keys in another order are other bytes)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(Completions.create))))
    except (OSError, TypeError, SyntaxError):
        return _PARAMETERS
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and {"messages", "model"} <= {
            k.value for k in node.keys if isinstance(k, ast.Constant)
        }:
            keys = tuple(
                k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
            )
            return keys + tuple(p for p in _PARAMETERS if p not in keys)
    return _PARAMETERS


_BODY_KEYS = _sdk_body_order()
_KNOWN = frozenset(_BODY_KEYS) | frozenset(_OPTIONS)


def _plain(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(body, request options) for a plain non-streaming call, or None when the SDK should build it."""
    if set(params) - _KNOWN or params.get("stream") or _given(params.get("response_format")):
        return None
    body = {k: params[k] for k in _BODY_KEYS if k in params and _given(params[k])}
    options = {k: params[k] for k in _OPTIONS if k in params}
    return body, options


def _given(value: Any) -> bool:
    return value is not None and not isinstance(value, (NotGiven, Omit))


def _request_options(options: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = dict(options)
    if "security" in inspect.signature(make_request_options).parameters:
        kwargs["security"] = {"bearer_auth": True}  # as the SDK's own create() asks
    return make_request_options(**kwargs)


class _PlainCompletions(Completions):
    def create(self, **params: Any) -> Any:
        plain = _plain(params)
        if plain is None:
            return super().create(**params)
        body, options = plain
        return self._post(
            "/chat/completions",
            body=body,
            options=_request_options(options),
            cast_to=ChatCompletion,
            stream=False,
            stream_cls=Stream[ChatCompletionChunk],
        )


class _AsyncPlainCompletions(AsyncCompletions):
    async def create(self, **params: Any) -> Any:
        plain = _plain(params)
        if plain is None:
            return await super().create(**params)
        body, options = plain
        return await self._post(
            "/chat/completions",
            body=body,
            options=_request_options(options),
            cast_to=ChatCompletion,
            stream=False,
            stream_cls=AsyncStream[ChatCompletionChunk],
        )


def plain_messages(client: openai.OpenAI) -> openai.OpenAI:
    """``client`` with its ``chat.completions.create`` sending the messages as given (see above)."""
    client.chat.__dict__["completions"] = _PlainCompletions(client)  # a cached_property's slot
    return client


def async_plain_messages(client: openai.AsyncOpenAI) -> openai.AsyncOpenAI:
    """The async twin of :func:`plain_messages`."""
    client.chat.__dict__["completions"] = _AsyncPlainCompletions(client)
    return client
