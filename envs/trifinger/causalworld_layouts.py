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

from agentkit.envs.trifinger import causalworld_robot
from agentkit.envs.trifinger.geometry import Quat, Vec3, quat, vec3

#: CausalWorld raises its robot for towers and general (robot/trifinger.py get_joint_positions_raised).
RAISED_JOINTS = causalworld_robot.RAISED_JOINTS


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
    out: list[Vec3] = []
    position = np.array([-0.12, -0.12, size[2] / 2])
    for _ in range(count):
        out.append(vec3(position))
        position[:2] += np.asarray(size[:2]) + 0.005
        if np.any(position[:2] > 0.12):
            position[:2] = -0.12
            position[2] += size[2] / 2
    return out


#: general.py default_drop_positions: where the goal's blocks are dropped from, in turn.
GENERAL_DROP_POSITIONS: tuple[Vec3, ...] = (
    (0.1, 0.1, 0.2),
    (0.0, 0.0, 0.2),
    (0.05, 0.05, 0.3),
    (-0.05, -0.05, 0.1),
    (-0.12, -0.12, 0.2),
    (-0.12, 0.12, 0.2),
    (0.12, -0.10, 0.3),
    (0.09, -0.08, 0.1),
)
#: general.py: each dropped block falls for forward_simulation(time=0.8) before the next.
DROP_TIME_S = 0.8


@functools.lru_cache(maxsize=64)
def dropped_poses(
    drops: tuple[tuple[Vec3, Quat], ...], side: float, mass: float
) -> tuple[tuple[Vec3, Quat], ...]:
    """general.py ``_generate_goal_configuration_with_objects``: drop cubes one after the other
    (the fingers raised) and return where each comes to rest. Runs the world for 0.8 s per cube."""
    from agentkit.envs.trifinger.scene import BlockSpec, Scene
    from agentkit.envs.trifinger.world import TriFingerWorld

    world = TriFingerWorld()
    try:
        rested: list[tuple[Vec3, Quat]] = []
        for index, (position, orientation) in enumerate(drops):
            blocks = [
                BlockSpec(f"block{i}", (side,) * 3, p, q, mass)
                for i, (p, q) in enumerate([*rested, (position, orientation)])
            ]
            world.build(Scene("general", "drop", blocks=blocks, joint_positions=RAISED_JOINTS))
            world.hold_steps(
                RAISED_JOINTS, int(round(DROP_TIME_S * 250))
            )  # forward_simulation(0.8): 4-ms steps
            rested = []
            for i in range(index + 1):
                pos, orn = world.block_pose(i)
                rested.append((vec3(pos), quat(orn)))
        return tuple(rested)
    finally:
        world.close()


@dataclass(frozen=True)
class Pile:
    """stacked_blocks.py ``_create_new_challenge``: per level, (width, x centre) of its blocks; all
    blocks are ``side`` deep and high, and the whole pile stands at y = ``y``."""

    levels: list[list[tuple[float, float]]]
    side: float
    y: float


#: configs/world_constants.py ARENA_BB, x and y (the random pile's first block stays inside it).
_ARENA_XY = ((-0.15, -0.15), (0.15, 0.15))


def random_pile(rng: np.random.Generator, levels: int, side: float, max_level_width: float) -> Pile:
    """stacked_blocks.py ``_generate_random_target``: level by level one block of random width
    (side .. max_level_width, and no wider than twice its distance to the arena's x edge) centred
    at a random point inside the arena (shrunk by ``side``) and inside the block below; then three
    passes split every block wider than two sides in halves wherever the pile stays stable."""
    low = np.array(_ARENA_XY[0]) + side
    high = np.array(_ARENA_XY[1]) - side
    chosen: list[tuple[float, float]] = []
    y = 0.0
    for _ in range(levels):
        x, y = (float(v) for v in rng.uniform(low, high))
        widest = min(min(_ARENA_XY[1][0] - x, x - _ARENA_XY[0][0]) * 2, max_level_width)
        width = float(rng.uniform(side, max(side, widest)))
        chosen.append((width, x))
        # the next block's centre must lie over this one (its footprint: width along x, side along y)
        low = np.maximum(low, [x - width / 2, y - side / 2])
        high = np.minimum(high, [x + width / 2, y + side / 2])
    pile = [[block] for block in chosen]
    for _ in range(3):
        pile = _split_pass(pile, side)
    return Pile(pile, side, y)


def _split_pass(pile: list[list[tuple[float, float]]], side: float) -> list[list[tuple[float, float]]]:
    """stacked_blocks.py ``_generate_blocks_to_use``: halve each block wider than two sides when the
    levels up to it stay stable."""
    out = [list(level) for level in pile]
    for i, level in enumerate(pile):
        for j, (width, centre) in enumerate(level):
            if width <= 2 * side:
                continue
            half = width / 2
            trial = [list(lv) for lv in out[: i + 1]]
            trial[i][j] = (half, centre + width / 4)
            trial[i].append((width - half, centre - width / 4))
            if _stable(trial):
                out[: i + 1] = trial
    return out


def _stable(levels: list[list[tuple[float, float]]]) -> bool:
    """stacked_blocks.py ``_is_stable_structure``: every block's centre lies within the x extent of
    the level below (the first level: within -0.5 .. 0.5 m)."""
    below = (-0.5, 0.5)
    for level in levels:
        if any(not below[0] <= centre <= below[1] for _, centre in level):
            return False
        below = (min(c - w / 2 for w, c in level), max(c + w / 2 for w, c in level))
    return True
