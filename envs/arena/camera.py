"""The agent's first-person camera, drawn to look like Animal-AI v3.1.3's.

Camera (``look.py``, from ``AAI3Agent.prefab`` 'AgentCamMid'): at the centre of the agent's sphere,
level, looking along its heading, a vertical field of view of 100 degrees on a square image, near
plane 0.01, far plane 70 (nothing further is drawn: the sky shows). The agent's own body is not
drawn. Frames in a blackout are black and are not rendered at all.

How a frame is made (headless, CPU only):

1. Items: pybullet's TinyRenderer draws the item bodies, all white and lit by the sun alone, so a
   pixel's red value is n . l; with the segmentation mask naming each pixel's body, numpy paints the
   item's material (``item_shading.py``): walls' colours with joints, emissive goals, grey blocks.
   TinyRenderer costs about 0.25 microseconds per pixel a triangle covers, so items are drawn at no
   more than ``ITEM_MAX_SIDE`` pixels and each of their pixels covers 2 x 2 frame pixels.
2. Room: floor, fence and sky by ray casting in numpy (``room.py``) at full resolution, with the
   shadows of the fence, the items and the agent on the floor (``shadows.py``). Merged with the
   items by depth.
3. Glass and zones: TinyRenderer has no translucency, so the translucent things (WallTransparent,
   CylinderTunnelTransparent, DeathZone, HotZone) are copied into a second pybullet client of the
   camera's own, drawn there, and blended over the frame where they are in front.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from agentkit.envs.arena import look, shadows
from agentkit.envs.arena.bodies import ItemBody
from agentkit.envs.arena.item_meshes import convex_pieces
from agentkit.envs.arena.item_shading import GlassLayer, ItemShading
from agentkit.envs.arena.room import Room
from agentkit.envs.pybullet_support.bullet import p

# Kept for callers that read the camera's geometry from here.
FOV_DEGREES, NEAR, FAR, EYE_HEIGHT = look.FOV_DEGREES, look.NEAR, look.FAR, look.EYE_HEIGHT
ITEM_MAX_SIDE = 256  # items are drawn at most this many pixels square (see the module docstring)


def _to_bullet(v: np.ndarray) -> list[float]:
    return [float(v[0]), float(v[2]), float(v[1])]


class Camera:
    """Renders first-person frames of one pybullet client at a fixed size.

    Call ``set_items`` after each arena is built, so the camera knows the items' materials, glass and
    shadows; without it every item is drawn plain white.
    """

    def __init__(self, client: int, size: int = 512) -> None:
        if size < 16:
            raise ValueError(f"render_size must be at least 16 pixels, got {size}")
        self.client = client
        self.size = size
        self._room = Room()
        self._item_scale = max(1, math.ceil(size / ITEM_MAX_SIDE))
        self._item_side = math.ceil(size / self._item_scale)
        self._projection = p.computeProjectionMatrixFOV(look.FOV_DEGREES, 1.0, look.NEAR, look.FAR)
        self._shading = ItemShading()
        self._glass = GlassLayer()
        self._static_shadows = shadows.empty_grid()
        self._movers: list[ItemBody] = []
        self._mover_shadows: tuple[tuple, np.ndarray] | None = None  # (the movers' poses, their grid)
        self._bodies: list[ItemBody] = []
        self._source: Sequence[ItemBody] = ()
        self.set_items([])

    # -- the scene ------------------------------------------------------------------------------

    def set_items(self, bodies: Sequence[ItemBody]) -> None:
        """Take the items of a newly built arena: their materials, glass copies and static shadows.
        The camera keeps watching ``bodies``: items appended to it later (spawned goals) are taken
        in at the next frame."""
        self._source = bodies
        self._bodies = list(bodies)
        self._shading.set_items(self.client, self._bodies)
        self._glass.set_items(self.client, self._bodies)
        grid = shadows.empty_grid()
        for piece in shadows.fence_pieces():
            shadows.cast_convex(grid, piece)
        self._movers = []
        for b in self._bodies:
            if b.item.type.transparent or b.item.type.kind == "zone":
                continue
            if b.dynamic:  # goals, blocks, and walls and ramps (dynamic as in Unity: they can fall)
                self._movers.append(b)
            else:
                self._cast(grid, b)
        self._static_shadows = shadows.soften(grid)
        self._mover_shadows = None

    def _cast(self, grid: np.ndarray, body: ItemBody) -> bool:
        """Add one body's shadow at its current pose; False if it is gone (a goal that was eaten)."""
        try:
            position, orientation = p.getBasePositionAndOrientation(body.body, physicsClientId=self.client)
        except p.error:
            return False
        origin = np.asarray(position)
        if body.item.type.shape == "sphere":
            shadows.cast_sphere(grid, (origin[0], origin[2], origin[1]), body.item.size[0] / 2)
            return True
        rotation = np.asarray(p.getMatrixFromQuaternion(orientation)).reshape(3, 3)
        for piece in convex_pieces(body.item):
            world = piece @ rotation.T + origin
            shadows.cast_convex(grid, world[:, [0, 2, 1]])
        return True

    def _pose(self, body: ItemBody) -> tuple | None:
        try:
            return p.getBasePositionAndOrientation(body.body, physicsClientId=self.client)
        except p.error:
            return None

    def _shadow_grid(self, agent: np.ndarray | None) -> np.ndarray:
        # The movers' shadows are kept while none of them has moved (goals and blocks at rest, a frame
        # turned on the spot): the same casts in the same order, so the same grid.
        # Poses to the thousandth: heavy bodies resting under gravity stir by less than that each update.
        poses = tuple(_rounded(self._pose(b)) for b in self._movers)
        if self._mover_shadows is None or self._mover_shadows[0] != poses:
            cast = self._static_shadows.copy()
            for b in self._movers:
                self._cast(cast, b)
            self._mover_shadows = (poses, cast)
        grid = self._mover_shadows[1].copy()
        if agent is not None:  # the agent's own body (its MeshRenderer casts shadows)
            shadows.cast_sphere(grid, (agent[0], agent[1], agent[2]), look.EYE_HEIGHT)
        return grid

    # -- frames ---------------------------------------------------------------------------------

    def black(self) -> np.ndarray:
        return np.zeros((self.size, self.size, 3), dtype=np.uint8)

    def render(self, eye: tuple[float, float, float], heading_deg: float) -> np.ndarray:
        """An HxWx3 uint8 frame from ``eye`` (pybullet coordinates) looking level along ``heading_deg``."""
        ex, ey, ez = eye
        return self.render_view((ex, ez, ey), heading_deg, 0.0, agent=(ex, ez, ey))

    def render_view(
        self,
        eye: tuple[float, float, float],
        heading_deg: float,
        pitch_deg: float,
        agent: tuple[float, float, float] | None = None,
        fov_deg: float = look.FOV_DEGREES,
    ) -> np.ndarray:
        """A frame from ``eye`` (arena axes: x, y up, z), turned ``heading_deg`` clockwise from +z
        and ``pitch_deg`` down from level (the agent's camera is always level; pictures may tilt).
        ``agent``: the centre of the agent's sphere, for its shadow (None: no agent); ``fov_deg``:
        another vertical field of view, for pictures (e.g. Unity's editor camera, 60)."""
        if len(self._source) != len(self._bodies):
            self.set_items(self._source)
        n, k, m = self.size, self._item_scale, self._item_side
        projection = (
            self._projection
            if fov_deg == look.FOV_DEGREES
            else p.computeProjectionMatrixFOV(fov_deg, 1.0, look.NEAR, look.FAR)
        )
        eye_a = np.asarray(eye, dtype=np.float64)
        forward, right, up = _basis(heading_deg, pitch_deg)
        view = p.computeViewMatrix(_to_bullet(eye_a), _to_bullet(eye_a + forward), _to_bullet(up))
        rays_m = _rays(m, forward, right, up, pitch_deg == 0.0, fov_deg)
        items, item_depth = self._shading.draw(self.client, view, projection, m, eye_a, rays_m)
        if k > 1:  # each item pixel covers k x k frame pixels
            items = items.repeat(k, axis=0).repeat(k, axis=1)[:n, :n]
            item_depth = item_depth.repeat(k, axis=0).repeat(k, axis=1)[:n, :n]
        rays_n = _rays(n, forward, right, up, pitch_deg == 0.0, fov_deg)
        pixel = 2.0 * math.tan(math.radians(fov_deg) / 2) / n
        frame, depth = self._room.draw(
            tuple(eye_a),
            *rays_n,
            pixel,
            self._shadow_grid(None if agent is None else np.asarray(agent)),
            cover=item_depth,
        )
        nearer = item_depth < depth
        np.copyto(frame, items, where=nearer)
        np.copyto(depth, item_depth, where=nearer)
        rgb = _unpack(frame)
        if self._glass.active:
            glass = self._glass.draw(view, projection, m, eye_a, rays_m)
            if glass is not None:
                _blend(rgb, depth, *glass, k)
            fog = self._glass.fog(eye_a)
            if fog is not None:
                tint, alpha = fog
                rgb[...] = np.clip(alpha * tint + (1 - alpha) * rgb + 0.5, 0, 255).astype(np.uint8)
        return rgb

    def bodies_in_view(self, eye: tuple[float, float, float], heading_deg: float, side: int = 32) -> set[int]:
        """The pybullet bodies some pixel of a small frame from ``eye`` (pybullet coordinates, as
        ``render`` takes it) shows, nearer ones hiding farther ones: what the agent could see now.
        Why: ``--observe events`` takes a frame when a goal comes into view; this asks the same
        renderer the frames come from, at ``side`` pixels, rather than guessing from angles."""
        ex, ey, ez = eye
        eye_a = np.asarray((ex, ez, ey), dtype=np.float64)
        forward, _, up = _basis(heading_deg, 0.0)
        view = p.computeViewMatrix(_to_bullet(eye_a), _to_bullet(eye_a + forward), _to_bullet(up))
        seg = p.getCameraImage(
            side,
            side,
            view,
            self._projection,
            renderer=p.ER_TINY_RENDERER,
            shadow=0,
            physicsClientId=self.client,
        )[4]
        ids = np.unique(np.asarray(seg, dtype=np.int64))
        return {int(i) & ((1 << 24) - 1) for i in ids if i >= 0}

    def close(self) -> None:
        self._glass.close()


def _blend(
    rgb: np.ndarray, depth: np.ndarray, colour: np.ndarray, alpha: np.ndarray, glass_depth: np.ndarray, k: int
) -> None:
    """Blend the glass layer (item resolution: each of its pixels covers k x k frame pixels; colour as
    (3, m, m) planes) over the frame where it is in front of what the frame shows. Dense over the box
    of rows and columns that hold glass: a pane near the eye covers most of the frame (Testbed
    03-11-01), and per-pixel index lists cost several times more than whole-array arithmetic there."""
    n = rgb.shape[0]
    seen = np.isfinite(glass_depth)
    rows, cols = np.flatnonzero(seen.any(axis=1)), np.flatnonzero(seen.any(axis=0))
    if rows.size == 0:
        return
    r0, c0 = int(rows[0]), int(cols[0])
    r1, c1 = int(rows[-1]) + 1, int(cols[-1]) + 1
    f0, f1, g0, g1 = r0 * k, min(r1 * k, n), c0 * k, min(c1 * k, n)

    def fine(a: np.ndarray) -> np.ndarray:  # the box's coarse pixels, each repeated k x k
        return a[r0:r1, c0:c1].repeat(k, axis=0).repeat(k, axis=1)[: f1 - f0, : g1 - g0]

    front = fine(glass_depth) < depth[f0:f1, g0:g1]
    a = np.where(front, fine(alpha), np.float32(0.0))  # 0 leaves a pixel as it is
    keep = 1.0 - a
    for channel in range(3):  # one plane at a time: numpy is several times slower on a last axis of 3
        behind = rgb[f0:f1, g0:g1, channel].astype(np.float32)
        mixed = a * fine(colour[channel]) + keep * behind
        rgb[f0:f1, g0:g1, channel] = np.clip(mixed + 0.5, 0, 255).astype(np.uint8)


def _unpack(frame: np.ndarray) -> np.ndarray:
    """Packed RGBA (n, n) uint32 as an (n, n, 3) uint8 image: one strided copy per channel, which
    numpy does about seven times faster than one copy of the (n, n, 3) slice (0.3 against 1.8 ms at 512)."""
    n, w = frame.shape
    packed = frame.view(np.uint8).reshape(n * w, 4)
    rgb = np.empty((n * w, 3), dtype=np.uint8)
    for channel in range(3):
        rgb[:, channel] = packed[:, channel]
    return rgb.reshape(n, w, 3)


def _basis(heading_deg: float, pitch_deg: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Forward, right and up unit vectors (arena axes) of a camera turned and tilted down."""
    h, t = math.radians(heading_deg), math.radians(pitch_deg)
    forward = np.array([math.sin(h) * math.cos(t), -math.sin(t), math.cos(h) * math.cos(t)])
    right = np.array([math.cos(h), 0.0, -math.sin(h)])
    up = np.array([math.sin(h) * math.sin(t), math.cos(t), math.cos(h) * math.sin(t)])
    return forward, right, up


def _rays(
    n: int, forward: np.ndarray, right: np.ndarray, up: np.ndarray, level: bool, fov_deg: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-pixel ray directions (forward component 1) as float32 arrays dx, dy, dz. For a level
    camera they are a row of columns and a column of rows (numpy broadcasts them to n x n)."""
    half = math.tan(math.radians(fov_deg) / 2)
    centres = ((np.arange(n) + 0.5) / n * 2 - 1) * half
    u = centres[None, :]  # rightwards, per column
    v = -centres[:, None]  # upwards, per row (row 0 is the top)
    if level:
        dx = (forward[0] + u * right[0]).astype(np.float32)
        dz = (forward[2] + u * right[2]).astype(np.float32)
        dy = np.broadcast_to(v, (n, 1)).astype(np.float32)
        return dx, dy, dz
    d = [(forward[i] + u * right[i] + v * up[i]).astype(np.float32) for i in range(3)]
    return d[0], d[1], d[2]


def _rounded(pose: tuple | None) -> tuple | None:
    """A body's pose with every number to three decimals (None for a body that is gone)."""
    if pose is None:
        return None
    position, orientation = pose
    return tuple(round(v, 3) for v in position), tuple(round(v, 3) for v in orientation)
