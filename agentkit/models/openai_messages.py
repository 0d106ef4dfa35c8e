"""Typed prompt messages into the OpenAI chat format, and the cache key of a typed prompt.

Why here: base64 data URLs and provider JSON are the model client's business alone. The renderer,
memory and the store speak ``agentkit.messages`` (images as bytes with their sha256); this module is
where a prompt becomes the list of dicts litellm and the OpenAI SDK send. It takes typed messages
only: a caller's own dicts were read into typed ones once, at the edge
(``agentkit.messages.messages_from_openai``).

A frame is resent on every turn of a full-history episode, so its data URL is remembered by
sha256 (a value-keyed cache of the frames the run resends, ``reuse_window``) instead of base64-encoding the same bytes again each turn.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from agentkit.messages import ImagePart, Message
from agentkit.models import reuse_window

_data_urls: dict[tuple[str, str], str] = {}


def data_url(image: ImagePart) -> str:
    """The image as a ``data:<media type>;base64,`` URL (remembered by sha256)."""
    key = (image.sha256, image.media_type)
    url = _data_urls.get(key)
    if url is None:
        url = f"data:{image.media_type};base64,{base64.b64encode(image.data).decode('ascii')}"
        while len(_data_urls) >= reuse_window.frames():  # the frames the run's episodes resend
            try:  # forget the oldest; another thread may be doing the same
                _data_urls.pop(next(iter(_data_urls)), None)
            except (RuntimeError, StopIteration):
                break
        _data_urls[key] = url
    return url


def openai_message(message: Message) -> dict[str, Any]:
    """One message as an OpenAI chat dict: text parts as ``text``, images as ``image_url`` parts."""
    if message.tool_calls or message.tool_call_id:
        return _tool_message(message)
    if isinstance(message.content, str):
        return {"role": message.role, "content": message.content}
    parts: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, ImagePart):
            parts.append({"type": "image_url", "image_url": {"url": data_url(part)}})
        else:
            parts.append({"type": "text", "text": part.text})
    return {"role": message.role, "content": parts}


def _tool_message(message: Message) -> dict[str, Any]:
    """An assistant answer of tool calls (its free text as content, None when it has none), or a
    ``tool`` message answering one call by its id."""
    if message.tool_call_id:
        return {"role": message.role, "tool_call_id": message.tool_call_id, "content": message.text}
    return {
        "role": message.role,
        "content": message.text or None,
        "tool_calls": [c.openai_form() for c in message.tool_calls],
    }


def to_openai(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """A prompt as OpenAI chat dicts."""
    return [openai_message(m) for m in messages]


def _keyed(message: Message) -> Any:
    """What of a message goes into a cache key: images by sha256, never their bytes or base64."""
    if message.tool_calls or message.tool_call_id:
        return _tool_message(message)  # text only: nothing to leave out
    if isinstance(message.content, str):
        return {"role": message.role, "content": message.content}
    return {
        "role": message.role,
        "content": [
            {"type": "image", "sha256": p.sha256, "media_type": p.media_type}
            if isinstance(p, ImagePart)
            else {"type": "text", "text": p.text}
            for p in message.content
        ],
    }


def typed_request_key(model: str, params: dict[str, Any], messages: Sequence[Message]) -> str:
    """SHA-256 of the model, its parameters and a prompt's text and image hashes.

    Equal prompts have equal keys; an image changes the key through its sha256 alone, so making the
    key costs the prompt's text, not the base64 of every image of the history.
    """
    payload = json.dumps(
        {"model": model, "params": params, "messages": [_keyed(m) for m in messages]},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    # surrogatepass: an earlier answer with a lone surrogate in the history must not break the key
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()
