"""Where CausalWorld's larger tasks put their blocks and goals by default (plain positions, no specs).

Why: stacked_blocks, creative_stacked_blocks, towers and general do not start from a hand-placed
scene but from a construction rule in their task generator; reproducing the rule (not a lookalike)
is what makes ``task@P0`` the task CausalWorld evaluates. Each function names its source. general's
goal is made by dropping blocks, so ``dropped_poses`` runs the world briefly (about a second).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]

#: TriFingerPro pose holding the fingertips 21 cm up, out of the blocks' way. CausalWorld raises its
#: TriFinger Edu for towers and general (robot/trifinger.py get_joint_positions_raised, action.py
#: joint_positions_raised = [-1.56, -0.08, -2.7] * 3) and its Edu rest pose already holds the tips
#: 32 cm up (trifinger.py get_rest_pose); TriFingerPro's rest pose keeps them at 7.9 cm, inside the
#: stacked tasks' blocks, so those start raised too.
RAISED_JOINTS: tuple[float, ...] = (0.0, 1.3, -2.6) * 3


@dataclass(frozen=True)
class WallLayout:
    """stacked_blocks.py / creative_stacked_blocks.py ``_set_up_stage_arena``."""

    block_positions: list[Vec3]  # where each block comes to rest
    goal_positions: list[Vec3]
    goal_levels: list[int]  # the level of each goal position
    side: float  # the cubes' side


def stacked_wall(levels: int, max_level_width: float, side: float = 0.035) -> WallLayout:
    """A wall of ``levels`` rows of int(max_level_width / side) cubes along x at y = 0; rows shift by
    +-5 mm alternately (change_per_level = 0.005, first row -5 mm). CausalWorld creates each row's
    blocks at the row's own height on alternating sides (rigid_block_side = 0.1, first row at
    y = -0.1), where they fall onto the earlier rows of that side; here they start where they land."""
    per_level = int(max_level_width / side)
    first_x = -(per_level * side) / 2 + side / 2
    blocks, goals, goal_levels = [], [], []
    shift = 0.005
    y_side = 0.1
    for level in range(levels):
        shift *= -1
        y_side *= -1
        height = side / 2 + level * side
        rest = side / 2 + (level // 2) * side  # rows on one side: levels 0, 2, 4 ... or 1, 3, 5 ...
        for i in range(per_level):
            x = first_x + shift + i * side
            blocks.append((x, y_side, rest))
            goals.append((x, 0.0, height))
            goal_levels.append(level)
    return WallLayout(blocks, goals, goal_levels, side)


def tower_start_positions(count: int, size: Vec3) -> list[Vec3]:
    """towers.py ``_set_up_cuboid``: blocks start on the diagonal from (-0.12, -0.12), one block
    plus 5 mm apart; past 0.12 the diagonal restarts half a block higher (CausalWorld's rule, whose
    restarted blocks overlap the first ones; towers tasks of more blocks are scattered instead)."""
    out = []
    position = np.array([-0.12, -0.12, size[2] / 2])
    for _ in range(count):
        out.append(tuple(float(v) for v in position))
        position[:2] += np.asarray(size[:2]) + 0.005
        if np.any(position[:2] > 0.12):
            position[:2] = -0.12
            position[2] += size[2] / 2
    return out


#: general.py default_drop_positions: where the goal's blocks are dropped from, in turn.
GENERAL_DROP_POSITIONS: tuple[Vec3, ...] = (
    (0.1, 0.1, 0.2), (0.0, 0.0, 0.2), (0.05, 0.05, 0.3), (-0.05, -0.05, 0.1),
    (-0.12, -0.12, 0.2), (-0.12, 0.12, 0.2), (0.12, -0.10, 0.3), (0.09, -0.08, 0.1),
)
#: general.py: each dropped block falls for forward_simulation(time=0.8) before the next.
DROP_TIME_S = 0.8


@functools.lru_cache(maxsize=64)
def dropped_poses(drops: tuple[tuple[Vec3, Quat], ...], side: float, mass: float) -> tuple[tuple[Vec3, Quat], ...]:
    """general.py ``_generate_goal_configuration_with_objects``: drop cubes one after the other
    (the fingers raised) and return where each comes to rest. Runs the world for 0.8 s per cube."""
    from agentkit.envs.trifinger.scene import BlockSpec, Scene
    from agentkit.envs.trifinger.world import TIME_STEP_S, TriFingerWorld

    world = TriFingerWorld()
    try:
        rested: list[tuple[Vec3, Quat]] = []
        for index, (position, orientation) in enumerate(drops):
            blocks = [BlockSpec(f"block{i}", (side,) * 3, p, q, mass) for i, (p, q) in enumerate([*rested, (position, orientation)])]
            world.build(Scene("general", "drop", blocks=blocks, joint_positions=RAISED_JOINTS))
            world.hold(list(RAISED_JOINTS), int(round(DROP_TIME_S / TIME_STEP_S)))
            rested = []
            for i in range(index + 1):
                pos, orn = world.block_pose(i)
                rested.append((tuple(float(v) for v in pos), tuple(float(v) for v in orn)))
        return tuple(rested)
    finally:
        world.close()
