"""Item shapes that are not one box or sphere: the tunnel's arch, the ramp's wedge, and each item's
convex pieces (for shadows), in the pybullet body frames ``bodies.py`` builds.

Why here: the same geometry is needed three times, for pybullet's collision and visual shapes
(``bodies.py``), for the camera's see-through copies of glass items and zones (``camera.py``) and for
the shadows they cast (``shadows.py``); one module keeps the three in agreement.

Frames (pybullet axes: x, y = arena z, z up): spheres and box-like items have their origin at the
middle of their bounding box; ramps and tunnels at the middle of their base.

The tunnel: Animal-AI's CylinderTunnel mesh (``Materials/Prefabs/Cylinder.blend``) is a tube of
radius 1.04 and length 2 along its local z, made 0.222 thick inwards by a Solidify modifier, scaled
by the size times ``ratioSize`` (0.4808, 0.4808, 0.5), so its outer radii are size.x / 2 across and
size.y / 2 up. ``Grounded.cs`` puts the tube's axis on the floor (its ``AdjustY`` returns 0), so
what stands in the arena is a half tube: an arch size.x wide and size.y / 2 high, open at both ends.
"""

from __future__ import annotations

import math

import numpy as np

from agentkit.envs.animalai_common.geometry import local_parts
from agentkit.envs.animalai_common.layout import PlacedItem
from agentkit.envs.arena import look


def wedge_mesh(sx: float, sy: float, sz: float) -> tuple[list[list[float]], list[int]]:
    """A ramp, origin at the centre of its base, high edge at local -z (pybullet local -y)."""
    hx, hz = sx / 2, sz / 2
    vertices = [[-hx, -hz, 0], [hx, -hz, 0], [hx, hz, 0], [-hx, hz, 0], [-hx, -hz, sy], [hx, -hz, sy]]
    indices = [
        0,
        2,
        1,
        0,
        3,
        2,  # bottom
        0,
        1,
        5,
        0,
        5,
        4,  # high vertical face
        3,
        4,
        5,
        3,
        5,
        2,  # slope
        0,
        4,
        3,
        1,
        2,
        5,
    ]  # sides
    return vertices, indices


def _arch_points(sx: float, sy: float) -> tuple[np.ndarray, np.ndarray]:
    """Outer and inner half-circle points (x, z up) of a tunnel, from +x over the top to -x."""
    angles = np.linspace(0.0, math.pi, look.TUNNEL_SEGMENTS + 1)
    outer = np.stack([sx / 2 * np.cos(angles), sy / 2 * np.sin(angles)], axis=1)
    return outer, outer * look.TUNNEL_INNER


def tunnel_mesh(sx: float, sy: float, sz: float) -> tuple[list[list[float]], list[int]]:
    """The half tube as a closed triangle mesh (outer and inner faces, end rims, foot strips),
    wound counter-clockwise seen from outside."""
    outer, inner = _arch_points(sx, sy)
    k = len(outer)
    hz = sz / 2
    vertices: list[list[float]] = []
    for ring, end in ((outer, -hz), (outer, hz), (inner, -hz), (inner, hz)):
        vertices += [[float(x), end, float(z)] for x, z in ring]
    o0, o1, i0, i1 = 0, k, 2 * k, 3 * k  # first index of each ring
    indices: list[int] = []
    for j in range(k - 1):
        a, b = j, j + 1
        indices += [o0 + a, o1 + a, o1 + b, o0 + a, o1 + b, o0 + b]  # outer face, normal away from the axis
        indices += [i0 + a, i0 + b, i1 + b, i0 + a, i1 + b, i1 + a]  # inner face, normal towards the axis
        indices += [o0 + a, o0 + b, i0 + b, o0 + a, i0 + b, i0 + a]  # rim at -y
        indices += [o1 + a, i1 + a, i1 + b, o1 + a, i1 + b, o1 + b]  # rim at +y
    for end in (0, k - 1):  # the feet on the floor
        indices += [o0 + end, i0 + end, i1 + end, o0 + end, i1 + end, o1 + end]
        indices += [o0 + end, i1 + end, i0 + end, o0 + end, o1 + end, i1 + end]  # both windings
    return vertices, indices


def convex_pieces(item: PlacedItem) -> list[np.ndarray]:
    """The item as convex pieces: arrays of corner points (k x 3) in its pybullet body frame.
    Spheres are not included (``shadows.cast_sphere`` takes them whole)."""
    t = item.type
    sx, sy, sz = item.size
    if t.shape == "sphere":
        return []
    if t.shape == "ramp":
        return [np.asarray(wedge_mesh(sx, sy, sz)[0], dtype=np.float64)]
    if t.shape == "tunnel":
        outer, inner = _arch_points(sx, sy)
        pieces = []
        for j in range(len(outer) - 1):
            ring = np.concatenate([outer[j : j + 2], inner[j : j + 2]])
            pieces.append(np.array([[x, y, z] for x, z in ring for y in (-sz / 2, sz / 2)]))
        return pieces
    if t.shape == "flat":
        return []
    centre = sy / 2
    pieces = []
    for part in local_parts(t.shape, item.size):
        z0, z1 = part.y0 - centre, part.y1 - centre
        pieces.append(
            np.array(
                [
                    [part.ox + a * part.hx, part.oz + b * part.hz, z]
                    for a in (-1, 1)
                    for b in (-1, 1)
                    for z in (z0, z1)
                ]
            )
        )
    return pieces
