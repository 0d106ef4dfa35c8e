"""Where the agent is and which way it faces, as a typed value beside the Observation.

Why a type of its own: the backends report a pose with every observation, the transcript stores
it, and the viewer draws the trajectory from it. Kept as a loose dict it was spelled two ways
("heading" here, "orientation" there) and its shape lived in docstrings. ``Pose`` is the one
spelling; ``to_json``/``from_json`` are the one stored form, unchanged from the dicts transcripts
already hold (``{"position": [...], "heading": ..., "label": ...}``), so old rows still read.

The heading convention: compass degrees seen from above, 0 towards the ground plane's second axis
(+z in Animal-AI's arena, +y on TriFinger's floor), growing clockwise (90 faces +x). A grid world
gives a compass word instead ("north", "east", "south", "west", as its observations say), north
being the top row. None when the backend does not know it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Heading = float | str | None  # compass degrees, a grid's compass word, or unknown


@dataclass(frozen=True)
class Pose:
    """The agent's place on the ground plane (grid cells or world units), its heading if known.

    ``x`` and ``y`` are the two axes of the ground as a map draws it (a grid's column and row; a
    y-up world's x and z). ``height`` is the vertical coordinate of a y-up world (the arena and
    Animal-AI report ``[x, height, z]``), kept only so the stored position reads back as it was
    written; two poses at one place on the map facing one way are equal whatever their height.
    """

    x: float
    y: float
    heading: Heading = None
    label: str = ""  # what the position is of, when not the agent itself (TriFinger: "block 0")
    height: float | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The stored form: ``position`` as the backend's axes (``[x, y]`` or ``[x, height, y]``)."""
        position = [self.x, self.y] if self.height is None else [self.x, self.height, self.y]
        return {
            "position": position,
            "heading": self.heading,
            **({"label": self.label} if self.label else {}),
        }

    @classmethod
    def from_json(cls, data: Any) -> Pose | None:
        """A stored pose, or None when it holds no usable position.

        Stored data is read defensively (a transcript is input): a position of two or three numbers
        is required; a heading that is neither a number nor a word reads as unknown, a
        label that is not text as none. Coordinates come back as floats.
        """
        if not isinstance(data, dict):
            return None
        return cls.from_position(data.get("position"), data.get("heading"), data.get("label"))

    @classmethod
    def from_position(cls, position: Any, heading: Any = None, label: Any = None) -> Pose | None:
        """A pose from a stored position list (``[x, y]``, or ``[x, height, y]`` of a y-up world),
        or None when the position is not two or three numbers."""
        if not isinstance(position, (list, tuple)) or not all(_number(v) for v in position):
            return None
        if len(position) == 2:
            x, y, height = position[0], position[1], None
        elif len(position) == 3:
            x, height, y = position  # the ground plane of a y-up world is x and z
        else:
            return None
        if not (isinstance(heading, str) or _number(heading)):
            heading = None
        return cls(
            float(x),
            float(y),
            heading,
            label if isinstance(label, str) else "",
            None if height is None else float(height),
        )


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
