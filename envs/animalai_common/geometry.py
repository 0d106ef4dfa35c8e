"""Oriented boxes in Animal-AI coordinates: the pieces items are made of, and whether two overlap.

Conventions (Animal-AI's, kept at every interface of the arena): x and z horizontal in [0, 40],
y up; an item's position is the centre of its base; ``rotation`` turns it clockwise seen from
above, so a local vector (a, b) on the (x, z) axes points to ``(a cos r + b sin r, -a sin r + b cos r)``
(local +z is the item's facing direction; rotation 90 faces +x).

Hollow items are split into the boxes they are made of, which the reference planner reads too
(``planning_shapes.py``): a tunnel (a half tube size.y / 2 high) is two side walls as thick as the tube
and a roof over its inner arch, which leaves the floor free; U and L shapes follow
Animal-AI's prefabs (``local_parts``), whose proportions do not follow the size axes one to one.

Ramps are wedges that rise towards their local -z: at rotation 180 a ramp climbs towards +z. This
is how Animal-AI's Ramp prefab is built (its mesh is turned 180 degrees inside the prefab), and the
Testbed's platforms sit on that side of their ramps (e.g. 03-16-01, 03-17-02, 03-30-01).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agentkit.envs.animalai_common.items import Shape

# CylinderTunnel: Materials/Prefabs/Cylinder.blend, a tube of radius 1.04 made 0.222 thick inwards
TUNNEL_INNER = (1.04 - 0.222) / 1.04
MIN_THICKNESS = 0.05
# U and L shapes, from Animal-AI v3.1.3's prefabs (``Assets/Prefabs/Moveable/UObject.prefab``,
# ``LObject.prefab``, ``LObject2.prefab``): the root is turned 90 degrees about y (``m_LocalRotation``
# y 0.7071) and scaled by the size times ``ratioSize`` (0.3, 1, 0.1); its BoxColliders, in the unscaled,
# unturned frame, are the bar (size (1, 1, 10) at the centre) and arms of size (3, 1, 1) at z = +-5.5
# (x = 1 for UObject and LObject, x = -1 for LObject2's single arm at z = -5.5). Turned into the item's
# frame that makes: a bar along local x, size.z long and 0.3 x size.x deep; arms 0.1 x size.z wide
# centred 0.55 x size.z from the middle (so the block is 1.2 x size.z long and a U's mouth 1.0 x size.z
# wide), reaching 0.15 x size.x forward (+z) and 0.75 x size.x back (-z); LObject2's arm sits at the
# -x end too, mirrored: 0.75 forward and 0.15 back. The fractions below are of size.z (lengths along
# the bar) and of size.x (depths across it).
HOLLOW_BAR_LENGTH = 1.0  # bar collider z 10 x ratio 0.1
HOLLOW_ARM_WIDTH = 0.1  # arm collider z 1 x ratio 0.1
HOLLOW_ARM_CENTRE = 0.55  # arm collider centre z 5.5 x ratio 0.1
HOLLOW_BAR_DEPTH = 0.3  # bar collider x 1 x ratio 0.3
HOLLOW_ARM_FRONT = 0.15  # arm collider x 3 centred at 1: x from -0.5 to 2.5, times 0.3 ...
HOLLOW_ARM_BACK = 0.75  # ... -0.15 and 0.75 of size.x, turned to local z: 0.15 forward, 0.75 back


@dataclass(frozen=True)
class LocalBox:
    """A box in an item's own frame: centre offset (ox, oz), vertical extent [y0, y1] above the base."""

    ox: float
    oz: float
    y0: float
    y1: float
    hx: float
    hz: float

    @property
    def half_height(self) -> float:
        return (self.y1 - self.y0) / 2


@dataclass(frozen=True)
class Box:
    """An oriented box in the arena: centre (cx, cz), bottom y0, top y1, half sizes, rotation."""

    cx: float
    cz: float
    y0: float
    y1: float
    hx: float
    hz: float
    rotation: float  # degrees, clockwise seen from above
    ramp: bool = False  # a wedge: top at y1 along its local -z edge, sloping down to y0 at local +z

    def axes(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """World directions of the local x and z axes."""
        r = math.radians(self.rotation)
        c, s = math.cos(r), math.sin(r)
        return (c, -s), (s, c)


def local_parts(shape: Shape, size: tuple[float, float, float]) -> list[LocalBox]:
    """The boxes an item of ``shape`` and ``size`` is built from, in its own frame."""
    sx, sy, sz = size
    whole = LocalBox(0.0, 0.0, 0.0, sy, sx / 2, sz / 2)
    if shape == "tunnel":
        # The half tube (``item_meshes.py``): outer radii size.x / 2 across and size.y / 2 up, the inner
        # ones TUNNEL_INNER of those; as boxes, two side walls as thick as the tube and a roof over the
        # inner arch's top.
        rx, ry = sx / 2, sy / 2
        t = max(rx * (1 - TUNNEL_INNER), MIN_THICKNESS)
        return [
            LocalBox(-(rx - t / 2), 0.0, 0.0, ry, t / 2, sz / 2),
            LocalBox(rx - t / 2, 0.0, 0.0, ry, t / 2, sz / 2),
            LocalBox(0.0, 0.0, ry * TUNNEL_INNER, ry, max(rx - t, MIN_THICKNESS / 2), sz / 2),
        ]
    if shape in ("u", "l_left", "l_right"):
        # Animal-AI's prefabs (see HOLLOW_*): a bar along local x centred on the item's position, arms
        # at its ends (both for U, -x for L and L2), the U opening to -z; LObject2's arm reaches forward.
        base = LocalBox(0.0, 0.0, 0.0, sy, sz * HOLLOW_BAR_LENGTH / 2, sx * HOLLOW_BAR_DEPTH / 2)
        arm_hx, arm_hz = sz * HOLLOW_ARM_WIDTH / 2, sx * (HOLLOW_ARM_FRONT + HOLLOW_ARM_BACK) / 2
        back_arm = sx * (HOLLOW_ARM_FRONT - HOLLOW_ARM_BACK) / 2
        arms = {
            "u": ((-1.0, back_arm), (1.0, back_arm)),
            "l_left": ((-1.0, back_arm),),  # LObject
            "l_right": ((-1.0, -back_arm),),  # LObject2: the same end, the arm mirrored forward
        }
        return [base] + [
            LocalBox(side * sz * HOLLOW_ARM_CENTRE, oz, 0.0, sy, arm_hx, arm_hz) for side, oz in arms[shape]
        ]
    if shape == "tree":
        return tree_parts(size)
    if shape == "button":
        return button_parts(size)
    return [whole]


# SpawnerTree's collider (Meshes-Models/custom_tree_inner_collision_mesh.fbx, for the tree model of
# items.TREE_SIZE): a trunk about 0.9 wide at the floor narrowing to 0.4 at 2.96, and an octahedron
# of radius 1.5 around (-0.1, 3.8, -0.1) for the crown (y 2.3..5.3). As boxes: the trunk 0.6 wide,
# the crown's middle 2 x 3 x 2; the agent passes under the crown.
TREE_TRUNK = (0.3, 2.96)  # half width, height
TREE_CROWN_CENTRE = (-0.1, 3.8, -0.1)
TREE_CROWN_RADIUS = 1.5


def tree_parts(size: tuple[float, float, float]) -> list[LocalBox]:
    k = size[1] / 5.952  # built size / model size (0.999 unless the model is ever scaled)
    half, height = TREE_TRUNK
    cx, cy, cz = TREE_CROWN_CENTRE
    r = TREE_CROWN_RADIUS
    return [
        LocalBox(0.0, 0.0, 0.0, height * k, half * k, half * k),
        LocalBox(cx * k, cz * k, (cy - r) * k, (cy + r) * k, r * k * 2 / 3, r * k * 2 / 3),
    ]


# Pillar-Button (Modular-Pieces/Pillar-Button.prefab, meshes pillar3.fbx and cube6.fbx at the root
# scale 39.96 mesh units, turned -90 degrees about x): a pillar on the item's position corner, a
# panel on its -x side and the blue button on the panel, facing -x. In the item's frame (x, z):
# pillar x 0..0.4, z 0..0.4, y 0..1.6; panel x -0.11..0.09, z -0.09..0.5, y 0.59..1.09; button
# x -0.187..-0.107, z 0.046..0.362, y 0.685..1.0 (it moves 0.09 along +x when pressed,
# ``moveOffset``). The press trigger (Cube-Trigger, a BoxCollider) is the slab in front of the button:
# x -0.375..-0.202, z -0.162..0.570, y 0.272..1.004 (buttons.BUTTON_TRIGGER).
BUTTON_PILLAR = (0.0, 0.4, 0.0, 0.4, 0.0, 1.598)  # x0, x1, z0, z1, y0, y1
BUTTON_PANEL = (-0.1095, 0.0903, -0.0899, 0.4975, 0.592, 1.094)
BUTTON_FACE = (-0.1866, -0.1075, 0.046, 0.362, 0.685, 1.001)
BUTTON_TRIGGER = (-0.375, -0.202, -0.162, 0.570, 0.272, 1.004)


def _span_box(span: tuple[float, float, float, float, float, float], k: float = 1.0) -> LocalBox:
    x0, x1, z0, z1, y0, y1 = (v * k for v in span)
    return LocalBox((x0 + x1) / 2, (z0 + z1) / 2, y0, y1, (x1 - x0) / 2, (z1 - z0) / 2)


def button_parts(size: tuple[float, float, float]) -> list[LocalBox]:
    k = size[1] / 1.598
    return [_span_box(BUTTON_PILLAR, k), _span_box(BUTTON_PANEL, k), _span_box(BUTTON_FACE, k)]


def footprint_size(shape: Shape, size: tuple[float, float, float]) -> tuple[float, float, float]:
    """The extent (x, y, z) of the box Animal-AI tests for free space, centred on the item's position.

    It is the item's size except for U and L shapes: the collider bounds of the turned prefab
    (``GetBoundsWithChildren`` before the file's rotation is applied), whose bars run along local x
    (size.z plus the arms: 1.2 x size.z for a U, 1.1 x size.z for an L) and whose arms along local z
    (0.9 x size.x). Animal-AI centres this box on the item's position although the arms reach further
    one way than the other; so does the layout.
    """
    sx, sy, sz = size
    if shape == "tunnel":  # the arch stands size.y / 2 high (its renderer bounds, which Unity tests)
        return (sx, sy / 2, sz)
    if shape in ("u", "l_left", "l_right"):
        outer_end = HOLLOW_ARM_CENTRE + HOLLOW_ARM_WIDTH / 2  # an arm's far side, from the middle
        other_end = outer_end if shape == "u" else HOLLOW_BAR_LENGTH / 2  # an L's bare bar end
        return (sz * (outer_end + other_end), sy, sx * (HOLLOW_ARM_FRONT + HOLLOW_ARM_BACK))
    return size


def is_wedge(shape: Shape) -> bool:
    return shape == "ramp"


def to_world(a: float, b: float, rotation: float) -> tuple[float, float]:
    """A local horizontal offset (a, b) turned by ``rotation`` degrees (clockwise from above)."""
    r = math.radians(rotation)
    c, s = math.cos(r), math.sin(r)
    return a * c + b * s, -a * s + b * c


def world_boxes(
    shape: Shape, position: tuple[float, float, float], size: tuple[float, float, float], rotation: float
) -> list[Box]:
    """The item's parts placed in the arena (position = centre of the base)."""
    x, y, z = position
    boxes = []
    for part in local_parts(shape, size):
        dx, dz = to_world(part.ox, part.oz, rotation)
        boxes.append(
            Box(x + dx, z + dz, y + part.y0, y + part.y1, part.hx, part.hz, rotation, is_wedge(shape))
        )
    return boxes


def bounding_box(
    position: tuple[float, float, float], size: tuple[float, float, float], rotation: float
) -> Box:
    """The whole item as one box (what Animal-AI tests for free space when it spawns an item)."""
    x, y, z = position
    return Box(x, z, y, y + size[1], size[0] / 2, size[2] / 2, rotation)


def boxes_overlap(a: Box, b: Box, tolerance: float = 0.01) -> bool:
    """True when the boxes share a volume deeper than ``tolerance`` (touching faces do not count).

    Why a tolerance: arena files put items exactly side by side (a platform's top is the next item's
    base); Animal-AI shrinks sizes by 0.1% for the same reason.
    """
    if min(a.y1, b.y1) - max(a.y0, b.y0) <= tolerance:
        return False
    if not _footprints_overlap(a, b, tolerance):
        return False
    if a.ramp or b.ramp:
        wedge, other = (a, b) if a.ramp else (b, a)
        return _wedge_overlaps(wedge, other, tolerance)
    return True


def _footprints_overlap(a: Box, b: Box, tolerance: float) -> bool:
    """Separating-axis test of the two oriented rectangles seen from above."""
    dx, dz = b.cx - a.cx, b.cz - a.cz
    a_axes, b_axes = a.axes(), b.axes()
    for ax, az in (*a_axes, *b_axes):
        distance = abs(dx * ax + dz * az)
        ra = a.hx * abs(a_axes[0][0] * ax + a_axes[0][1] * az) + a.hz * abs(
            a_axes[1][0] * ax + a_axes[1][1] * az
        )
        rb = b.hx * abs(b_axes[0][0] * ax + b_axes[0][1] * az) + b.hz * abs(
            b_axes[1][0] * ax + b_axes[1][1] * az
        )
        if distance >= ra + rb - tolerance:
            return False
    return True


def _to_local(box: Box, x: float, z: float) -> tuple[float, float]:
    r = math.radians(box.rotation)
    c, s = math.cos(r), math.sin(r)
    dx, dz = x - box.cx, z - box.cz
    return dx * c - dz * s, dx * s + dz * c  # inverse of to_world


def _corners(box: Box) -> list[tuple[float, float]]:
    corners = []
    for a, b in ((-box.hx, -box.hz), (box.hx, -box.hz), (box.hx, box.hz), (-box.hx, box.hz)):
        dx, dz = to_world(a, b, box.rotation)
        corners.append((box.cx + dx, box.cz + dz))
    return corners


def _clip(
    polygon: list[tuple[float, float]], axis: int, limit: float, sign: float
) -> list[tuple[float, float]]:
    """Sutherland-Hodgman: keep the part of ``polygon`` where ``sign * p[axis] <= limit``."""
    kept: list[tuple[float, float]] = []
    for i, current in enumerate(polygon):
        previous = polygon[i - 1]
        inside_c = sign * current[axis] <= limit
        inside_p = sign * previous[axis] <= limit
        if inside_c != inside_p:
            t = (limit - sign * previous[axis]) / (sign * (current[axis] - previous[axis]))
            kept.append(
                (previous[0] + t * (current[0] - previous[0]), previous[1] + t * (current[1] - previous[1]))
            )
        if inside_c:
            kept.append(current)
    return kept


def _wedge_overlaps(wedge: Box, other: Box, tolerance: float) -> bool:
    """Does ``other`` reach below the wedge's sloped top somewhere over their common footprint?"""
    polygon = [_to_local(wedge, x, z) for x, z in _corners(other)]
    for axis, half in ((0, wedge.hx), (1, wedge.hz)):
        polygon = _clip(polygon, axis, half, 1.0)
        polygon = _clip(polygon, axis, half, -1.0)
        if not polygon:
            return False
    lowest_z = min(p[1] for p in polygon)  # the wedge is highest at its local -z edge
    height = (
        wedge.y0 + (wedge.y1 - wedge.y0) * (wedge.hz - lowest_z) / (2 * wedge.hz)
        if wedge.hz > 0
        else wedge.y1
    )
    return min(height, other.y1) - max(wedge.y0, other.y0) > tolerance


def sphere_box_distance(centre: tuple[float, float, float], box: Box) -> float:
    """Distance from a point to the box (0 inside), e.g. the agent's centre to a zone."""
    x, y, z = centre
    lx, lz = _to_local(box, x, z)
    ex = max(abs(lx) - box.hx, 0.0)
    ez = max(abs(lz) - box.hz, 0.0)
    ey = max(box.y0 - y, y - box.y1, 0.0)
    return math.sqrt(ex * ex + ey * ey + ez * ez)
