"""Observations rebuilt from a transcript's stored JSON, images known by their hash only.

Why a file of its own: a re-render (and anything else that renders prompts for recorded turns)
needs the Observation the model saw, and the store keeps it as JSON with images by reference.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from agentkit.observers import EncodedImage, Observation


@dataclass(frozen=True)
class StoredImage(EncodedImage):
    """An image known by its hash: templates see its label, type and size; a typed prompt's image
    part carries its sha256 (``agentkit.messages.ImagePart``).

    The bytes are not loaded (``data`` is empty): a re-rendered prompt is compared, diffed and
    counted by the hash, never sent, and the image it shows is the stored one by construction.
    """

    def data_url(self) -> str:
        raise ValueError(
            f"image {self.sha256[:12]}: a stored image has no bytes here; refer to it by its sha256"
        )


_OBSERVATION_FIELDS = {f.name for f in fields(Observation)} - {"images", "privileged"}


def observation_from_json(data: dict[str, Any]) -> Observation:
    """The Observation a stored turn's ``observation`` JSON describes (privileged state is not stored)."""
    images: list[EncodedImage] = [
        StoredImage(
            label=str(i.get("label", "")),
            media_type=str(i.get("media_type", "")),
            data=b"",
            sha256=str(i["sha256"]),
            width=int(i.get("width") or 0),
            height=int(i.get("height") or 0),
        )
        for i in data.get("images") or []
        if isinstance(i, dict) and "sha256" in i
    ]
    return Observation(images=images, **{k: v for k, v in data.items() if k in _OBSERVATION_FIELDS})
