"""Where the three fingertips can reach, worked out from the robot's kinematics, for prompts and errors.

Why: a model asked to move blocks needs to know the reachable region before it plans, and an
"unreachable" error is only useful if it says what is reachable. The region is the set of points
every one of the three fingertips can reach (a grasped block needs all three around it): for a
few heights, the largest distance from the arena's vertical axis that is reachable in every
direction, and the highest point reachable above the centre. ``compute_workspace`` measures it
by inverse kinematics on the robot's model (CausalWorld's TriFinger Edu); ``WORKSPACE`` holds its result so that importing
the vocabulary does not load the robot (``tests/test_trifinger_vocabulary.py`` recomputes it and
checks the two agree).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agentkit.envs.trifinger.kinematics import TipKinematics

#: Heights (m) at which the reachable radius is stated: a fingertip on the floor (its 1 cm radius),
#: a 6.5 cm cube's centre on the floor, one cube up, two carrying heights, and picking's highest goals.
HEIGHTS = (0.01, 0.0325, 0.065, 0.1, 0.15, 0.2, 0.25)
DIRECTIONS = 24  # azimuths tried around the axis
TOLERANCE = 0.002  # metres: a tip this close to its target reaches it


@dataclass(frozen=True)
class Workspace:
    """``radii[i]``: the distance (m) from the centre axis reachable in every direction at ``heights[i]``;
    ``top``: the highest reachable point (m) above the arena centre."""

    heights: tuple[float, ...]
    radii: tuple[float, ...]
    top: float

    def radius_at(self, z: float) -> float:
        """The reachable radius at height ``z`` (linear between the stated heights, 0 above ``top``)."""
        if z > self.top:
            return 0.0
        heights = [*self.heights, self.top]
        radii = [*self.radii, 0.0]
        return float(np.interp(z, heights, radii))

    def contains(self, point: tuple[float, float, float], margin: float = 0.0) -> bool:
        x, y, z = point
        return z >= 0.0 and math.hypot(x, y) <= self.radius_at(z) + margin

    def describe(self) -> str:
        """One sentence for prompts and error messages."""
        parts = [f"{r:.3f} m at z = {h:g}" for h, r in zip(self.heights, self.radii)]
        return (
            f"all three fingertips reach points within {', '.join(parts)} of the arena's centre axis, "
            f"and up to z = {self.top:.2f} above the centre (one fingertip alone reaches farther on its own side)"
        )


def _reaches(kin: TipKinematics, point: tuple[float, float, float], guess: np.ndarray) -> np.ndarray | None:
    result = kin.solve(np.array([point] * 3), guess, iterations=60)
    return result.joints if result.worst < TOLERANCE else None


def compute_workspace(kin: TipKinematics, rest: np.ndarray) -> Workspace:
    """Measure the shared reachable region by bisection along rays from the centre axis."""
    radii = []
    for z in HEIGHTS:
        smallest = math.inf
        for k in range(DIRECTIONS):
            angle = 2 * math.pi * k / DIRECTIONS
            low, high = 0.0, 0.3
            if _reaches(kin, (0.0, 0.0, z), rest) is None:
                smallest = 0.0
                break
            for _ in range(12):
                mid = (low + high) / 2
                if _reaches(kin, (mid * math.cos(angle), mid * math.sin(angle), z), rest) is not None:
                    low = mid
                else:
                    high = mid
            smallest = min(smallest, low)
        radii.append(round(smallest, 3))
    low, high = 0.0, 0.4
    for _ in range(14):
        mid = (low + high) / 2
        if _reaches(kin, (0.0, 0.0, mid), rest) is not None:
            low = mid
        else:
            high = mid
    return Workspace(HEIGHTS, tuple(radii), round(low, 3))


#: ``compute_workspace`` on CausalWorld's TriFinger Edu (its URDF, its action bounds), from the rest
#: pose. The fingers hang from 0.33 m, so near the floor each tip reaches little more than the spot
#: below its own base: together they meet on the floor only within 2 cm of the centre.
WORKSPACE = Workspace(HEIGHTS, (0.022, 0.092, 0.147, 0.187, 0.227, 0.096, 0.056), 0.27)
