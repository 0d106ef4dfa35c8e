"""A chat request's JSON body, built once per call with every long string encoded once per episode.

Why: a full-history request carries every earlier frame as a base64 data URL (4.5 MB at turn 100
of an arena episode with 512 px frames). Encoding the whole body with ``json.dumps`` on every call
re-scans all of it (13 ms at turn 100; the openai SDK did it twice per call), holding the
interpreter lock. Here the strings of at least ``LONG_CHARS`` characters (data URLs, long system
prompts) are encoded once and remembered (value-keyed, bounded); each call encodes only the short
skeleton around them and joins the pieces, byte for byte what the SDK would send (the same
settings: UTF-8, no ASCII escaping, compact separators, no NaN).

Only messages of the plain OpenAI chat shape are built here (roles with text, text and image_url
parts, assistant tool calls, tool results as text): :func:`plain_messages` returns None for
anything else (cache markers, files, images inside tool results, ...), which litellm then
transforms and sends as before. ``None`` fields of a message are left out, as litellm does.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections.abc import Sequence
from typing import Any

LONG_CHARS = 2048  # strings this long or longer are encoded once and remembered
_FRAGMENT_CACHE_SIZE = 1024  # remembered encodings (a long full-history episode's frames, with room)
_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_MESSAGE_KEYS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})
_TOOL_CALL_KEYS = frozenset({"id", "type", "function"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})
_IMAGE_KEYS = frozenset({"url", "detail"})

# A placeholder no prompt can hold by chance: NUL, then a random per-process token, then an index.
_TOKEN = secrets.token_hex(8)
_PLACEHOLDER = "\x00" + _TOKEN + ":{}"
_PLACED = re.compile(r'"\\u0000' + _TOKEN + r':(\d+)"')

_fragments: dict[str, bytes] = {}
_lock = threading.Lock()


class _NotPlain(Exception):
    """A message outside the plain shape: litellm builds that request."""


def dumps(value: Any) -> str:
    """JSON text as the openai SDK and httpx write it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encoded(text: str) -> bytes:
    """The JSON string literal of ``text`` as UTF-8 bytes, remembered for long texts (a str caches its
    hash, so a frame's data URL resent each turn costs one lookup)."""
    fragment = _fragments.get(text)
    if fragment is None:
        fragment = dumps(text).encode("utf-8")
        with _lock:
            if len(_fragments) >= _FRAGMENT_CACHE_SIZE:
                _fragments.pop(next(iter(_fragments)), None)  # forget the oldest
            _fragments[text] = fragment
    return fragment


def plain_messages(messages: Sequence[Any], long: list[str]) -> list[dict[str, Any]] | None:
    """The messages with each long string replaced by a placeholder (the strings appended to
    ``long``), or None when one is not of the plain shape."""
    try:
        return [_message(m, long) for m in messages]
    except _NotPlain:
        return None


def encode_body(body: dict[str, Any]) -> bytes | None:
    """``body`` (a chat request's fields, in the order to send them) as JSON bytes, or None when its
    messages are not of the plain shape or a field is not JSON (or not UTF-8: a lone surrogate,
    which the SDK refuses too, and litellm words as before)."""
    long: list[str] = []
    messages = plain_messages(body.get("messages") or [], long)
    if messages is None:
        return None
    try:
        text = dumps({**body, "messages": messages})
        if not long:
            return text.encode("utf-8")
        pieces = _PLACED.split(text)  # text, index, text, index, ..., text
        out: list[bytes] = []
        for i, piece in enumerate(pieces):
            out.append(piece.encode("utf-8") if i % 2 == 0 else encoded(long[int(piece)]))
    except (TypeError, ValueError):  # UnicodeEncodeError is a ValueError
        return None
    # one buffer: a copy of 4.5 MB (turn 100) costs less than ~200 writes of its pieces through h11
    return b"".join(out)


def _placed(text: str, long: list[str]) -> str:
    if len(text) < LONG_CHARS:
        return text
    long.append(text)
    return _PLACEHOLDER.format(len(long) - 1)


def _message(message: Any, long: list[str]) -> dict[str, Any]:
    if not isinstance(message, dict) or message.get("role") not in _ROLES:
        raise _NotPlain
    out: dict[str, Any] = {}
    for key, value in message.items():
        if value is None:
            continue  # litellm leaves None fields out
        if key not in _MESSAGE_KEYS:
            raise _NotPlain
        if key == "content":
            out[key] = _content(value, long, images=message["role"] == "user")
        elif key == "tool_calls":
            out[key] = _tool_calls(value)
        elif isinstance(value, str):
            out[key] = value
        else:
            raise _NotPlain
    return out


def _content(content: Any, long: list[str], images: bool) -> Any:
    if isinstance(content, str):
        return _placed(content, long)
    if not isinstance(content, list):
        raise _NotPlain
    parts: list[dict[str, Any]] = []
    for part in content:
        if not isinstance(part, dict):
            raise _NotPlain
        kind = part.get("type")
        if kind == "text" and set(part) == {"type", "text"} and isinstance(part["text"], str):
            parts.append({"type": "text", "text": _placed(part["text"], long)})
        elif kind == "image_url" and images and set(part) == {"type", "image_url"}:
            image = part["image_url"]
            if not (
                isinstance(image, dict) and set(image) <= _IMAGE_KEYS and isinstance(image.get("url"), str)
            ):
                raise _NotPlain
            parts.append({"type": "image_url", "image_url": {**image, "url": _placed(image["url"], long)}})
        else:
            raise _NotPlain
    return parts


def _tool_calls(calls: Any) -> list[Any]:
    if not isinstance(calls, list):
        raise _NotPlain
    for call in calls:
        if not (isinstance(call, dict) and set(call) <= _TOOL_CALL_KEYS):
            raise _NotPlain
        function = call.get("function")
        if not (isinstance(function, dict) and set(function) <= _FUNCTION_KEYS):
            raise _NotPlain
    return calls
