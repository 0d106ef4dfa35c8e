"""Typed prompt messages: a role and its parts, text or image, with images as bytes and a sha256.

Why: a prompt's images used to travel as base64 data URLs inside untyped OpenAI-style dicts, and
every reader after the renderer (the store, the cache key, rerender) had to fish the bytes back
out or remember which string was which. A typed part carries what they all need (bytes, media
type, sha256), so only the model client makes base64 and provider JSON, and everything else refers
to an image by its sha256. A leaf: it imports nothing of agentkit's, so every layer may use it.

It is the one message type: every model takes it. OpenAI-style dicts from outside are read into it
once, at the edge, by :func:`messages_from_openai` (below), which names the field it cannot read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate: no character, with no UTF-8 form, so no request
    (and no database) can carry it. Only a misbehaving server sends one."""
    return _LONE_SURROGATE.search(text) is not None


def escape_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as the escape ``\\uXXXX``: what an answer can be sent
    back as in the history, its code points kept in writing rather than dropped."""
    if not has_lone_surrogate(text):
        return text
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@dataclass(frozen=True, slots=True)
class TextPart:
    """A piece of text inside a message."""

    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image inside a message: its encoded bytes (PNG or JPEG), media type and SHA-256 (hex)."""

    data: bytes = field(repr=False)  # tens of kilobytes: a log line shows the hash instead
    media_type: str
    sha256: str

    # Equal and hashed by sha256 and media type: the hash names the bytes, so comparing or hashing
    # the bytes themselves (tens of kilobytes per frame) would only repeat it.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ImagePart):
            return NotImplemented
        return self.sha256 == other.sha256 and self.media_type == other.media_type

    def __hash__(self) -> int:
        return hash((self.sha256, self.media_type))

    @classmethod
    def of(cls, data: bytes, media_type: str) -> ImagePart:
        """An image part for ``data``, hashing it (use the constructor when the hash is known)."""
        return cls(data, media_type, hashlib.sha256(data).hexdigest())


Part = TextPart | ImagePart


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of an answer (``--action-format tools``): the provider's id for it, the tool's
    name and its arguments as the JSON text the model wrote (read by ``agentkit.actions.tool_calls``,
    never executed)."""

    name: str
    arguments: str = "{}"
    id: str = ""

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    def openai_form(self) -> dict[str, object]:
        """The call in OpenAI's chat shape (``{"id", "type": "function", "function": {...}}``): what
        the model client sends and what the store keeps in a message row's ``extra``."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ToolCall:
        """A call from :meth:`to_json`'s form (as stored with a turn)."""
        return cls(str(data.get("name", "")), str(data.get("arguments", "{}")), str(data.get("id", "")))


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message: ``content`` is plain text, or a tuple of parts (text and images in order).

    An assistant answer of tool calls carries them in ``tool_calls`` (its content the free text
    beside them, often empty); the result of one call is a ``tool`` message naming the call in
    ``tool_call_id``.

    Frozen and compared by value; equal messages of a full-history prompt are usually the very same
    objects, so comparing a prompt with the previous one costs little. The hash is computed once, at
    construction: the store and rerender look messages up by value every turn.
    """

    role: str
    content: str | tuple[Part, ...]
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.role, self.content, self.tool_calls, self.tool_call_id)))

    def __hash__(self) -> int:
        return self._hash

    @property
    def images(self) -> tuple[ImagePart, ...]:
        """The message's image parts, in order (none for plain text)."""
        if isinstance(self.content, str):
            return ()
        return tuple(p for p in self.content if isinstance(p, ImagePart))

    @property
    def text(self) -> str:
        """The message's text: the plain content, or its text parts joined by newlines."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))


# --- OpenAI-style dicts from outside, read once --------------------------------------------------
# A caller's prompt written as OpenAI chat dicts (Inspect's turns, a user's own list) becomes typed
# messages here, at the edge, and nowhere else: past this point every part of agentkit reads
# ``Message`` only, and only the model client writes dicts again (agentkit.models.openai_messages).

_DATA_URL = re.compile(r"data:(image/[A-Za-z0-9.+-]+);base64,(.*)", re.DOTALL)
_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id"})


class MessageFormatError(ValueError):
    """An outside message that is no OpenAI chat message agentkit can read; the text is one line
    naming the field (``messages[1].content[0].image_url.url: ...``)."""


def messages_from_openai(messages: object, where: str = "messages") -> list[Message]:
    """A caller's OpenAI-style chat dicts as typed messages (images decoded from their data URLs).

    Raises :class:`MessageFormatError` naming the first field that cannot be read: a prompt half
    read would be sent half right.
    """
    if isinstance(messages, (str, bytes, Mapping)) or not hasattr(messages, "__iter__"):
        raise MessageFormatError(f"{where}: expected a list of chat messages, got {type(messages).__name__}")
    return [message_from_openai(m, f"{where}[{i}]") for i, m in enumerate(messages)]


def message_from_openai(message: object, where: str = "message") -> Message:
    """One OpenAI-style chat dict as a typed message (see :func:`messages_from_openai`)."""
    if isinstance(message, Message):
        return message
    if not isinstance(message, Mapping):
        raise MessageFormatError(f"{where}: expected a chat message (a dict), got {type(message).__name__}")
    unknown = sorted(str(k) for k in message if k not in _MESSAGE_KEYS)
    if unknown:
        raise MessageFormatError(f"{where}.{unknown[0]}: not a field agentkit sends (role, content, ...)")
    role = message.get("role")
    if not isinstance(role, str) or not role:
        raise MessageFormatError(f"{where}.role: expected a role such as 'user', got {role!r}")
    calls = _tool_calls_from_openai(message.get("tool_calls"), f"{where}.tool_calls")
    call_id = message.get("tool_call_id", "")
    if not isinstance(call_id, str):
        raise MessageFormatError(f"{where}.tool_call_id: expected text, got {type(call_id).__name__}")
    content = message.get("content")
    if content is None and calls:
        return Message(role, "", calls, call_id)  # an answer of tool calls alone
    return Message(role, _content_from_openai(content, f"{where}.content"), calls, call_id)


def _content_from_openai(content: object, where: str) -> str | tuple[Part, ...]:
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)):
        raise MessageFormatError(f"{where}: expected text or a list of parts, got {type(content).__name__}")
    parts: list[Part] = []
    for i, part in enumerate(content):
        at = f"{where}[{i}]"
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text" and isinstance(part, Mapping) and isinstance(part.get("text"), str):
            parts.append(TextPart(part["text"]))
        elif kind == "image_url" and isinstance(part, Mapping):
            parts.append(_image_from_openai(part.get("image_url"), f"{at}.image_url"))
        elif kind == "text":
            raise MessageFormatError(f"{at}.text: expected text")
        else:
            raise MessageFormatError(f"{at}.type: expected 'text' or 'image_url', got {kind!r}")
    return tuple(parts)


def _image_from_openai(image_url: object, where: str) -> ImagePart:
    url = image_url.get("url") if isinstance(image_url, Mapping) else None
    if not isinstance(url, str):
        raise MessageFormatError(f"{where}.url: expected a data URL")
    match = _DATA_URL.fullmatch(url)
    if match is None:
        raise MessageFormatError(
            f"{where}.url: expected a base64 data URL of an image (data:image/...;base64,...), "
            f"got {url[:40]!r}"
        )
    try:
        data = base64.b64decode(match.group(2), validate=True)
    except binascii.Error:
        raise MessageFormatError(f"{where}.url: the data URL's base64 does not decode") from None
    return ImagePart.of(data, match.group(1))


def _tool_calls_from_openai(calls: object, where: str) -> tuple[ToolCall, ...]:
    if calls is None:
        return ()
    if not isinstance(calls, (list, tuple)):
        raise MessageFormatError(f"{where}: expected a list of tool calls, got {type(calls).__name__}")
    out: list[ToolCall] = []
    for i, call in enumerate(calls):
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(call, Mapping) or not isinstance(function, Mapping):
            raise MessageFormatError(f"{where}[{i}].function: expected a tool call's name and arguments")
        name, arguments, call_id = function.get("name"), function.get("arguments", "{}"), call.get("id", "")
        if not isinstance(name, str) or not isinstance(arguments, str) or not isinstance(call_id, str):
            raise MessageFormatError(
                f"{where}[{i}]: expected text for id, function.name and function.arguments"
            )
        out.append(ToolCall(name, arguments, call_id))
    return tuple(out)
