"""pybullet bodies for arena items: shapes, colours and materials, in pybullet's z-up frame.

Why a module of its own: this is the only place that knows the mapping from Animal-AI coordinates
(x, y up, z) to pybullet's (x, y, z up): an arena point (x, y, z) is pybullet (x, z, y), and an
item turned clockwise by r degrees seen from above gets yaw -r about pybullet's z. Swapping two
axes also swaps handedness, which is what turns Animal-AI's left-handed frame into pybullet's
right-handed one, so "right" on screen stays right.

Looks: every visual shape is white and fully shaded by pybullet (no ambient), so the camera reads
each pixel's light (n . l) from TinyRenderer and paints the item's Animal-AI material itself
(``camera.py``, ``look.py``). Glass items and zones have no visual here: the camera draws them
translucent from copies in a client of its own. Tunnels are the half tube of Animal-AI's prefab
(``item_meshes.py``), for collisions too.

Materials: pybullet multiplies the restitution and the friction of the two bodies in a contact.
Static items and the fence have restitution 1 and only bounce goals do too, so bounce goals rebound
from walls while the agent (restitution 0) and everything else do not. The agent has no friction:
its motion is set by ``motion.py`` and friction would only bias it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agentkit.envs.animalai_common.geometry import local_parts
from agentkit.envs.animalai_common.items import AGENT_DIAMETER
from agentkit.envs.animalai_common.layout import (
    ARENA_SIZE,
    FENCE_COLLIDER_HEIGHT,
    FENCE_THICKNESS,
    PlacedItem,
)
from agentkit.envs.arena.item_meshes import tunnel_mesh, wedge_mesh
from agentkit.envs.pybullet_support.bullet import p

WHITE = [1.0, 1.0, 1.0, 1.0]  # every visual: the camera colours items by their material (look.py)


def to_bullet(x: float, y: float, z: float) -> tuple[float, float, float]:
    return (x, z, y)


def yaw_quaternion(rotation_deg: float) -> tuple[float, float, float, float]:
    half = -math.radians(rotation_deg) / 2
    return (0.0, 0.0, math.sin(half), math.cos(half))


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
    floor_shape = p.createCollisionShape(
        p.GEOM_BOX, halfExtents=[ARENA_SIZE, ARENA_SIZE, 0.5], physicsClientId=client
    )
    floor = p.createMultiBody(
        0, floor_shape, -1, [ARENA_SIZE / 2, ARENA_SIZE / 2, -0.5], physicsClientId=client
    )
    p.changeDynamics(floor, -1, lateralFriction=1.0, restitution=0.0, physicsClientId=client)
    _hide(client, floor)
    fences = []
    half_height = FENCE_COLLIDER_HEIGHT / 2
    t = FENCE_THICKNESS / 2
    span = ARENA_SIZE / 2 + FENCE_THICKNESS
    for cx, cy, hx, hy in (
        (-t, ARENA_SIZE / 2, t, span),
        (ARENA_SIZE + t, ARENA_SIZE / 2, t, span),
        (ARENA_SIZE / 2, -t, span, t),
        (ARENA_SIZE / 2, ARENA_SIZE + t, span, t),
    ):
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
    p.changeDynamics(
        body,
        -1,
        lateralFriction=0.0,
        spinningFriction=0.0,
        rollingFriction=0.0,
        restitution=0.0,
        linearDamping=0.0,
        angularDamping=0.0,
        physicsClientId=client,
    )
    _hide(client, body)
    return body


def add_item(client: int, item: PlacedItem) -> ItemBody:
    """One item as a pybullet body (static, or dynamic for goals, pushable blocks and heavy walls)."""
    t = item.type
    x, y, z = item.position
    sx, sy, sz = item.size
    color = WHITE
    orientation = yaw_quaternion(item.rotation)
    if t.shape == "sphere":
        radius = sx / 2
        shape = p.createCollisionShape(p.GEOM_SPHERE, radius=radius, physicsClientId=client)
        visual = p.createVisualShape(p.GEOM_SPHERE, radius=radius, rgbaColor=color, physicsClientId=client)
        body = p.createMultiBody(
            t.mass, shape, visual, to_bullet(x, y + radius, z), orientation, physicsClientId=client
        )
    elif t.shape == "ramp":
        vertices, indices = wedge_mesh(sx, sy, sz)
        shape = p.createCollisionShape(p.GEOM_MESH, vertices=vertices, physicsClientId=client)
        visual = (
            -1
            if t.transparent
            else p.createVisualShape(
                p.GEOM_MESH, vertices=vertices, indices=indices, rgbaColor=color, physicsClientId=client
            )
        )
        body = p.createMultiBody(
            t.mass, shape, visual, to_bullet(x, y, z), orientation, physicsClientId=client
        )
    elif t.shape == "tunnel":  # static: a concave triangle mesh collides as it looks
        vertices, indices = tunnel_mesh(sx, sy, sz)
        shape = p.createCollisionShape(
            p.GEOM_MESH,
            vertices=vertices,
            indices=indices,
            flags=p.GEOM_FORCE_CONCAVE_TRIMESH,
            physicsClientId=client,
        )
        visual = (
            -1
            if t.transparent
            else p.createVisualShape(
                p.GEOM_MESH, vertices=vertices, indices=indices, rgbaColor=color, physicsClientId=client
            )
        )
        body = p.createMultiBody(0, shape, visual, to_bullet(x, y, z), orientation, physicsClientId=client)
    elif t.shape == "flat":  # a trigger: nothing to collide with, drawn by the camera
        body = p.createMultiBody(0, -1, -1, to_bullet(x, y, z), orientation, physicsClientId=client)
        return ItemBody(item, body, False)
    else:
        parts = local_parts(t.shape, item.size)
        centre = sy / 2  # the body's origin is the middle of the item's bounding box
        frames = [[part.ox, part.oz, (part.y0 + part.y1) / 2 - centre] for part in parts]
        halves = [[part.hx, part.hz, part.half_height] for part in parts]
        if len(parts) == 1:
            shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=halves[0], physicsClientId=client)
        else:
            shape = p.createCollisionShapeArray(
                [p.GEOM_BOX] * len(parts),
                halfExtents=halves,
                collisionFramePositions=frames,
                physicsClientId=client,
            )
        if t.transparent:
            visual = -1
        elif len(parts) == 1:
            visual = p.createVisualShape(
                p.GEOM_BOX, halfExtents=halves[0], rgbaColor=color, physicsClientId=client
            )
        else:
            visual = p.createVisualShapeArray(
                [p.GEOM_BOX] * len(parts),
                halfExtents=halves,
                visualFramePositions=frames,
                rgbaColors=[color] * len(parts),
                physicsClientId=client,
            )
        body = p.createMultiBody(
            t.mass, shape, visual, to_bullet(x, y + centre, z), orientation, physicsClientId=client
        )
    if t.transparent:
        _hide(client, body)
    dynamic = t.mass > 0
    if dynamic:
        if t.bounce:
            p.changeDynamics(
                body,
                -1,
                lateralFriction=0.0,
                rollingFriction=0.0,
                spinningFriction=0.0,
                restitution=1.0,
                linearDamping=0.0,
                angularDamping=0.0,
                physicsClientId=client,
            )
        elif t.kind in ("obstacle", "ramp"):  # heavy walls and ramps (materials.set_heavy sets the rest)
            p.changeDynamics(body, -1, lateralFriction=1.0, restitution=0.0, physicsClientId=client)
        elif t.is_goal:
            p.changeDynamics(
                body,
                -1,
                lateralFriction=0.5,
                rollingFriction=0.002,
                spinningFriction=0.002,
                restitution=0.0,
                physicsClientId=client,
            )
        else:  # pushable blocks slide with friction and come to rest
            p.changeDynamics(body, -1, lateralFriction=0.6, restitution=0.0, physicsClientId=client)
    else:
        p.changeDynamics(body, -1, lateralFriction=0.5, restitution=1.0, physicsClientId=client)
    return ItemBody(item, body, dynamic)
