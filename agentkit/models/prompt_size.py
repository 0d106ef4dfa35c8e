"""Our own count of the input tokens a chat request carries, to check the provider's against it.

Why: a server that silently drops part of a prompt (a system message it has no role for, images
a text-only model ignores) still answers, and the run looks normal. One such server reported 7
input tokens for a request of about 1,400. Comparing the provider's count with ours on every turn
turns that into a warning stored with the turn.

Text is counted with the offline tokenizer of ``agentkit.models.token_count`` (exact for OpenAI models, a
close estimate for others), images with OpenAI's high-detail formula from the size in their header,
plus OpenAI's framing of chat messages (3 tokens around each, 3 to open the answer). Other
providers count differently, so only a large gap is reported: less than half of our count, on a
prompt of more than ``MIN_TOKENS_CHECKED`` tokens.
"""

from __future__ import annotations

import base64
import binascii
import io
import threading
from typing import Any

from agentkit.models import reuse_window
from agentkit.models.token_count import TokenCounter, token_counter

MESSAGE_OVERHEAD_TOKENS = 3  # OpenAI chat format: role and separators around every message
REPLY_PRIMING_TOKENS = 3  # the assistant turn the request opens
DROPPED_RATIO = 0.5  # the provider counts less than this share of our count: part of the prompt is gone
MIN_TOKENS_CHECKED = 200  # smaller prompts vary too much between tokenizers to judge
_DEFAULT_IMAGE_SIZE = (512, 512)  # when an image's header cannot be read
_HEADER_CHARS = 8192  # base64 characters decoded to find an image's size (its header is near the start)

_counters: dict[str, TokenCounter] = {}
_image_tokens: dict[str, int] = {}
_lock = threading.Lock()
LINES_PER_MESSAGE = 16  # distinct lines a token counter remembers per message of the window


def counter_for(model: str) -> TokenCounter:
    """One counter per model name, shared by the episodes of a process (it remembers what it counted,
    whole texts included: a full-history prompt's earlier texts cost one lookup each), remembering
    the texts of the messages the run resends (``reuse_window``)."""
    with _lock:
        counter = _counters.get(model)
        if counter is None:
            counter = _counters[model] = token_counter(model)
        counter.remember_at_most(reuse_window.messages(), LINES_PER_MESSAGE * reuse_window.messages())
        return counter


def count_input_tokens(messages: list[dict[str, Any]], counter: TokenCounter) -> int:
    """About how many input tokens ``messages`` (OpenAI chat shape, images as data URLs) are."""
    total = REPLY_PRIMING_TOKENS
    text = counter.text
    for message in messages:
        total += MESSAGE_OVERHEAD_TOKENS + text(str(message.get("role", "")))
        content = message.get("content")
        if isinstance(content, str):
            total += text(content)
            continue
        for part in content if isinstance(content, list) else []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text":
                total += text(str(part.get("text", "")))
            elif part.get("type") == "image_url":
                url = (part.get("image_url") or {}).get("url", "")
                total += _image(url if isinstance(url, str) else "", counter)
    return total


def dropped_prompt_warning(provider_tokens: int | None, our_tokens: int | None) -> str | None:
    """A one-line warning when the provider counted far fewer input tokens than we sent, else None."""
    if provider_tokens is None or our_tokens is None or our_tokens <= MIN_TOKENS_CHECKED:
        return None
    if provider_tokens >= DROPPED_RATIO * our_tokens:
        return None
    return (
        f"the provider counted {provider_tokens} input tokens where we sent about {our_tokens}: "
        "the server dropped part of the prompt (a system message or images it does not take?)"
    )


def _image(url: str, counter: TokenCounter) -> int:
    tokens = _image_tokens.get(url)  # a str caches its hash: resent images cost one lookup
    if tokens is None:
        tokens = counter.image(*_image_size(url))
        with _lock:
            while len(_image_tokens) >= reuse_window.frames():  # a key holds its frame's data URL
                _image_tokens.pop(next(iter(_image_tokens)))
            _image_tokens[url] = tokens
    return tokens


def _image_size(url: str) -> tuple[int, int]:
    """(width, height) from the header of a base64 data-URL image; a default when it cannot be read."""
    header, _, payload = url.partition(",")
    if not (header.startswith("data:") and header.endswith(";base64")):
        return _DEFAULT_IMAGE_SIZE
    head = payload[:_HEADER_CHARS]
    head = head[: len(head) - len(head) % 4]
    try:
        from PIL import Image

        with Image.open(io.BytesIO(base64.b64decode(head))) as image:  # reads the header only
            return image.size
    except (ImportError, binascii.Error, ValueError, OSError, SyntaxError):
        return _DEFAULT_IMAGE_SIZE
