"""A backend's top-down drawing of its world, as typed values beside the Observation.

Why: someone reading an episode wants to see where the agent went among the things of its world,
and the viewer knows no backend. A backend that can describes its world as plain footprints on
the ground plane (``Backend.world_map``), stored once per episode. The shape of that drawing used
to live in a docstring of ``dict[str, Any]``; these types are it, and ``to_json``/``from_json``
are its stored form, the very JSON transcripts already hold
(``{"bounds": [x0, y0, x1, y1], "y_up": bool, "shapes": [{"kind": "rect" | "circle", ...}]}``).

The axes are those of the agent's ``Pose`` (the ground plane); ``y_up`` says the second axis
points up on the drawing. A rectangle's ``angle`` is in degrees clockwise seen from above, like a
heading.

A stored map is data from a file someone may have shared: ``from_json`` keeps what is well formed
(shapes with missing or non-numeric geometry are left out, a colour that is not ``#rrggbb`` turns
grey, opacity is clamped, labels are cut, at most ``MAX_SHAPES`` shapes), so a page drawing it
never breaks on it or carries its markup.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

ShapeKind = Literal["rect", "circle"]

GREY = "#999999"  # the colour of a shape whose stored colour is unusable
MAX_SHAPES = 2000  # a map is a sketch; a transcript cannot make the page arbitrarily heavy
MAX_LABEL = 80
_FILL = re.compile(r"^#[0-9a-fA-F]{6}$")


@dataclass(frozen=True)
class WorldShape:
    """One footprint: a rectangle (centre ``x, y``, sizes ``w, h``, ``angle``) or a disc (``r``)."""

    kind: ShapeKind
    x: float
    y: float
    w: float = 0.0
    h: float = 0.0
    r: float = 0.0
    angle: float = 0.0  # degrees clockwise seen from above (rectangles)
    fill: str = GREY  # "#rrggbb"
    opacity: float = 1.0
    label: str = ""

    def to_json(self) -> dict[str, Any]:
        """The stored form: only the geometry of its kind, opacity only when see-through."""
        geometry: dict[str, Any] = (
            {"w": self.w, "h": self.h, "angle": self.angle} if self.kind == "rect" else {"r": self.r}
        )
        return {
            "kind": self.kind,
            "x": self.x,
            "y": self.y,
            **geometry,
            "fill": self.fill,
            "label": self.label,
            **({"opacity": self.opacity} if self.opacity != 1.0 else {}),
        }

    @classmethod
    def from_json(cls, raw: Any) -> WorldShape | None:
        """A stored shape, checked and clamped, or None when its kind or geometry is unusable."""
        if not isinstance(raw, dict) or raw.get("kind") not in ("rect", "circle"):
            return None
        keys = ("x", "y", "w", "h") if raw["kind"] == "rect" else ("x", "y", "r")
        if not all(_number(raw.get(k)) and math.isfinite(raw[k]) for k in keys):
            return None
        given_fill, given_label = raw.get("fill"), raw.get("label")
        fill = given_fill if isinstance(given_fill, str) and _FILL.match(given_fill) else GREY
        opacity = float(raw["opacity"]) if _number(raw.get("opacity")) else 1.0
        angle = float(raw["angle"]) if _number(raw.get("angle")) and math.isfinite(raw["angle"]) else 0.0
        label = given_label if isinstance(given_label, str) else ""
        sizes = {k: abs(float(raw[k])) for k in keys[2:]}
        return cls(
            raw["kind"],
            float(raw["x"]),
            float(raw["y"]),
            angle=angle,
            fill=fill,
            opacity=min(1.0, max(0.0, opacity)),
            label=label[:MAX_LABEL],
            **sizes,
        )


@dataclass(frozen=True)
class WorldMap:
    """A backend's top-down drawing of an episode's world: its bounds on the ground plane
    (``x0, y0`` to ``x1, y1``, in the units of its poses), which way is up, and its footprints."""

    x0: float
    y0: float
    x1: float
    y1: float
    y_up: bool
    shapes: tuple[WorldShape, ...]

    def to_json(self) -> dict[str, Any]:
        """The stored form (``Backend.world_map`` as transcripts hold it)."""
        return {
            "bounds": [self.x0, self.y0, self.x1, self.y1],
            "y_up": self.y_up,
            "shapes": [s.to_json() for s in self.shapes],
        }

    @classmethod
    def from_json(cls, data: Any) -> WorldMap | None:
        """A stored map, or None when absent or not usable (bounds that are not four finite
        numbers enclosing an area); unusable shapes are left out."""
        if not isinstance(data, dict):
            return None
        bounds = data.get("bounds")
        if not (isinstance(bounds, list) and len(bounds) == 4 and all(_number(v) for v in bounds)):
            return None
        x0, y0, x1, y1 = (float(v) for v in bounds)
        if not (x1 > x0 and y1 > y0 and all(math.isfinite(v) for v in (x0, y0, x1, y1))):
            return None
        shapes: list[WorldShape] = []
        for raw in data.get("shapes") or []:
            if len(shapes) >= MAX_SHAPES:
                break
            shape = WorldShape.from_json(raw)
            if shape is not None:
                shapes.append(shape)
        return cls(x0, y0, x1, y1, bool(data.get("y_up")), tuple(shapes))


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
