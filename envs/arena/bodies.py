"""pybullet bodies for arena items: shapes, colours and materials, in pybullet's z-up frame.

Why a module of its own: this is the only place that knows the mapping from Animal-AI coordinates
(x, y up, z) to pybullet's (x, y, z up): an arena point (x, y, z) is pybullet (x, z, y), and an
item turned clockwise by r degrees seen from above gets yaw -r about pybullet's z. Swapping two
axes also swaps handedness, which is what turns Animal-AI's left-handed frame into pybullet's
right-handed one, so "right" on screen stays right.

Materials: pybullet multiplies the restitution and the friction of the two bodies in a contact.
Static items and the fence have restitution 1 and only bounce goals do too, so bounce goals rebound
from walls while the agent (restitution 0) and everything else do not. The agent has no friction:
its motion is set by ``motion.py`` and friction would only bias it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agentkit.envs.arena.bullet import p
from agentkit.envs.arena.geometry import LocalBox, local_parts
from agentkit.envs.arena.items import AGENT_DIAMETER, RGB
from agentkit.envs.arena.layout import ARENA_SIZE, FENCE_COLLIDER_HEIGHT, FENCE_THICKNESS, PlacedItem

EDGE_WIDTH = 0.06  # transparent items are drawn as bars this wide along their edges
ZONE_THICKNESS = 0.01  # zones are drawn as flat plates this thick


def to_bullet(x: float, y: float, z: float) -> tuple[float, float, float]:
    return (x, z, y)


def yaw_quaternion(rotation_deg: float) -> tuple[float, float, float, float]:
    half = -math.radians(rotation_deg) / 2
    return (0.0, 0.0, math.sin(half), math.cos(half))


def rgba(color: RGB) -> list[float]:
    return [color[0] / 255.0, color[1] / 255.0, color[2] / 255.0, 1.0]


@dataclass
class ItemBody:
    """A built item: its pybullet body id and whether it moves (and so must be queried)."""

    item: PlacedItem
    body: int
    dynamic: bool


def _hide(client: int, body: int) -> None:
    """Keep a collision-only body out of pictures: pybullet's renderer would otherwise draw its
    collision shape, and skips a visual whose alpha is 0."""
    p.changeVisualShape(body, -1, rgbaColor=[1, 1, 1, 0], physicsClientId=client)


def add_ground(client: int) -> tuple[int, list[int]]:
    """The floor (top at y = 0) and the four fence walls, collision only (the camera draws them)."""
    floor_shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=[ARENA_SIZE, ARENA_SIZE, 0.5], physicsClientId=client)
    floor = p.createMultiBody(0, floor_shape, -1, [ARENA_SIZE / 2, ARENA_SIZE / 2, -0.5], physicsClientId=client)
    p.changeDynamics(floor, -1, lateralFriction=1.0, restitution=0.0, physicsClientId=client)
    _hide(client, floor)
    fences = []
    half_height = FENCE_COLLIDER_HEIGHT / 2
    t = FENCE_THICKNESS / 2
    span = ARENA_SIZE / 2 + FENCE_THICKNESS
    for cx, cy, hx, hy in ((-t, ARENA_SIZE / 2, t, span), (ARENA_SIZE + t, ARENA_SIZE / 2, t, span),
                           (ARENA_SIZE / 2, -t, span, t), (ARENA_SIZE / 2, ARENA_SIZE + t, span, t)):
        shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=[hx, hy, half_height], physicsClientId=client)
        body = p.createMultiBody(0, shape, -1, [cx, cy, half_height - 1.0], physicsClientId=client)
        p.changeDynamics(body, -1, lateralFriction=0.5, restitution=1.0, physicsClientId=client)
        _hide(client, body)
        fences.append(body)
    return floor, fences


def add_agent(client: int, position: tuple[float, float, float]) -> int:
    """The agent: a frictionless sphere of diameter 1 with no visual shape (the camera is inside it)."""
    radius = AGENT_DIAMETER / 2
    shape = p.createCollisionShape(p.GEOM_SPHERE, radius=radius, physicsClientId=client)
    x, y, z = position
    body = p.createMultiBody(1.0, shape, -1, to_bullet(x, y + radius + 0.001, z), physicsClientId=client)
    p.changeDynamics(body, -1, lateralFriction=0.0, spinningFriction=0.0, rollingFriction=0.0, restitution=0.0,
                     linearDamping=0.0, angularDamping=0.0, physicsClientId=client)
    _hide(client, body)
    return body


def add_item(client: int, item: PlacedItem) -> ItemBody:
    """One item as a pybullet body (static, or dynamic for goals, pushable blocks and heavy walls)."""
    t = item.type
    x, y, z = item.position
    sx, sy, sz = item.size
    color = rgba(item.color)
    orientation = yaw_quaternion(item.rotation)
    if t.shape == "sphere":
        radius = sx / 2
        shape = p.createCollisionShape(p.GEOM_SPHERE, radius=radius, physicsClientId=client)
        visual = p.createVisualShape(p.GEOM_SPHERE, radius=radius, rgbaColor=color, physicsClientId=client)
        body = p.createMultiBody(t.mass, shape, visual, to_bullet(x, y + radius, z), orientation,
                                 physicsClientId=client)
    elif t.shape == "ramp":
        vertices, indices = _wedge_mesh(sx, sy, sz)
        shape = p.createCollisionShape(p.GEOM_MESH, vertices=vertices, physicsClientId=client)
        if t.transparent:
            visual = _edges_visual(client, [LocalBox(0, 0, 0, sy, sx / 2, sz / 2)], 0.0, color)
        else:
            visual = p.createVisualShape(p.GEOM_MESH, vertices=vertices, indices=indices, rgbaColor=color,
                                         physicsClientId=client)
        body = p.createMultiBody(t.mass, shape, visual, to_bullet(x, y, z), orientation, physicsClientId=client)
    elif t.shape == "flat":
        visual = p.createVisualShape(p.GEOM_BOX, halfExtents=[sx / 2, sz / 2, ZONE_THICKNESS / 2], rgbaColor=color,
                                     physicsClientId=client)
        body = p.createMultiBody(0, -1, visual, to_bullet(x, y + ZONE_THICKNESS / 2 + 0.001, z), orientation,
                                 physicsClientId=client)
        return ItemBody(item, body, False)
    else:
        parts = local_parts(t.shape, item.size)
        centre = sy / 2  # the body's origin is the middle of the item's bounding box
        frames = [[part.ox, part.oz, (part.y0 + part.y1) / 2 - centre] for part in parts]
        halves = [[part.hx, part.hz, part.half_height] for part in parts]
        if len(parts) == 1:
            shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=halves[0], physicsClientId=client)
        else:
            shape = p.createCollisionShapeArray([p.GEOM_BOX] * len(parts), halfExtents=halves,
                                                collisionFramePositions=frames, physicsClientId=client)
        if t.transparent:
            visual = _edges_visual(client, parts, centre, color)
        elif len(parts) == 1:
            visual = p.createVisualShape(p.GEOM_BOX, halfExtents=halves[0], rgbaColor=color, physicsClientId=client)
        else:
            visual = p.createVisualShapeArray([p.GEOM_BOX] * len(parts), halfExtents=halves,
                                              visualFramePositions=frames, rgbaColors=[color] * len(parts),
                                              physicsClientId=client)
        body = p.createMultiBody(t.mass, shape, visual, to_bullet(x, y + centre, z), orientation,
                                 physicsClientId=client)
    dynamic = t.mass > 0
    if dynamic:
        if t.bounce:
            p.changeDynamics(body, -1, lateralFriction=0.0, rollingFriction=0.0, spinningFriction=0.0,
                             restitution=1.0, linearDamping=0.0, angularDamping=0.0, physicsClientId=client)
        elif t.kind == "obstacle":  # heavy walls
            p.changeDynamics(body, -1, lateralFriction=0.5, restitution=0.0, physicsClientId=client)
        elif t.is_goal:
            p.changeDynamics(body, -1, lateralFriction=0.5, rollingFriction=0.002, spinningFriction=0.002,
                             restitution=0.0, physicsClientId=client)
        else:  # pushable blocks slide with friction and come to rest
            p.changeDynamics(body, -1, lateralFriction=0.6, restitution=0.0, physicsClientId=client)
    else:
        p.changeDynamics(body, -1, lateralFriction=0.5, restitution=1.0, physicsClientId=client)
    return ItemBody(item, body, dynamic)


def _wedge_mesh(sx: float, sy: float, sz: float) -> tuple[list[list[float]], list[int]]:
    """A ramp in pybullet's local frame, origin at the centre of its base, high edge at local -z."""
    hx, hz = sx / 2, sz / 2
    # Animal-AI local z is pybullet local y; the high edge (height sy) is at local -z.
    vertices = [[-hx, -hz, 0], [hx, -hz, 0], [hx, hz, 0], [-hx, hz, 0], [-hx, -hz, sy], [hx, -hz, sy]]
    indices = [0, 2, 1, 0, 3, 2,  # bottom
               0, 1, 5, 0, 5, 4,  # high vertical face
               3, 4, 5, 3, 5, 2,  # slope
               0, 4, 3, 1, 2, 5]  # sides
    return vertices, indices


def _edges_visual(client: int, parts: list[LocalBox], centre: float, color: list[float]) -> int:
    """A mesh of thin bars along every edge of ``parts``: how a glass item shows without translucency."""
    vertices: list[list[float]] = []
    indices: list[int] = []
    w = EDGE_WIDTH / 2
    for part in parts:
        x0, x1 = part.ox - part.hx, part.ox + part.hx
        y0, y1 = part.oz - part.hz, part.oz + part.hz
        z0, z1 = part.y0 - centre, part.y1 - centre
        corners = [(x, y, zz) for x in (x0, x1) for y in (y0, y1) for zz in (z0, z1)]
        for i, a in enumerate(corners):
            for b in corners[i + 1:]:
                if sum(1 for u, v in zip(a, b) if u != v) != 1:
                    continue  # not an edge
                lo = [min(u, v) - w for u, v in zip(a, b)]
                hi = [max(u, v) + w for u, v in zip(a, b)]
                _add_box(vertices, indices, lo, hi)
    return p.createVisualShape(p.GEOM_MESH, vertices=vertices, indices=indices, rgbaColor=color,
                               physicsClientId=client)


# Two triangles per face of a box whose 8 corners are ordered x-major, then y, then z.
_BOX_FACES = (0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1,
              2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3)


def _add_box(vertices: list[list[float]], indices: list[int], lo: list[float], hi: list[float]) -> None:
    base = len(vertices)
    vertices.extend([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    indices.extend(base + i for i in _BOX_FACES)
