"""The TriFinger platform seen from above, for the transcript viewer: a pose per observation and a map.

Why a file of its own: the viewer draws a trajectory on a top-down map and knows no backend, so
each backend says where "the agent" is and what stands around it (``RawObservation.pose`` and
``Backend.world_map``). TriFinger has no body that walks; what moves across the floor is the
block the fingers push or carry, so the pose is block 0's centre on the floor (metres, arena
frame, the second axis drawn upwards) and its yaw as a compass heading. A task without blocks
(reaching) follows the fingertips' mean position instead. The map shows the arena's floor disc,
the goals (translucent), fixed obstacles and the blocks where the episode began.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agentkit.envs.trifinger.geometry import Cuboid, yaw_of
from agentkit.envs.trifinger.world import TriFingerWorld
from agentkit.observers import Pose, WorldMap, WorldShape

ARENA_RADIUS_M = 0.19  # the floor disc inside the stage's wall (as the prompts state it)
_BOUND = 0.2  # the drawing's half-width: the disc and a margin


def _hex(rgb: Any) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(max(0, min(255, round(float(c) * 255))) for c in list(rgb)[:3]))


def _compass(yaw_rad: float) -> float:
    """A yaw (counter-clockwise from +x, seen from above) as compass degrees (0 towards +y, clockwise)."""
    return round((90.0 - math.degrees(yaw_rad)) % 360.0, 1)


def top_down_pose(world: TriFingerWorld) -> Pose:
    """Where block 0 is (or the fingertips, without blocks), on the floor plane, for the viewer."""
    blocks = world.block_cuboids()
    if blocks:
        c = blocks[0]
        x, y = float(c.position[0]), float(c.position[1])
        return Pose(round(x, 4) + 0.0, round(y, 4) + 0.0, _compass(yaw_of(c.orientation)), label="block 0")
    tips = np.asarray(world.tips())
    x, y = float(tips[:, 0].mean()), float(tips[:, 1].mean())
    return Pose(round(x, 4) + 0.0, round(y, 4) + 0.0, None, label="fingertips")


def _rect(c: Cuboid, fill: str, label: str, opacity: float = 1.0) -> WorldShape:
    return WorldShape(
        "rect",
        round(float(c.position[0]), 4),
        round(float(c.position[1]), 4),
        w=round(float(c.size[0]), 4),
        h=round(float(c.size[1]), 4),
        # map angles are clockwise seen from above; a yaw is counter-clockwise
        angle=round(-math.degrees(yaw_of(c.orientation)), 2),
        fill=fill,
        opacity=opacity,
        label=label,
    )


def top_down_map(world: TriFingerWorld) -> WorldMap:
    """The ``Backend.world_map`` drawing of the episode as it began (floor disc, goals, obstacles, blocks)."""
    shapes: list[WorldShape] = [
        WorldShape("circle", 0.0, 0.0, r=ARENA_RADIUS_M, fill="#e9e6dc", label="arena floor")
    ]
    for i, (goal, c) in enumerate(zip(world.goal_specs, world.goal_cuboids())):
        shapes.append(_rect(c, _hex(goal.color), f"goal {i}", opacity=0.45))
    if world.scene is not None:
        for spec, c in zip(world.scene.obstacles, world.obstacle_cuboids()):
            shapes.append(_rect(c, "#555555", f"obstacle {spec.name}"))
        for i, tip in enumerate(world.scene.tip_goals):
            shapes.append(
                WorldShape(
                    "circle",
                    round(float(tip[0]), 4),
                    round(float(tip[1]), 4),
                    r=0.008,
                    fill="#2faa4a",
                    opacity=0.6,
                    label=f"fingertip target {i}",
                )
            )
    for i, (spec, c) in enumerate(zip(world.block_specs, world.block_cuboids())):
        shapes.append(_rect(c, _hex(spec.color), f"block {i} at the start", opacity=0.6))
    return WorldMap(-_BOUND, -_BOUND, _BOUND, _BOUND, True, tuple(shapes))
