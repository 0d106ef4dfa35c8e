"""Message images on reading: stored ``image_ref`` parts turned back into data URLs.

The store keeps each image once, as a blob addressed by SHA-256, and refers to it in the message
content with an ``image_ref`` part (written by ``agentkit.transcripts.turn_encoding``); on read the
parts are turned back into the exact data URLs that were sent (or left as references). These
helpers are pure functions on parsed JSON, separate from the store because they know nothing about
the database.
"""

from __future__ import annotations

import base64
import logging
from typing import Any, Literal

log = logging.getLogger(__name__)

ImageMode = Literal["data_url", "ref"]


def _data_url(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


def _restore(content: Any, urls: dict[str, str], images: ImageMode) -> Any:
    """A fresh copy of stored content, image refs turned back into data-URL parts if asked."""
    if isinstance(content, list):
        return [_restore_part(p, urls, images) for p in content]
    return _copy(content)


def _restore_part(part: Any, urls: dict[str, str], images: ImageMode) -> Any:
    if images == "ref" or not (isinstance(part, dict) and part.get("type") == "image_ref"):
        return _copy(part)
    url = urls.get(part["sha256"])
    if url is None:  # bytes unavailable (a pack not copied with the database, warned): keep the reference
        log.warning("image blob %s missing from the store", part["sha256"])
        return _copy(part)
    image_url = {"url": url, **_copy(part.get("image_url_options") or {})}
    restored = {"type": "image_url", "image_url": image_url}
    restored.update(
        {
            k: _copy(v)
            for k, v in part.items()
            if k not in ("type", "sha256", "media_type", "image_url_options")
        }
    )
    return restored


def _copy(obj: Any) -> Any:
    """Deep copy of parsed JSON (messages must not share mutable parts across turns)."""
    if isinstance(obj, dict):
        return {k: _copy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_copy(v) for v in obj]
    return obj
