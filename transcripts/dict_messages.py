"""TEMPORARY: OpenAI-style dict messages turned into typed ones once, where they enter the store.

Why: ``encode_turn`` (``agentkit.transcripts.turn_encoding``) takes typed messages only, with each
image as bytes and a sha256 (``agentkit.messages``). Until every writer hands the store typed
messages (issue 31 item 2), a dict message can still reach ``TranscriptStore.add_turn``, carrying
its images as base64 data URLs; ``DictMessages.typed`` converts such a turn's messages at that edge,
and nowhere else is a data URL decoded on the writing side. Delete this module, its use in
``store.py`` and the ``DictMessage`` branch of ``turn_encoding`` once no dict reaches the store.

A dict keeps every detail it stored before (an image's ``detail`` option, an ``http`` image, a data
URL that is not base64, keys beside role and content), so ``DictMessage`` holds the content in its
stored JSON form rather than as ``Message`` parts, which cannot say all of that.
"""

from __future__ import annotations

import base64
import binascii
import copy
from dataclasses import dataclass, field
from typing import Any

from agentkit.messages import ImagePart
from agentkit.records import TurnRecord

_URL_CACHE_SIZE = 512  # data URLs remembered with their image (full-history prompts resend them)
_EPISODES_REMEMBERED = 1024  # episodes whose last converted prompt is kept (as the store's logs)


@dataclass(frozen=True)
class DictMessage:
    """A dict message in the form the store keeps it: ``content`` is its stored JSON (each base64
    data-URL image an ``image_ref`` part by sha256), ``extra`` its keys beside role and content,
    ``images`` the bytes of the images it refers to."""

    role: str
    content: Any
    extra: dict[str, Any] | None
    images: tuple[ImagePart, ...] = field(default=(), repr=False)


def split_data_url(url: str) -> tuple[str, str] | None:
    """(media type, base64 payload) of a plain ``data:<type>;base64,`` URL, else None.

    Only this exact shape becomes a blob, because only it is rebuilt byte for byte on read
    (``agentkit.transcripts.message_images``)."""
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


class DictMessages:
    """Converts the dict messages of a turn, remembering what full-history prompts resend: each
    episode's last prompt (dicts and their conversions) and recent data URLs with their image."""

    def __init__(self) -> None:
        self._images: dict[str, ImagePart] = {}
        self._last: dict[str, tuple[list[Any], list[Any]]] = {}

    def typed(self, episode_id: str, turn: TurnRecord) -> TurnRecord:
        """``turn`` with its dict messages converted (the very same record when it has none)."""
        messages = turn.messages
        if not any(isinstance(m, dict) for m in messages):
            return turn
        typed = copy.copy(turn)  # half the time of dataclasses.replace, and every field stays as it was
        typed.messages = self._convert(episode_id, messages)
        return typed

    def forget_episode(self, episode_id: str) -> None:
        """Drop the episode's last prompt (it finished, or the store forgot its log)."""
        self._last.pop(episode_id, None)

    def forget_images(self) -> None:
        """Drop the remembered data URLs (they pay off within an episode and hold its images)."""
        self._images.clear()

    def _convert(self, episode_id: str, messages: list[Any]) -> list[Any]:
        """The messages converted; those a full-history prompt repeats from the episode's previous
        one are the same objects as then (compared as dicts, at C speed), so they are not converted
        again and ``encode_turn`` recognises them by identity."""
        start: list[Any] = []
        last = self._last.get(episode_id)
        if last is not None:
            sent, before = last
            k = len(sent)
            try:
                continues = 0 < k <= len(messages) and messages[:k] == sent
            except (TypeError, ValueError):  # values without a plain == (an array, say)
                continues = False
            if continues:
                start = before
            else:
                for now, was in zip(messages, sent):
                    if now is not was:
                        break
                    start.append(before[len(start)])
        out = [*start, *(self._message(m) for m in messages[len(start) :])]
        if episode_id not in self._last and len(self._last) >= _EPISODES_REMEMBERED:
            self._last.pop(next(iter(self._last)), None)
        self._last[episode_id] = (list(messages), out)
        return out

    def _message(self, message: Any) -> Any:
        if not isinstance(message, dict):
            return message  # typed already
        content = message.get("content")
        images: list[ImagePart] = []
        if isinstance(content, list):
            content = [self._part(p, images) for p in content]
        extra = {k: v for k, v in message.items() if k != "role" and k != "content"} or None
        return DictMessage(message.get("role", ""), content, extra, tuple(images))

    def _part(self, part: Any, images: list[ImagePart]) -> Any:
        """A content part, a base64 data-URL image replaced by an ``image_ref`` part."""
        image_url = (
            part.get("image_url") if isinstance(part, dict) and part.get("type") == "image_url" else None
        )
        url = image_url.get("url") if isinstance(image_url, dict) else None
        image = self._image(url) if isinstance(url, str) else None
        if image is None:
            return part
        images.append(image)
        new_part = {k: v for k, v in part.items() if k not in ("type", "image_url")}
        new_part.update(type="image_ref", sha256=image.sha256, media_type=image.media_type)
        options = {k: v for k, v in (image_url or {}).items() if k != "url"}  # e.g. "detail"
        if options:
            new_part["image_url_options"] = options
        return new_part

    def _image(self, url: str) -> ImagePart | None:
        """The image of a base64 data URL (None for any other URL, kept inline as it was)."""
        cached = self._images.get(url)
        if cached is not None:
            return cached
        split = split_data_url(url)
        if split is None:
            return None
        media_type, payload = split
        try:
            data = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            return None
        image = ImagePart.of(data, media_type)
        if len(self._images) >= _URL_CACHE_SIZE:
            try:  # evict the oldest entry; another thread may be evicting at the same moment
                self._images.pop(next(iter(self._images)), None)
            except (RuntimeError, StopIteration):
                pass
        self._images[url] = image
        return image
