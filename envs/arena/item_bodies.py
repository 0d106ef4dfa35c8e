"""pybullet bodies of the items built from a fixed model: SpawnerTree, dispenser, container, sign, button.

Why apart from ``bodies.py``: these items are not one box or one sphere; each is a few simple solids
(measured from the v3.1.3 meshes, ``items.py`` and ``geometry.py``) plus parts drawn in their own
colours (a sign's symbol, the button's face, a tree's crown). ``add_body`` returns the item's main
body, which the world treats like any other item, and the extra bodies, which the camera draws and
``item_runtime.py`` moves (the button's face, the spawners' doors). Every other item goes to
``bodies.add_item`` unchanged. Shapes only: the camera engineer's ``item_shading.py`` paints them.

Layouts, in the item's own frame (x right, z forward, y up; the base centre at the origin):

* SpawnerTree: a trunk box 0.6 x 2.96 x 0.6 and the crown, an octahedron of radius 1.5 around
  (-0.1, 3.8, -0.1) (``custom_tree_inner_collision_mesh.fbx``); the agent walks under the crown.
* SpawnerContainer (1.67 cube) and SpawnerDispenser (1.67 x 4.46 x 1.67): a chamber at the bottom,
  1.15 high inside, with walls 0.05 thick and a door opening 1.0 wide on its +x side (the hatch of
  ``dispenser_hatch_frame.fbx``: x 0.70..0.80, z -0.6..0.6); the door (``dispenser_hatch_slidedoor.fbx``:
  1.0 x 1.15) sinks into the floor as it opens. The dispenser is solid above its chamber, whose floor
  slopes down towards the door, so a released goal rolls out when the door opens.
* SignPosterboard: the board (its BoxCollider, 0.1 x 2 x 3 times its scale), a brown frame, and the
  symbol on its -x face (the face a board at rotation 0 shows to an agent looking along +x).
* Pillar-Button: the pillar, panel and button boxes of ``geometry.button_parts`` in one body, and the
  blue button face as an extra that moves in when pressed.
"""

from __future__ import annotations

import random
from dataclasses import replace

from agentkit.envs.animalai_common.geometry import (
    BUTTON_FACE,
    TREE_CROWN_CENTRE,
    TREE_CROWN_RADIUS,
    TREE_TRUNK,
    to_world,
)
from agentkit.envs.animalai_common.items import RGB, TREE_BROWN, TREE_GREEN
from agentkit.envs.animalai_common.layout import PlacedItem
from agentkit.envs.animalai_common.signboards import pixel_quads, symbol_image
from agentkit.envs.arena.bodies import ItemBody, add_item, to_bullet, yaw_quaternion
from agentkit.envs.pybullet_support.bullet import p

WALL = 0.05  # chamber walls
DOOR_WIDTH, DOOR_HEIGHT = 1.0, 1.15  # dispenser_hatch_slidedoor.fbx: z -0.5..0.5, y 0..1.15
CHAMBER_HEIGHT = 1.25  # dispenser_hatch_frame.fbx: y 0..1.25
CHUTE_DROP = 0.12  # the dispenser's chamber floor: this much higher at the back than at the door
BOARD_FRAME = 0.08  # the sign's frame width
BOARD_BROWN: RGB = (125, 88, 58)
BUTTON_BLUE: RGB = (40, 140, 230)
SYMBOL_SHARE = 0.92  # the symbol square's side, as a share of the board's face height
PRESS_DEPTH = 0.09  # Pillar-Button.prefab: Spawner_InteractiveButton.moveOffset x


def _box_mesh(boxes: list[tuple[tuple[float, float, float], tuple[float, float, float]]]):
    """Vertices and indices of boxes given as (low corner, high corner), pybullet axes."""
    vertices: list[list[float]] = []
    indices: list[int] = []
    faces = (
        0,
        1,
        3,
        0,
        3,
        2,
        4,
        6,
        7,
        4,
        7,
        5,
        0,
        4,
        5,
        0,
        5,
        1,
        2,
        3,
        7,
        2,
        7,
        6,
        0,
        2,
        6,
        0,
        6,
        4,
        1,
        5,
        7,
        1,
        7,
        3,
    )
    for lo, hi in boxes:
        base = len(vertices)
        vertices.extend([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
        indices.extend(base + i for i in faces)
    return vertices, indices


def _extra(
    client: int,
    item: PlacedItem,
    color: RGB,
    visual: int,
    collision: int = -1,
    position: tuple[float, float, float] | None = None,
) -> ItemBody:
    """A static body of ``item``'s, drawn in ``color``, placed at the item's base (or ``position``, arena axes)."""
    x, y, z = position or item.position
    body = p.createMultiBody(
        0, collision, visual, to_bullet(x, y, z), yaw_quaternion(item.rotation), physicsClientId=client
    )
    return ItemBody(replace(item, color=color), body, False)


def _boxes_body(
    client: int,
    item: PlacedItem,
    color: RGB,
    boxes,
    solid: bool = True,
    position: tuple[float, float, float] | None = None,
    visible: bool = True,
) -> ItemBody:
    """Boxes given in the item's frame (arena axes: (x, y, z) low and high corners) as one static body;
    an invisible one (glass, drawn by the camera's glass layer) has no visual shape."""
    bullet_boxes = [((lo[0], lo[2], lo[1]), (hi[0], hi[2], hi[1])) for lo, hi in boxes]
    visual = -1
    if visible:
        vertices, indices = _box_mesh(bullet_boxes)
        visual = p.createVisualShape(p.GEOM_MESH, vertices=vertices, indices=indices, physicsClientId=client)
    collision = -1
    if solid:
        halves = [[(h[0] - lo[0]) / 2, (h[1] - lo[1]) / 2, (h[2] - lo[2]) / 2] for lo, h in bullet_boxes]
        frames = [[(h[0] + lo[0]) / 2, (h[1] + lo[1]) / 2, (h[2] + lo[2]) / 2] for lo, h in bullet_boxes]
        collision = p.createCollisionShapeArray(
            [p.GEOM_BOX] * len(halves),
            halfExtents=halves,
            collisionFramePositions=frames,
            physicsClientId=client,
        )
    return _extra(client, item, color, visual, collision, position)


def add_body(
    client: int, item: PlacedItem, version: str = "3.1.3", rng: random.Random | None = None
) -> tuple[ItemBody, list[ItemBody]]:
    """The item's main body and its extra bodies (empty for items ``bodies.add_item`` builds alone)."""
    behaviour = item.type.behaviour
    if behaviour == "tree":
        return _tree(client, item)
    if behaviour in ("dispenser", "container"):
        return _chamber(client, item)
    if behaviour == "sign":
        return _sign(client, item, version, rng or random.Random(0))
    if behaviour == "button":
        main = add_item(client, item)
        return main, [button_face(client, item)]
    return add_item(client, item), []


def _tree(client: int, item: PlacedItem) -> tuple[ItemBody, list[ItemBody]]:
    k = item.size[1] / 5.952
    half, height = TREE_TRUNK
    trunk = _boxes_body(
        client, item, TREE_BROWN, [((-half * k, 0.0, -half * k), (half * k, height * k, half * k))]
    )
    cx, cy, cz = (c * k for c in TREE_CROWN_CENTRE)
    r = TREE_CROWN_RADIUS * k
    tips = [(r, 0, 0), (-r, 0, 0), (0, r, 0), (0, -r, 0), (0, 0, r), (0, 0, -r)]
    vertices = [[cx + a, cz + c, cy + b] for a, b, c in tips]  # pybullet axes (x, z, y)
    faces = [0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5]
    visual = p.createVisualShape(p.GEOM_MESH, vertices=vertices, indices=faces, physicsClientId=client)
    collision = p.createCollisionShape(p.GEOM_MESH, vertices=vertices, physicsClientId=client)
    crown = _extra(client, item, TREE_GREEN, visual, collision)
    return trunk, [crown]


def chamber_boxes(item: PlacedItem) -> list:
    """The walls (and, for the dispenser, the solid top and the sloping floor) around the chamber."""
    sx, sy, sz = item.size
    hx, hz = sx / 2, sz / 2
    top = min(CHAMBER_HEIGHT, sy)
    boxes = [
        ((-hx, 0.0, -hz), (-hx + WALL, top, hz)),  # back (-x)
        ((-hx, 0.0, -hz), (hx, top, -hz + WALL)),  # sides
        ((-hx, 0.0, hz - WALL), (hx, top, hz)),
        ((hx - WALL, 0.0, -hz), (hx, top, -DOOR_WIDTH / 2)),  # the door's frame (+x)
        ((hx - WALL, 0.0, DOOR_WIDTH / 2), (hx, top, hz)),
        ((hx - WALL, DOOR_HEIGHT, -hz), (hx, top, hz)),
        ((-hx, top - WALL, -hz), (hx, top, hz)),  # roof of the chamber
    ]
    if item.type.behaviour == "dispenser" and sy > top:
        boxes.append(((-hx, top, -hz), (hx, sy, hz)))
    return boxes


def _chamber(client: int, item: PlacedItem) -> tuple[ItemBody, list[ItemBody]]:
    main = _boxes_body(client, item, item.color, chamber_boxes(item), visible=not item.type.transparent)
    extras = [door_body(client, item, 0.0)]
    if item.type.behaviour == "dispenser":
        sx, _, sz = item.size
        hx, hz = sx / 2 - WALL, sz / 2 - WALL
        # the floor: CHUTE_DROP high at the back, 0 at the door (a wedge, pybullet axes x, z, y)
        vertices = [
            [-hx, -hz, 0.0],
            [hx, -hz, 0.0],
            [hx, hz, 0.0],
            [-hx, hz, 0.0],
            [-hx, -hz, CHUTE_DROP],
            [-hx, hz, CHUTE_DROP],
        ]
        indices = [0, 2, 1, 0, 3, 2, 0, 4, 5, 0, 5, 3, 1, 2, 5, 1, 5, 4, 0, 1, 4, 3, 5, 2]
        visual = p.createVisualShape(p.GEOM_MESH, vertices=vertices, indices=indices, physicsClientId=client)
        collision = p.createCollisionShape(p.GEOM_MESH, vertices=vertices, physicsClientId=client)
        extras.append(_extra(client, item, item.color, visual, collision))
    return main, extras


def door_body(client: int, item: PlacedItem, openness: float) -> ItemBody:
    """The door of a dispenser or container, ``openness`` 0 (shut) .. 1 (sunk into the floor)."""
    hx = item.size[0] / 2
    height = max(DOOR_HEIGHT * (1.0 - openness), 0.01)
    box = ((hx - WALL, 0.0, -DOOR_WIDTH / 2), (hx, height, DOOR_WIDTH / 2))
    door = _boxes_body(client, item, item.color, [box], solid=openness < 1.0)
    # the door is drawn (opaque), even on the glass container
    return ItemBody(replace(door.item, type=replace(item.type, transparent=False)), door.body, False)


def _sign(client: int, item: PlacedItem, version: str, rng: random.Random) -> tuple[ItemBody, list[ItemBody]]:
    main = add_item(client, item)
    sx, sy, sz = item.size
    hx, hz, f = sx / 2, sz / 2, BOARD_FRAME
    frame = [
        ((-hx - 0.01, 0.0, -hz), (hx + 0.01, f, hz)),
        ((-hx - 0.01, sy - f, -hz), (hx + 0.01, sy, hz)),
        ((-hx - 0.01, 0.0, -hz), (hx + 0.01, sy, -hz + f)),
        ((-hx - 0.01, 0.0, hz - f), (hx + 0.01, sy, hz)),
    ]
    extras = [_boxes_body(client, item, BOARD_BROWN, frame, solid=False)]
    params = item.params
    color = (
        None
        if params.color is None or all(c < 0 for c in params.color.as_tuple())
        else tuple(max(0, min(255, int(round(c)))) for c in params.color.as_tuple())
    )
    image = symbol_image(params.symbol_name, color, version, rng)  # type: ignore[arg-type]
    if not image.visible():
        return main, extras
    width, height = image.size
    side = SYMBOL_SHARE * sy
    pixel_w = pixel_h = min(side / width, side / height)  # square pixels in a square area (Point filtering)
    left, top = -width * pixel_w / 2, sy / 2 + height * pixel_h / 2
    x0, x1 = -hx - 0.006, -hx - 0.001  # on the -x face
    for colour, runs in pixel_quads(image).items():
        boxes = []
        for row, col, length in runs:
            # the symbol reads left to right for a viewer facing +x: its right is the board's -z
            z_a = -(left + col * pixel_w)
            z_b = -(left + (col + length) * pixel_w)
            y_hi = top - row * pixel_h
            boxes.append(((x0, y_hi - pixel_h, min(z_a, z_b)), (x1, y_hi, max(z_a, z_b))))
        extras.append(_boxes_body(client, item, colour, boxes, solid=False))
    return main, extras


def button_face(client: int, item: PlacedItem, travel: float = 0.0) -> ItemBody:
    """The blue face of a Pillar-Button, pushed in by ``travel`` (0..1) of its press depth."""
    k = item.size[1] / 1.598
    x0, x1, z0, z1, y0, y1 = (v * k for v in BUTTON_FACE)
    shift = PRESS_DEPTH * travel
    box = ((x0 - 0.004 + shift, y0 + 0.004, z0 + 0.004), (x0 + 0.02 + shift, y1 - 0.004, z1 - 0.004))
    return _boxes_body(client, item, BUTTON_BLUE, [box], solid=False)


def place_extra(client: int, extra: ItemBody, offset: tuple[float, float, float]) -> None:
    """Move an extra body by ``offset`` from its item's base, in the item's frame (arena axes)."""
    x, y, z = extra.item.position
    dx, dz = to_world(offset[0], offset[2], extra.item.rotation)
    p.resetBasePositionAndOrientation(
        extra.body,
        to_bullet(x + dx, y + offset[1], z + dz),
        yaw_quaternion(extra.item.rotation),
        physicsClientId=client,
    )
