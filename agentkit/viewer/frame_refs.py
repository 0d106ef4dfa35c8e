"""The images a stored observation sent, by hash, read defensively: one list for every use.

Why a file of its own: the episode page shows a turn's frames, plays back every turn's frames, and
``agentkit view --export-gif`` writes them as an animation; all three read them from the stored
observation JSON (data from a database, so nothing about it is assumed) in the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class FrameRef:
    """One image of a turn: its hash, media type, the observer's label (a camera name), and size."""

    sha256: str
    media_type: str
    label: str = ""
    width: int | None = None
    height: int | None = None


def _size(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 100_000 else None


def frame_refs(observation: Any) -> tuple[FrameRef, ...]:
    """The images of a stored observation; entries without a well-formed hash are left out."""
    if not isinstance(observation, dict) or not isinstance(observation.get("images"), list):
        return ()
    found = []
    for image in observation["images"]:
        if (
            isinstance(image, dict)
            and isinstance(image.get("sha256"), str)
            and _SHA256.fullmatch(image["sha256"])
        ):
            label = image.get("label")
            found.append(
                FrameRef(
                    image["sha256"],
                    str(image.get("media_type") or ""),
                    label[:80] if isinstance(label, str) else "",
                    _size(image.get("width")),
                    _size(image.get("height")),
                )
            )
    return tuple(found)
