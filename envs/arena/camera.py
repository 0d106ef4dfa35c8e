"""The agent's first-person camera: pybullet's TinyRenderer for items, the room drawn analytically.

Why split the picture: TinyRenderer (headless, CPU) pays for every pixel a triangle covers, and the
floor and the four fence walls cover nearly every pixel of every frame; drawn as geometry they
cost more than everything else together (~60 ms per 512 px frame). They are simple planes, so each
pixel's ray is intersected with them in numpy instead (a few ms), and TinyRenderer draws only the
items. The two are merged by depth, so an item reaching outside the fence is still hidden by it.

TinyRenderer still costs about 0.25 microseconds per pixel an item covers, for every layer drawn,
so an arena whose platforms or walls fill the view (a wall-sized floor and ceiling, a corridor)
took 60-90 ms per 512 px frame. Items are therefore drawn at no more than ``ITEM_MAX_SIDE`` (256)
pixels and each of their pixels is repeated over 2 x 2 frame pixels; the room keeps the full
resolution, so only item edges are coarser, and the worst frames cost about a third.

Camera: at the centre of the agent's sphere (0.5 above its base), level, looking along its heading,
vertical field of view 60 degrees (Unity's default camera, which Animal-AI uses), square frames of
``size`` pixels. The agent's own body is not drawn. Transparent items are drawn as their edges,
since TinyRenderer has no translucency. Frames in a blackout are black and are not rendered at all.
"""

from __future__ import annotations

import math

import numpy as np

from agentkit.envs.arena.bullet import p
from agentkit.envs.arena.layout import ARENA_SIZE

FOV_DEGREES = 60.0
NEAR, FAR = 0.05, 100.0
FENCE_HEIGHT = 5.0  # drawn height of the fence (its collider is taller, so nothing escapes)
EYE_HEIGHT = 0.5  # above the agent's base: the centre of its sphere

FLOOR_COLOR = np.array([196, 184, 160], dtype=np.float32)
FENCE_COLOR = np.array([120, 112, 104], dtype=np.float32)
SKY_COLOR = np.array([172, 202, 228], dtype=np.float32)
# One light for items and room alike, in arena axes (x, y up, z); pybullet gets it as (x, z, y).
LIGHT = np.array([0.4, 1.0, -0.5]) / np.linalg.norm([0.4, 1.0, -0.5])
AMBIENT, DIFFUSE = 0.55, 0.45
FLOOR_FADE = 0.3  # the floor darkens by up to this fraction with distance (a depth cue)
ITEM_MAX_SIDE = 256  # items are drawn at most this many pixels square (see the module docstring)


def _shade(normal: tuple[float, float, float]) -> float:
    return AMBIENT + DIFFUSE * max(0.0, float(np.dot(normal, LIGHT)))


class Camera:
    """Renders first-person frames of one pybullet client at a fixed size."""

    def __init__(self, client: int, size: int = 512) -> None:
        if size < 16:
            raise ValueError(f"render_size must be at least 16 pixels, got {size}")
        self.client = client
        self.size = size
        self._projection = p.computeProjectionMatrixFOV(FOV_DEGREES, 1.0, NEAR, FAR)
        half = math.tan(math.radians(FOV_DEGREES) / 2)
        centres = (np.arange(size, dtype=np.float64) + 0.5) / size * 2 - 1
        self._u = centres * half  # per column: rightwards offset of the ray at unit forward distance
        self._v = -centres * half  # per row: upwards offset (row 0 is the top)
        floor_light = _shade((0.0, 1.0, 0.0))
        self._floor = FLOOR_COLOR * floor_light
        # Fence sides by the direction they face: x = 0 faces +x, x = 40 faces -x, likewise for z.
        self._fence = {
            key: FENCE_COLOR * _shade(normal)
            for key, normal in {"x0": (1, 0, 0), "x1": (-1, 0, 0), "z0": (0, 0, 1), "z1": (0, 0, -1)}.items()
        }
        self._light_bullet = [float(LIGHT[0]), float(LIGHT[2]), float(LIGHT[1])]
        self._sky = SKY_COLOR.astype(np.uint8)
        self._rows = np.arange(size)[:, None]
        self._floor_cache: dict[float, np.ndarray] = {}
        # Items are rendered at most ITEM_MAX_SIDE pixels square and scaled up by a whole factor.
        self._item_scale = max(1, math.ceil(size / ITEM_MAX_SIDE))
        self._item_side = math.ceil(size / self._item_scale)

    def black(self) -> np.ndarray:
        return np.zeros((self.size, self.size, 3), dtype=np.uint8)

    def render(self, eye: tuple[float, float, float], heading_deg: float) -> np.ndarray:
        """An HxWx3 uint8 frame from ``eye`` (pybullet coordinates) looking along ``heading_deg``."""
        n = self.size
        fx, fz = math.sin(math.radians(heading_deg)), math.cos(math.radians(heading_deg))
        ex, ez, ey = eye  # pybullet (x, y, z) = arena (x, z, y)
        view = p.computeViewMatrix(eye, (ex + fx, ez + fz, ey), (0.0, 0.0, 1.0))
        m, k = self._item_side, self._item_scale
        _, _, rgba, depth, _ = p.getCameraImage(
            m, m, view, self._projection, renderer=p.ER_TINY_RENDERER, flags=p.ER_NO_SEGMENTATION_MASK,
            lightDirection=self._light_bullet, lightAmbientCoeff=AMBIENT, lightDiffuseCoeff=DIFFUSE,
            lightSpecularCoeff=0.0, shadow=0, physicsClientId=self.client,
        )
        rgb = np.asarray(rgba, dtype=np.uint8).reshape(m, m, 4)[:, :, :3]
        depth = np.asarray(depth, dtype=np.float32).reshape(m, m)
        if k > 1:  # each item pixel covers k x k frame pixels
            rgb = rgb.repeat(k, axis=0).repeat(k, axis=1)[:n, :n]
            depth = depth.repeat(k, axis=0).repeat(k, axis=1)[:n, :n]
        frame, room_depth = self._room(ex, ey, ez, fx, fz)
        # Items in front of the room (depth-buffer values grow with distance, 1.0 = nothing drawn).
        np.copyto(frame, rgb, where=(depth < room_depth)[:, :, None])
        return frame

    def _room(self, ex: float, ey: float, ez: float, fx: float, fz: float) -> tuple[np.ndarray, np.ndarray]:
        """Floor, fence and sky for every pixel, and their depth-buffer value (for merging with items).

        Every column's ray meets one fence wall at view distance ``t``; down the column the pixels
        are sky while the ray passes above the fence, then fence, then floor once the ray reaches
        the floor before the wall. So each column is three runs of rows, found with two thresholds.
        """
        n, u, v = self.size, self._u, self._v
        dx = fx + u * fz  # horizontal ray direction per column, forward component 1
        dz = fz - u * fx
        with np.errstate(divide="ignore", invalid="ignore"):
            tx = np.where(dx > 0, (ARENA_SIZE - ex) / dx, np.where(dx < 0, -ex / dx, np.inf))
            tz = np.where(dz > 0, (ARENA_SIZE - ez) / dz, np.where(dz < 0, -ez / dz, np.inf))
        t_wall = np.minimum(tx, tz)
        # v falls row by row: sky where v > (H - ey) / t, floor where v < -ey / t.
        sky_rows = np.searchsorted(-v, -(FENCE_HEIGHT - ey) / t_wall, side="left")
        floor_rows = np.searchsorted(-v, ey / t_wall, side="right")
        side = np.where(
            (tx < tz)[:, None],
            np.where((dx > 0)[:, None], self._fence["x1"], self._fence["x0"]),
            np.where((dz > 0)[:, None], self._fence["z1"], self._fence["z0"]),
        ).astype(np.uint8)  # (n, 3) per column
        rows = self._rows
        sky = rows < sky_rows[None, :]
        floor = rows >= floor_rows[None, :]
        frame = np.broadcast_to(side[None, :, :], (n, n, 3)).copy()
        np.copyto(frame, self._sky, where=sky[:, :, None])
        np.copyto(frame, self._floor_rows(ey)[:, None, :], where=floor[:, :, None])
        # Depth-buffer value of the room: 1 for the sky, the wall's or the floor's distance otherwise.
        wall_depth = self._to_depth(t_wall)[None, :]
        with np.errstate(divide="ignore"):
            floor_depth = self._to_depth(np.where(v < 0, -ey / v, np.inf))[:, None]
        depth = np.where(floor, floor_depth, np.where(sky, np.float32(1.0), wall_depth))
        return frame, depth

    def _floor_rows(self, ey: float) -> np.ndarray:
        """Floor colour per row: it darkens with distance, which depends only on the row."""
        key = round(ey, 3)
        cached = self._floor_cache.get(key)
        if cached is None:
            with np.errstate(divide="ignore"):
                distance = np.where(self._v < 0, -ey / self._v, np.inf)
            fade = 1.0 - FLOOR_FADE * np.minimum(distance / (ARENA_SIZE * 1.5), 1.0)
            cached = (self._floor[None, :] * fade[:, None]).astype(np.uint8)
            if len(self._floor_cache) > 64:
                self._floor_cache.clear()
            self._floor_cache[key] = cached
        return cached

    @staticmethod
    def _to_depth(distance: np.ndarray) -> np.ndarray:
        """View-axis distance to pybullet's depth-buffer value (non-linear, 1 at the far plane)."""
        d = np.clip(distance, NEAR, FAR)
        return ((FAR - FAR * NEAR / d) / (FAR - NEAR)).astype(np.float32)
