"""Shadows on the arena floor, cast by the fence, the items and the agent under Animal-AI's sun.

Why computed here rather than by pybullet: TinyRenderer's own shadow pass (``shadow=1``) costs about
46 ms per frame whatever the scene, more than the whole frame budget, and the floor is not drawn by
TinyRenderer anyway (``room.py``). The sun is a directional light (``look.LIGHT_TOWARDS``), so the
shadow of a convex piece on the floor is the convex hull of its corners slid along the light onto
y = 0; a sphere's is the set of floor points whose ray to the sun passes within its radius.

The floor is a grid of ``CELLS_PER_UNIT`` cells per unit over Animal-AI's ground (-1..41 on x and z,
``AAI3Arena.prefab`` 'Ground'). Whatever does not move (the fence, static items, walls once settled)
is drawn once per episode and softened by a 3 x 3 box filter (Unity's shadows are soft,
``m_Shadows m_Type 2``); goals, movable blocks and the agent are added to a copy every frame.
"""

from __future__ import annotations

import numpy as np

from agentkit.envs.arena import look

CELLS_PER_UNIT = 16
GROUND_MIN, GROUND_MAX = -1.0, 41.0
_N = int(round((GROUND_MAX - GROUND_MIN) * CELLS_PER_UNIT))
_L = look.LIGHT_TOWARDS


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull (counter-clockwise) of 2D points, by Andrew's monotone chain."""
    pts = sorted(set(map(tuple, np.round(points, 6).tolist())))
    if len(pts) < 3:
        return np.asarray(pts, dtype=np.float64)

    def cross(o, a, b) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    for q in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], q) <= 0:
            lower.pop()
        lower.append(q)
    upper: list = []
    for q in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], q) <= 0:
            upper.pop()
        upper.append(q)
    return np.asarray(lower[:-1] + upper[:-1], dtype=np.float64)


def _cells(x0: float, x1: float, z0: float, z1: float) -> tuple[slice, slice, np.ndarray, np.ndarray] | None:
    """Grid rows (z) and columns (x) covering [x0, x1] x [z0, z1], and their cell centres."""
    c0 = max(int(np.floor((x0 - GROUND_MIN) * CELLS_PER_UNIT)), 0)
    c1 = min(int(np.ceil((x1 - GROUND_MIN) * CELLS_PER_UNIT)), _N)
    r0 = max(int(np.floor((z0 - GROUND_MIN) * CELLS_PER_UNIT)), 0)
    r1 = min(int(np.ceil((z1 - GROUND_MIN) * CELLS_PER_UNIT)), _N)
    if c0 >= c1 or r0 >= r1:
        return None
    xs = GROUND_MIN + (np.arange(c0, c1) + 0.5) / CELLS_PER_UNIT
    zs = GROUND_MIN + (np.arange(r0, r1) + 0.5) / CELLS_PER_UNIT
    return slice(r0, r1), slice(c0, c1), xs, zs


def cast_convex(grid: np.ndarray, corners: np.ndarray) -> None:
    """Darken the floor under a convex piece given by its corners (k x 3, arena x, y up, z)."""
    corners = np.asarray(corners, dtype=np.float64)
    heights = np.maximum(corners[:, 1], 0.0)
    flat = np.stack(
        [corners[:, 0] - _L[0] * heights / _L[1], corners[:, 2] - _L[2] * heights / _L[1]], axis=1
    )
    hull = _hull(flat)
    if len(hull) < 3:
        return
    cells = _cells(hull[:, 0].min(), hull[:, 0].max(), hull[:, 1].min(), hull[:, 1].max())
    if cells is None:
        return
    rows, cols, xs, zs = cells
    inside = np.ones((len(zs), len(xs)), dtype=bool)
    for (ax, az), (bx, bz) in zip(hull, np.roll(hull, -1, axis=0)):
        inside &= ((bx - ax) * (zs[:, None] - az) - (bz - az) * (xs[None, :] - ax)) >= 0
    region = grid[rows, cols]  # a view: slices, not an index array
    region[inside] = 0.0


def cast_sphere(grid: np.ndarray, centre: tuple[float, float, float], radius: float) -> None:
    """Darken the floor under a sphere (centre in arena x, y up, z)."""
    cx, cy, cz = centre
    h = max(cy, 0.0)
    sx, sz = cx - _L[0] * h / _L[1], cz - _L[2] * h / _L[1]  # the centre's shadow
    reach = radius / _L[1]
    cells = _cells(sx - reach, sx + reach, sz - reach, sz + reach)
    if cells is None:
        return
    rows, cols, xs, zs = cells
    vx, vy, vz = cx - xs[None, :], cy, cz - zs[:, None]
    along = vx * _L[0] + vy * _L[1] + vz * _L[2]
    inside = (vx * vx + vy * vy + vz * vz - along * along < radius * radius) & (along > 0)
    region = grid[rows, cols]
    region[inside] = 0.0


def fence_pieces() -> list[np.ndarray]:
    """The fence as convex pieces (look.py): each side's plank panel and its posts."""
    pieces = []
    lo, hi = look.FENCE_PANEL_DEPTH, look.FENCE_PANEL_DEPTH + 0.25
    size = 40.0
    for side in range(4):
        boxes = [(lo, hi, GROUND_MIN, GROUND_MAX, look.FENCE_PANEL_TOP)]
        boxes += [(0.0, 1.0, a, b, look.FENCE_POST_Y[1]) for a, b in look.FENCE_POSTS]
        for d0, d1, s0, s1, top in boxes:
            if side == 0:  # x = 0 side: beyond means x < 0
                x0, x1, z0, z1 = -d1, -d0, s0, s1
            elif side == 1:
                x0, x1, z0, z1 = size + d0, size + d1, s0, s1
            elif side == 2:
                x0, x1, z0, z1 = s0, s1, -d1, -d0
            else:
                x0, x1, z0, z1 = s0, s1, size + d0, size + d1
            pieces.append(np.array([[x, y, z] for x in (x0, x1) for y in (0.0, top) for z in (z0, z1)]))
    return pieces


def empty_grid() -> np.ndarray:
    return np.ones((_N, _N), dtype=np.float32)


def soften(grid: np.ndarray) -> np.ndarray:
    """A 3 x 3 box filter (edges keep their value)."""
    padded = np.pad(grid, 1, mode="edge")
    out = np.zeros_like(grid)
    for dr in range(3):
        for dc in range(3):
            out += padded[dr : dr + _N, dc : dc + _N]
    return out / 9.0


def lookup(grid: np.ndarray, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The lit fraction (1 lit, 0 in shadow) at floor points (x, z), interpolated between cells."""
    gx = np.clip((x - GROUND_MIN) * CELLS_PER_UNIT - 0.5, 0, _N - 1.001).astype(np.float32)
    gz = np.clip((z - GROUND_MIN) * CELLS_PER_UNIT - 0.5, 0, _N - 1.001).astype(np.float32)
    c, r = gx.astype(np.int32), gz.astype(np.int32)
    fx, fz = gx - c, gz - r
    flat = grid.reshape(-1)
    i = r * _N + c
    top = np.take(flat, i) * (1 - fx) + np.take(flat, i + 1) * fx
    bottom = np.take(flat, i + _N) * (1 - fx) + np.take(flat, i + _N + 1) * fx
    return top * (1 - fz) + bottom * fz
