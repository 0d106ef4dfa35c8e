"""Footprints of arena items for the reference planner: oriented boxes with a vertical extent.

Why: the planner works on a 2.5-D height map of the arena, and everything it needs from an item is
"where is its footprint, how high is its top, where is its bottom" (plus, for a ramp, which way it
rises). Compound items (tunnels, U and L shapes) are split into the boxes they are made of, so the
map treats a tunnel as two side walls with free floor between them.

Conventions are Animal-AI's, as in the privileged state: x and z horizontal, y up; an item's
``position`` is the centre of its base; ``rotation_deg`` turns it clockwise seen from above, so a
local vector (a, b) on the (x, z) axes points to ``(a cos r + b sin r, -a sin r + b cos r)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from agentkit.envs.animalai_common.geometry import local_parts
from agentkit.envs.animalai_common.items import Shape


@dataclass(frozen=True)
class Part:
    """An oriented box: centre (cx, cz), half sizes (hx, hz) on its local axes, yaw, bottom and top.

    ``rise`` is 0 for a flat-topped block; for a ramp it is +1 when the top slopes up from ``bottom``
    at local -z to ``top`` at local +z, -1 the other way round.
    """

    cx: float
    cz: float
    hx: float
    hz: float
    yaw_deg: float
    bottom: float
    top: float
    rise: int = 0

    def local(self, x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World (x, z) into the part's local axes (inverse of the rotation above)."""
        r = math.radians(self.yaw_deg)
        c, s = math.cos(r), math.sin(r)
        dx, dz = x - self.cx, z - self.cz
        return dx * c - dz * s, dx * s + dz * c

    def distance(self, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Horizontal distance from each (x, z) to the footprint (0 inside)."""
        lx, lz = self.local(x, z)
        ex = np.maximum(np.abs(lx) - self.hx, 0.0)
        ez = np.maximum(np.abs(lz) - self.hz, 0.0)
        return np.hypot(ex, ez)

    def surface(self, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Height of the top at the footprint point nearest to each (x, z) (the slope for ramps)."""
        if self.rise == 0:
            return np.full(np.shape(x), self.top, dtype=float)
        _, lz = self.local(x, z)
        frac = (
            (np.clip(lz, -self.hz, self.hz) + self.hz) / (2 * self.hz)
            if self.hz > 0
            else np.ones(np.shape(lz))
        )
        if self.rise < 0:
            frac = 1.0 - frac
        return self.bottom + (self.top - self.bottom) * frac


def _world(cx: float, cz: float, yaw: float, a: float, b: float) -> tuple[float, float]:
    r = math.radians(yaw)
    return cx + a * math.cos(r) + b * math.sin(r), cz - a * math.sin(r) + b * math.cos(r)


def _sub(item_part: Part, a: float, b: float, hx: float, hz: float) -> Part:
    """A sub-box at local offset (a, b) of an item frame, same yaw and vertical extent."""
    cx, cz = _world(item_part.cx, item_part.cz, item_part.yaw_deg, a, b)
    return Part(cx, cz, hx, hz, item_part.yaw_deg, item_part.bottom, item_part.top)


# Wall thickness of hollow shapes (as a fraction of the item's size), matching the arena's build.
TUNNEL_WALL = 0.1  # a tunnel's side walls are this fraction of its width each
_HOLLOW: dict[str, Shape] = {"UObject": "u", "LObject": "l_left", "LObject2": "l_right"}

RAMP_RISE = -1  # the arena's ramps climb towards their local -z (Animal-AI's prefab; see geometry.py)


def item_parts(item: dict[str, Any]) -> list[Part]:
    """The boxes an item occupies (its whole box for simple items, side pieces for hollow ones)."""
    x, y, z = (float(v) for v in item["position"])
    sx, sy, sz = (float(v) for v in item["size"])
    whole = Part(x, z, sx / 2, sz / 2, float(item.get("rotation_deg", 0.0)), y, y + sy)
    name = item["name"]
    if name == "Ramp":
        return [Part(whole.cx, whole.cz, whole.hx, whole.hz, whole.yaw_deg, y, y + sy, RAMP_RISE)]
    if name.startswith("CylinderTunnel"):
        # The bore runs along local z; the side walls fill the outer bands of the width.
        t = max(sx * TUNNEL_WALL, 0.05)
        return [
            _sub(whole, -sx / 2 + t / 2, 0.0, t / 2, sz / 2),
            _sub(whole, sx / 2 - t / 2, 0.0, t / 2, sz / 2),
        ]
    if name in _HOLLOW:  # the arena's own build of U and L shapes (Animal-AI's prefabs)
        return [_sub(whole, b.ox, b.oz, b.hx, b.hz) for b in local_parts(_HOLLOW[name], (sx, sy, sz))]
    return [whole]
