"""Message images: base64 data URLs in, stored ``image_ref`` parts out, and back again.

The store keeps each image once, as a blob addressed by SHA-256, and replaces it in the message
content with an ``image_ref`` part; on read the parts are turned back into the exact data URLs
that were sent (or left as references). These helpers are pure functions on URLs and parsed JSON,
separate from the store because they know nothing about the database.
"""

from __future__ import annotations

import base64
import logging
from typing import Any, Literal

from agentkit.messages import ImagePart

log = logging.getLogger(__name__)

ImageMode = Literal["data_url", "ref"]


def _split_data_url(url: str) -> tuple[str, str] | None:
    """(media type, base64 payload) of a plain ``data:<type>;base64,`` URL, else None.

    Only this exact shape is converted to a blob, because only it is rebuilt byte for byte on read.
    """
    if not url.startswith("data:"):
        return None
    comma = url.find(",", 5)
    if comma < 0:
        return None
    header = url[5:comma]
    if not header.endswith(";base64"):
        return None
    media_type = header[: -len(";base64")]
    if not media_type or ";" in media_type:
        return None
    return media_type, url[comma + 1 :]


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


def stored_content(content: Any, new_blobs: dict[str, dict[str, Any]], known: set[str]) -> Any:
    """The stored JSON of a typed message's content (``agentkit.messages``): text as it is, text
    parts as ``text`` parts, image parts as ``image_ref`` parts by sha256 (the form the data-URL
    path stores, so both read back the same). Images not in ``known`` are queued in ``new_blobs``
    from the part's own bytes and hash: nothing is decoded or hashed again."""
    if isinstance(content, str):
        return content
    out: list[dict[str, Any]] = []
    for part in content:
        if not isinstance(part, ImagePart):
            out.append({"type": "text", "text": part.text})
            continue
        sha = part.sha256
        if sha not in known and sha not in new_blobs:
            new_blobs[sha] = {
                "sha256": sha,
                "media_type": part.media_type,
                "data": part.data,
                "size": len(part.data),
            }
        out.append({"type": "image_ref", "sha256": sha, "media_type": part.media_type})
    return out
