"""A chat request's JSON body, with every message encoded once per episode rather than once per call.

Why: a full-history request carries every earlier turn, frames included as base64 data URLs (4.5 MB
at turn 100 of an arena episode with 512 px frames). Encoding the whole body with ``json.dumps`` on
every call re-scans all of it (13 ms at turn 100; the openai SDK did it twice per call), holding the
interpreter lock. Here each message's JSON is remembered by its value (a tuple of its strings, which
cache their own hashes, so an earlier turn's message costs one lookup even when the caller made a
fresh dict of it) and the body is the remembered pieces joined: byte for byte what the SDK would
send (the same settings: UTF-8, no ASCII escaping, compact separators, no NaN; the same key order).

Only messages of the plain OpenAI chat shape are built here (roles with text, text and image_url
parts, assistant tool calls, tool results as text): :func:`encode_body` returns None for anything
else (cache markers, files, images inside tool results, ...), which litellm then transforms and
sends as before. ``None`` fields of a message are left out, as litellm does.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from agentkit.messages import Message
from agentkit.models import reuse_window

# Remembered encodings: the run's messages in flight (reuse_window), and at most this many bytes of
# them (a guard: four arena episodes at turn 100 with 512 px frames resend about 18 MB).
CACHE_BYTES = 64 * 2**20
_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_MESSAGE_KEYS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})
_TEXT_PART = frozenset({"type", "text"})
_IMAGE_PART = frozenset({"type", "image_url"})
_IMAGE_KEYS = frozenset({"url", "detail"})
_TOOL_CALL_KEYS = frozenset({"id", "type", "function"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})

_messages: dict[tuple[Any, ...], bytes] = {}
_cached_bytes = 0
_typed: dict[Message, bytes] = {}  # a typed message (frozen, compared by value) -> its JSON
_lock = threading.Lock()


class _NotPlain(Exception):
    """A message outside the plain shape: litellm builds that request."""


def dumps(value: Any) -> str:
    """JSON text as the openai SDK and httpx write it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode_body(body: dict[str, Any], typed: Sequence[Message] | None = None) -> bytes | None:
    """``body`` (a chat request's fields, ``messages`` first, in the order to send them) as JSON
    bytes, or None when a message is not of the plain shape or a field is not JSON (or not UTF-8: a
    lone surrogate, which the SDK refuses too and litellm words as before).

    ``typed``: the typed messages (``agentkit.messages.Message``) the body's messages were made
    from, one for one; each is looked up as it is (its hash made once, the same object on every
    later turn), sparing the walk over its dict."""
    messages = body.get("messages")
    if not isinstance(messages, list) or next(iter(body)) != "messages":
        return None
    rest = {k: v for k, v in body.items() if k != "messages"}
    try:
        pieces = [b'{"messages":[']
        for i, message in enumerate(messages):
            if i:
                pieces.append(b",")
            if typed is not None:
                pieces.append(_encoded_typed(typed[i], message))
            else:
                pieces.append(encoded_message(message))
        pieces.append(b"]")
        if rest:
            pieces.append(b"," + dumps(rest).encode("utf-8")[1:])
        else:
            pieces.append(b"}")
    except (_NotPlain, TypeError, ValueError):  # UnicodeEncodeError is a ValueError
        return None
    return b"".join(pieces)  # one buffer: cheaper than ~200 writes of the pieces through h11


def encoded_message(message: Any) -> bytes:
    """One message's JSON, remembered by value (raises _NotPlain for a message of another shape)."""
    global _cached_bytes
    key = _key(message)
    data = _messages.get(key)
    if data is None:
        data = dumps({k: v for k, v in message.items() if v is not None}).encode("utf-8")
        with _lock:
            while _messages and (  # forget the oldest
                _cached_bytes + len(data) > CACHE_BYTES or len(_messages) >= reuse_window.messages()
            ):
                _cached_bytes -= len(_messages.pop(next(iter(_messages))))
            _messages[key] = data
            _cached_bytes += len(data)
    return data


def _encoded_typed(typed: Message, message: Any) -> bytes:
    data = _typed.get(typed)
    if data is None:
        data = encoded_message(message)
        with _lock:
            while len(_typed) >= reuse_window.messages():  # they hold their frames' bytes
                _typed.pop(next(iter(_typed)), None)  # forget the oldest
            _typed[typed] = data
    return data


def _key(message: Any) -> tuple[Any, ...]:
    """Everything of a plain message that goes into its JSON, in order, as a hashable tuple."""
    if not isinstance(message, dict) or message.get("role") not in _ROLES:
        raise _NotPlain
    key: list[Any] = []
    for name, value in message.items():
        if value is None:
            continue  # left out, as litellm does
        if name not in _MESSAGE_KEYS:
            raise _NotPlain
        if isinstance(value, str):
            key.append((name, value))
        elif name == "content" and isinstance(value, list):
            key.append((name, tuple(_part(p, images=message["role"] == "user") for p in value)))
        elif name == "tool_calls" and isinstance(value, list):
            key.append((name, tuple(_call(c) for c in value)))
        else:
            raise _NotPlain
    return tuple(key)


def _part(part: Any, images: bool) -> tuple[Any, ...]:
    if not isinstance(part, dict):
        raise _NotPlain
    kind = part.get("type")
    if kind == "text" and part.keys() == _TEXT_PART and isinstance(part["text"], str):
        return tuple(part.items())
    if kind == "image_url" and images and part.keys() == _IMAGE_PART:
        image = part["image_url"]
        if isinstance(image, dict) and image.keys() <= _IMAGE_KEYS and _strings(image):
            return tuple((k, tuple(v.items()) if k == "image_url" else v) for k, v in part.items())
    raise _NotPlain


def _call(call: Any) -> tuple[Any, ...]:
    if not (isinstance(call, dict) and call.keys() <= _TOOL_CALL_KEYS):
        raise _NotPlain
    function = call.get("function")
    if not (isinstance(function, dict) and function.keys() <= _FUNCTION_KEYS and _strings(function)):
        raise _NotPlain
    others = {k: v for k, v in call.items() if k != "function"}
    if not _strings(others):
        raise _NotPlain
    return tuple((k, tuple(v.items()) if k == "function" else v) for k, v in call.items())


def _strings(mapping: dict[str, Any]) -> bool:
    return all(isinstance(v, str) for v in mapping.values())
