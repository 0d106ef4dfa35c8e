"""Items' materials in the camera's frames: TinyRenderer draws the shapes, numpy paints Animal-AI's looks.

Why in two steps: TinyRenderer (pybullet's CPU renderer) has one light model, no emission, no
textures of ours and no translucency. So every item is drawn white, lit by the sun only, and with
the segmentation mask (which body each pixel shows) and the depth buffer (where the pixel is) each
pixel gets its material here (``look.py`` gives the sources):

* goals glow: their flat emission colour, whatever the light;
* walls, ramps, tunnels and other lit items: their colour x (ambient + sun x n.l), walls with the
  joints of their brick texture, ramps with pale patches;
* cardboard boxes and U/L blocks: pale grey faces with a lighter frame, mostly self-lit.

``GlassLayer`` holds see-through copies of glass items and zones in a pybullet client of its own
and returns their colour, opacity and depth for the camera to blend over the frame.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agentkit.envs.animalai_common.geometry import Box, local_parts, sphere_box_distance
from agentkit.envs.arena import look, textures
from agentkit.envs.arena.bodies import ItemBody, yaw_quaternion
from agentkit.envs.arena.item_meshes import tunnel_mesh
from agentkit.envs.arena.room import light_factor
from agentkit.envs.pybullet_support.bullet import connect, disconnect, p

# What paints a body's pixels.
PLAIN, LIT, GLOW, BLOCK = 0, 1, 2, 3
NO_TEXTURE, BRICKS, PATCHES, FRAME, SEAMS = 0, 1, 2, 3, 4
GLASS, DEATH_ZONE, HOT_ZONE = 1, 2, 3
_BLOCK_NAMES = ("Cardbox1", "Cardbox2")
# Emission colours of the goal prefabs (look.py); other goals (decaying, growing...) glow in their own colour.
_GOAL_GLOW = {
    "GoodGoal": look.GOAL_GREEN,
    "GoodGoalBounce": look.GOAL_GREEN,
    "GoodGoalMulti": look.GOAL_GOLD,
    "GoodGoalMultiBounce": look.GOAL_GOLD,
    "BadGoal": look.GOAL_RED,
    "BadGoalBounce": look.GOAL_RED,
}
_HOLLOW_SHAPES = ("u", "l_left", "l_right")
_TOP_LIGHT = light_factor(np.array([0.0, 1.0, 0.0])).astype(np.float32)  # blocks' emission is set to this


def _light_direction() -> list[float]:
    lt = look.LIGHT_TOWARDS
    return [float(lt[0]), float(lt[2]), float(lt[1])]  # pybullet axes (x, z, y)


def _linear_depth(buffer: np.ndarray) -> np.ndarray:
    """TinyRenderer's depth buffer (0..1, non-linear) as view distance; inf where nothing was drawn."""
    near, far = look.NEAR, look.FAR
    d = buffer.astype(np.float32)
    with np.errstate(divide="ignore"):
        z = (far * near) / (far - d * (far - near))
    z[d >= 1.0] = np.inf
    return z


def _snapshot(client: int, view: list[float], projection: list[float], m: int):
    """TinyRenderer's image of a client: red (n.l of white surfaces), depth (view distance), body ids."""
    _, _, rgba, depth, seg = p.getCameraImage(
        m,
        m,
        view,
        projection,
        renderer=p.ER_TINY_RENDERER,
        lightDirection=_light_direction(),
        lightColor=[1.0, 1.0, 1.0],
        lightAmbientCoeff=0.0,
        lightDiffuseCoeff=1.0,
        lightSpecularCoeff=0.0,
        shadow=0,
        physicsClientId=client,
    )
    rgba = np.asarray(rgba, dtype=np.uint8).reshape(m, m, 4)
    seg = np.asarray(seg, dtype=np.int32).reshape(m, m)
    z = _linear_depth(np.asarray(depth, dtype=np.float32).reshape(m, m))
    z[seg < 0] = np.inf
    return rgba[:, :, 0].astype(np.float32) / 255.0, z, seg


def _world_points(
    eye: np.ndarray, rays: tuple, z: np.ndarray, rows: np.ndarray, cols: np.ndarray
) -> np.ndarray:
    """Arena points (k x 3) seen at pixels (rows, cols) at view distance z."""
    out = np.empty((rows.size, 3), dtype=np.float32)
    for axis, d in enumerate(rays):
        d = np.asarray(d)
        value = d[rows if d.shape[0] > 1 else 0, cols if d.shape[1] > 1 else 0]
        out[:, axis] = eye[axis] + z * value
    return out


def _world_axes(
    eye: np.ndarray, rays: tuple, z: np.ndarray, rows: np.ndarray, cols: np.ndarray
) -> list[np.ndarray]:
    """The same points as ``_world_points``, as three float32 arrays (x, y, z): one plane per axis
    keeps the per-pixel arithmetic on contiguous arrays, which numpy runs several times faster."""
    out = []
    for axis, d in enumerate(rays):
        d = np.asarray(d)
        value = d[rows if d.shape[0] > 1 else 0, cols if d.shape[1] > 1 else 0]
        out.append((eye[axis] + z * value).astype(np.float32))
    return out


def _pack_planes(colour: np.ndarray) -> np.ndarray:
    """``textures.pack`` for colours given as (3, pixels) planes: packed uint32 RGBA, alpha 255."""
    rgba = np.empty((colour.shape[1], 4), dtype=np.uint8)
    rgba[:, 3] = 255
    for channel in range(3):
        rgba[:, channel] = np.clip(np.round(colour[channel]), 0, 255).astype(np.uint8)
    return rgba.view(np.uint32)[:, 0]


class ItemShading:
    """The material of every item body, and the painting of TinyRenderer's items with them."""

    def __init__(self) -> None:
        self._bricks = textures.wall_bricks()
        self._patches = textures.cow_patches()
        self.set_items(-1, [])

    def set_items(self, client: int, bodies: Sequence[ItemBody]) -> None:
        size = max((b.body for b in bodies), default=0) + 2  # indexed by body id + 1 (-1 = nothing)
        self._kind = np.full(size, PLAIN, dtype=np.uint8)
        self._texture = np.zeros(size, dtype=np.uint8)
        self._albedo = np.full((size, 3), 255.0, dtype=np.float32)
        self._half = np.ones((size, 3), dtype=np.float64)  # half sizes in pybullet axes (x, z, y)
        self._origin = np.zeros((size, 3), dtype=np.float64)
        self._rotation = np.tile(np.eye(3), (size, 1, 1))
        self._client = client
        self._moving: list[int] = []
        for b in bodies:
            t, i = b.item.type, b.body + 1
            sx, sy, sz = b.item.size
            self._half[i] = (sx / 2, sz / 2, sy / 2)
            if t.transparent or t.kind == "zone":
                continue  # drawn by GlassLayer
            if t.is_goal:
                self._kind[i] = GLOW
            elif t.name in _BLOCK_NAMES or t.shape in _HOLLOW_SHAPES:
                self._kind[i] = BLOCK
                self._texture[i] = FRAME if t.name in _BLOCK_NAMES else SEAMS
            else:
                self._kind[i] = LIT
                self._texture[i] = {"Wall": BRICKS, "Ramp": PATCHES}.get(t.name, NO_TEXTURE)
            self._albedo[i] = _GOAL_GLOW.get(t.name, b.item.color) if t.is_goal else b.item.color
            if self._texture[i] != NO_TEXTURE:
                self._read_pose(b.body)
                if b.dynamic:  # walls and ramps too: dynamic as in Unity, they can fall or tip
                    self._moving.append(b.body)
        self._pose32 = self._pose_table()
        self._albedo_planes = np.ascontiguousarray(self._albedo.T)  # (3, bodies): see _pack_planes

    def _pose_table(self) -> np.ndarray:
        """Per body (column = id + 1), float32: origin (3), rotation matrix by rows (9), half size (3);
        one table, so a pixel's pose is one gather, and stored by rows (15, bodies) so that the
        gather gives one contiguous array per value."""
        size = len(self._origin)
        table = np.concatenate(
            [self._origin, self._rotation.reshape(size, 9), self._half], axis=1, dtype=np.float32
        )
        return np.ascontiguousarray(table.T)

    def _read_pose(self, body: int) -> None:
        try:
            position, orientation = p.getBasePositionAndOrientation(body, physicsClientId=self._client)
        except p.error:
            return
        self._origin[body + 1] = position
        self._rotation[body + 1] = np.asarray(p.getMatrixFromQuaternion(orientation)).reshape(3, 3)

    def draw(
        self, client: int, view: list[float], projection: list[float], m: int, eye: np.ndarray, rays: tuple
    ) -> tuple[np.ndarray, np.ndarray]:
        """Packed RGBA (m, m) uint32 and view distance (m, m) of the items (inf where there are none).
        Only the pixels that show an item are painted."""
        ndl, z, seg = _snapshot(client, view, projection, m)
        out = np.zeros((m, m), dtype=np.uint32)
        rows, cols = np.nonzero(seg >= 0)
        if rows.size == 0:
            return out, z
        full = rows.size == seg.size  # items everywhere: flat views instead of gathers

        def at(a: np.ndarray) -> np.ndarray:
            return a.reshape(-1) if full else a[rows, cols]

        ids = at(seg) + 1
        ids[ids >= len(self._kind)] = 0  # bodies made after set_items: plain
        # Colours as (3, pixels) planes, not (pixels, 3): numpy is several times slower on a last axis of 3.
        albedo = np.take(self._albedo_planes, ids, axis=1)
        light = look.AMBIENT[:, None] + look.LIGHT[:, None] * at(ndl)[None, :]
        colour = albedo * light
        kinds = self._texture[ids]
        textured = kinds != NO_TEXTURE
        if textured.any():
            for body in self._moving:
                self._read_pose(body)
            self._pose32 = self._pose_table()
            if textured.all():  # e.g. an arena floored with a wall: no copies of every array
                colour = self._textured(colour, light, kinds, ids, at(z), rows, cols, eye, rays, m)
            else:
                colour[:, textured] = self._textured(
                    colour[:, textured],
                    light[:, textured],
                    kinds[textured],
                    ids[textured],
                    z[rows[textured], cols[textured]],
                    rows[textured],
                    cols[textured],
                    eye,
                    rays,
                    m,
                )
        glow = self._kind[ids] == GLOW
        colour[:, glow] = albedo[:, glow]
        if full:
            return _pack_planes(colour).reshape(m, m), z
        out[rows, cols] = _pack_planes(colour)
        return out, z

    def _textured(self, colour, light, kinds, ids, depth, rows, cols, eye, rays, m) -> np.ndarray:
        """Colours of textured pixels (given as flat lists; colour and light as (3, pixels) planes)
        with their texture applied."""
        wx, wy, wz = _world_axes(eye, rays, depth, rows, cols)
        pose = np.take(self._pose32, ids, axis=1)  # (15, pixels): one plane per value
        # R^T (P - origin), P in pybullet axes (arena x, z, y).
        ox, oy, oz = wx - pose[0], wz - pose[1], wy - pose[2]
        local = [pose[3 + j] * ox + pose[6 + j] * oy + pose[9 + j] * oz for j in range(3)]
        half = pose[12:15]
        # Box faces: the local axis along which the point is nearest the box's surface is the normal;
        # (a, b) are the face's coordinates from its corner: across and up, or x and y on top faces.
        ratio = [np.abs(local[j]) / half[j] for j in range(3)]
        face_x = (ratio[0] >= ratio[1]) & (ratio[0] >= ratio[2])
        face_top = ~face_x & (ratio[2] >= ratio[1])
        up = local[1] + half[1]
        a = np.where(face_x, up, local[0] + half[0])
        b = np.where(face_top, up, local[2] + half[2])
        footprint = depth * np.float32(2.0 * np.tan(np.radians(look.FOV_DEGREES) / 2) / m)
        factor = np.ones(rows.size, dtype=np.float32)
        for kind, texture, (w, h) in (
            (BRICKS, self._bricks, (8 * look.WALL_BRICK[0], 12 * look.WALL_BRICK[1])),
            (PATCHES, self._patches, (3.0, 3.0)),
        ):
            chosen = kinds == kind
            if chosen.all():  # one texture tile covers w x h units
                factor = texture.sample(a / w, b / h, footprint / w)
            elif chosen.any():
                factor[chosen] = texture.sample(a[chosen] / w, b[chosen] / h, footprint[chosen] / w)
        shaded = colour * factor
        framed = kinds >= FRAME
        if framed.any():
            fa = a[framed] / (2 * np.where(face_x[framed], half[1, framed], half[0, framed]))
            span_b = 2 * np.where(face_top[framed], half[1, framed], half[2, framed])
            fb = b[framed] / span_b
            edge = np.minimum(np.minimum(fa, 1 - fa), np.minimum(fb, 1 - fb))
            seams = (np.minimum(fb, 1 - fb) * span_b < 0.08) & ~face_top[
                framed
            ]  # U/L: bands at top and bottom
            on_frame = np.where(kinds[framed] == FRAME, edge < look.BLOCK_FRAME_WIDTH, seams)
            base = np.where(on_frame[None, :], look.BLOCK_FRAME[:, None], look.BLOCK_FACE[:, None])
            s = look.BLOCK_LIGHT_SHARE
            lit = base * (1 - s + s * light[:, framed] / _TOP_LIGHT[:, None])
            shaded[:, framed] = lit
        return shaded


class GlassLayer:
    """See-through copies of glass items and zones, in a pybullet client of the camera's own."""

    def __init__(self) -> None:
        self._client = -1
        self.active = False
        self._noise = textures.zone_noise()
        self._material = np.zeros(1, dtype=np.uint8)
        self._hot_zones: list[Box] = []

    def set_items(self, client: int, bodies: Sequence[ItemBody]) -> None:
        # a DataZone (v4.1.0) is a glass box (DataZone.prefab: Transparent.mat), unless zoneVisibility hides it
        chosen = [
            b
            for b in bodies
            if (b.item.type.transparent or b.item.type.kind == "zone") and b.item.params.zone_visibility
        ]
        self.active = bool(chosen)
        self._hot_zones = [
            b.item.boxes()[0]
            for b in chosen
            if b.item.type.kind == "zone" and b.item.type.name != "DeathZone"
        ]
        if not chosen:
            return
        if self._client < 0:
            self._client = connect()
        c = self._client
        p.resetSimulation(physicsClientId=c)
        made: list[tuple[int, int]] = []
        white = [1.0, 1.0, 1.0, 1.0]
        for b in chosen:
            t = b.item.type
            if t.kind == "zone":
                box = b.item.boxes()[0]
                half = [box.hx, box.hz, max((box.y1 - box.y0) / 2, 0.005)]
                visual = p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=white, physicsClientId=c)
                centre = [box.cx, box.cz, max(box.y0, 0.0) + half[2]]
                copy = p.createMultiBody(
                    0, -1, visual, centre, yaw_quaternion(box.rotation), physicsClientId=c
                )
                zone = DEATH_ZONE if t.name == "DeathZone" else HOT_ZONE
                made.append((copy, GLASS if t.behaviour == "data_zone" else zone))
                continue
            position, orientation = p.getBasePositionAndOrientation(b.body, physicsClientId=client)
            sx, sy, sz = b.item.size
            if t.shape == "tunnel":
                vertices, indices = tunnel_mesh(sx, sy, sz)
                visual = p.createVisualShape(
                    p.GEOM_MESH, vertices=vertices, indices=indices, rgbaColor=white, physicsClientId=c
                )
            else:
                parts = local_parts(t.shape, b.item.size)
                frames = [[q.ox, q.oz, (q.y0 + q.y1) / 2 - sy / 2] for q in parts]
                halves = [[q.hx, q.hz, q.half_height] for q in parts]
                visual = p.createVisualShapeArray(
                    [p.GEOM_BOX] * len(parts),
                    halfExtents=halves,
                    visualFramePositions=frames,
                    rgbaColors=[white] * len(parts),
                    physicsClientId=c,
                )
            copy = p.createMultiBody(0, -1, visual, position, orientation, physicsClientId=c)
            made.append((copy, GLASS))
        self._material = np.zeros(max(i for i, _ in made) + 2, dtype=np.uint8)
        for i, material in made:
            self._material[i + 1] = material

    def draw(
        self, view: list[float], projection: list[float], m: int, eye: np.ndarray, rays: tuple
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Colour as (3, m, m) float32 planes, opacity (m, m) and view distance (m, m) of the nearest
        glass or zone surface, or None when none is in view."""
        ndl, z, seg = _snapshot(self._client, view, projection, m)
        if not (seg >= 0).any():
            return None
        material = self._material[np.clip(seg + 1, 0, len(self._material) - 1)]
        colour = np.zeros((3, m, m), dtype=np.float32)
        alpha = np.zeros((m, m), dtype=np.float32)
        glass = material == GLASS
        lit = ndl[glass]
        for channel in range(3):
            albedo, ambient, light = (c[channel] for c in (look.GLASS_ALBEDO, look.AMBIENT, look.LIGHT))
            colour[channel][glass] = albedo * (ambient + light * lit)
        alpha[glass] = look.GLASS_ALPHA
        zones = (material == DEATH_ZONE) | (material == HOT_ZONE)
        if zones.any():
            rows, cols = np.nonzero(zones)
            world = _world_points(eye, rays, z[rows, cols], rows, cols)
            s = look.ZONE_NOISE_SCALE
            noise = self._noise.sample(world[:, 0] * s, world[:, 2] * s, 0.0)[:, None]
            death = material[rows, cols] == DEATH_ZONE
            tint = np.where(death[:, None], look.DEATH_ZONE_COLOR, look.HOT_ZONE_COLOR)
            colour[:, rows, cols] = (tint * noise).T
            alpha[rows, cols] = np.where(death, look.DEATH_ZONE_ALPHA, look.HOT_ZONE_ALPHA)
        return colour, alpha, z

    def fog(self, eye: np.ndarray) -> tuple[np.ndarray, float] | None:
        """The tint and opacity over the whole frame when the camera is inside a hot zone: Unity draws
        the zone's faces from inside too (HotZone_Fog.mat _Cull 0), so its far faces veil the view."""
        for box in self._hot_zones:
            if sphere_box_distance((float(eye[0]), float(eye[1]), float(eye[2])), box) == 0.0:
                mean_noise = float(self._noise.sample(np.zeros(1), np.zeros(1), 1.0)[0])
                return look.HOT_ZONE_COLOR * mean_noise, look.HOT_ZONE_ALPHA_ONE_FACE
        return None

    def close(self) -> None:
        if self._client >= 0:
            disconnect(self._client)
            self._client = -1

    def __del__(self) -> None:  # a forgotten close() must not leak a physics server per camera
        try:
            self.close()
        except Exception:  # interpreter shutdown may have torn pybullet down already
            pass
