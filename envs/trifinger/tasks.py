"""Task generators with CausalWorld's defaults, one function per task family.

``generate(task, seed)`` samples a scene from the task's training space (CausalWorld's space A:
block and goal centres within 0.11 m of the arena centre, any yaw); ``default_scene(task)`` is
CausalWorld's fixed default configuration (what its protocol P0 evaluates), built by its task
generator's rule (``causalworld_layouts`` for the walls, towers and general's dropped goal). Blocks
are 6.5 cm cubes of 20 g unless the family says otherwise; goals are translucent copies of the
blocks' shapes. Every sampled scene is checked (no block inside another, the wall or the robot).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agentkit.envs.base import TaskInfo
from agentkit.envs.trifinger.causalworld_layouts import (
    GENERAL_DROP_POSITIONS,
    RAISED_JOINTS,
    dropped_poses,
    random_pile,
    stacked_wall,
    tower_start_positions,
)
from agentkit.envs.trifinger.geometry import euler_quaternion, vec3, yaw_quaternion
from agentkit.envs.trifinger.scene import REST_JOINTS, BlockSpec, GoalSpec, Scene, Vec3

CUBE = 0.065  # envs/scene/objects.py Cuboid size default [0.065] * 3 (silhouette.py SCuboid: the same)
BLOCK_MASS = 0.02  # pushing.py / picking.py / pick_and_place.py / stacking2.py tool_block_mass
PALETTE: tuple[tuple[str, Vec3], ...] = (
    ("red", (0.9, 0.1, 0.1)),
    ("green", (0.1, 0.8, 0.2)),
    ("blue", (0.15, 0.3, 0.95)),
    ("yellow", (0.95, 0.85, 0.1)),
    ("orange", (1.0, 0.5, 0.0)),
    ("purple", (0.6, 0.2, 0.8)),
    ("cyan", (0.1, 0.85, 0.85)),
    ("white", (0.95, 0.95, 0.95)),
)
GOAL_COLOR: Vec3 = (0.2, 0.9, 0.3)
WALL_SIZE: Vec3 = (0.5, 0.015, 0.065)  # pick_and_place.py 'obstacle' size, across the arena at y = 0
WALL_COLOR: Vec3 = (0.0, 0.0, 0.0)  # pick_and_place.py 'obstacle' color


def colour_name(color: Vec3) -> str:
    """The palette name nearest to an RGB colour (for descriptions)."""
    return min(PALETTE, key=lambda item: sum((a - b) ** 2 for a, b in zip(item[1], color)))[0]


def _cube(
    name: str,
    index: int,
    xy: tuple[float, float],
    yaw: float = 0.0,
    size: float = CUBE,
    mass: float = BLOCK_MASS,
    z: float | None = None,
) -> BlockSpec:
    return BlockSpec(
        name,
        (size, size, size),
        (xy[0], xy[1], size / 2 if z is None else z),
        yaw_quaternion(yaw),
        mass,
        PALETTE[index % len(PALETTE)][1],
    )


def _goal(name: str, size: Vec3, position: Vec3, yaw: float = 0.0) -> GoalSpec:
    return GoalSpec(name, size, position, yaw_quaternion(yaw), GOAL_COLOR)


def _polar(
    rng: np.random.Generator, r: tuple[float, float], angle: tuple[float, float] = (-math.pi, math.pi)
) -> tuple[float, float]:
    """A point uniform in area of the annulus sector ``r`` x ``angle``."""
    radius = math.sqrt(rng.uniform(r[0] ** 2, r[1] ** 2))
    theta = rng.uniform(*angle)
    return (radius * math.cos(theta), radius * math.sin(theta))


def _free_spots(
    rng: np.random.Generator,
    count: int,
    clearance: float,
    taken: list[tuple[float, float]],
    r: tuple[float, float] = (0.0, 0.11),
) -> list[tuple[float, float]]:
    """``count`` points of the space-A disc at least ``clearance`` from each other and from ``taken``."""
    spots: list[tuple[float, float]] = []
    for _ in range(2000):
        if len(spots) == count:
            return spots
        p = _polar(rng, r)
        if all(math.dist(p, q) >= clearance for q in [*taken, *spots]):
            spots.append(p)
    raise RuntimeError(f"could not place {count} blocks {clearance} m apart")


# ----------------------------------------------------------------------------------- families


def pushing(rng: np.random.Generator | None) -> Scene:
    """Push one cube onto a goal cube on the floor. Default: block at (0, -0.08), goal at (0, 0.08)."""
    if (
        rng is None
    ):  # pushing.py tool_block_position (0, -0.08, 0.0325), goal_block_position (0, 0.08, 0.0325)
        block_xy, goal_xy, yaws = (0.0, -0.08), (0.0, 0.08), (0.0, 0.0)
    else:
        block_xy, goal_xy = _free_spots(rng, 2, 0.08, [])
        yaws = (rng.uniform(-math.pi, math.pi), rng.uniform(-math.pi, math.pi))
    return Scene(
        "pushing",
        "Move the red cube so that it fills the green goal cube on the floor.",
        blocks=[_cube("block0", 0, block_xy, yaws[0])],
        goals=[_goal("goal0", (CUBE,) * 3, (goal_xy[0], goal_xy[1], CUBE / 2), yaws[1])],
        time_limit_s=15.0,
    )


def picking(rng: np.random.Generator | None) -> Scene:
    """Lift a cube to a goal straight above its start. Default: block at the centre, goal at 0.15 m."""
    if rng is None:  # picking.py tool_block_position (0, 0, 0.0325), goal_height 0.15
        xy, yaw, height = (0.0, 0.0), 0.0, 0.15
    else:
        (xy,) = _free_spots(rng, 1, 0.0, [], (0.0, 0.09))
        yaw, height = rng.uniform(-math.pi, math.pi), rng.uniform(0.08, 0.15)
    return Scene(
        "picking",
        "Lift the red cube into the green goal cube hanging in the air above it.",
        blocks=[_cube("block0", 0, xy, yaw)],
        goals=[_goal("goal0", (CUBE,) * 3, (xy[0], xy[1], height), yaw)],
        time_limit_s=15.0,
    )


def pick_and_place(rng: np.random.Generator | None) -> Scene:
    """Carry a cube over a fixed wall (0.5 x 0.015 x 0.065 m across y = 0) onto the goal beyond it.

    Default: block at (0, -0.09), goal at (0, 0.09). Space A puts the block at radius 0.07-0.12 on
    one side (angle 30-150 degrees) and the goal on the other (-150 to -30 degrees).
    """
    if (
        rng is None
    ):  # pick_and_place.py tool_block_position (0, -0.09, 0.0325), goal_block_position (0, 0.09, 0.0325)
        block_xy, goal_xy, yaws = (0.0, -0.09), (0.0, 0.09), (0.0, 0.0)
    else:
        block_xy = _polar(rng, (0.07, 0.12), (math.pi / 6, 5 * math.pi / 6))
        goal_xy = _polar(rng, (0.07, 0.12), (-5 * math.pi / 6, -math.pi / 6))
        yaws = (rng.uniform(-math.pi, math.pi), rng.uniform(-math.pi, math.pi))
    wall = BlockSpec("wall", WALL_SIZE, (0.0, 0.0, WALL_SIZE[2] / 2), color=WALL_COLOR, mass=0.0, static=True)
    return Scene(
        "pick_and_place",
        "Pick up the red cube, carry it over the black wall and place it in the green goal cube.",
        blocks=[_cube("block0", 0, block_xy, yaws[0])],
        goals=[_goal("goal0", (CUBE,) * 3, (goal_xy[0], goal_xy[1], CUBE / 2), yaws[1])],
        obstacles=[wall],
        time_limit_s=20.0,
    )


def stacking2(rng: np.random.Generator | None) -> Scene:
    """Build a tower of two cubes. Default: blocks at (0, 0) and (0.01, 0.08), tower at (-0.06, -0.06)."""
    if (
        rng is None
    ):  # stacking2.py tool_block_1/2_position (0, 0) and (0.01, 0.08), goal_position (-0.06, -0.06)
        b1, b2, goal_xy, yaws = (0.0, 0.0), (0.01, 0.08), (-0.06, -0.06), (0.0, 0.0, 0.0)
    else:
        goal_xy, b1, b2 = _free_spots(rng, 3, 0.095, [])
        yaws = vec3(rng.uniform(-math.pi, math.pi) for _ in range(3))
    goal_yaw = yaws[2]
    return Scene(
        "stacking2",
        "Stack the two cubes into the green two-cube tower.",
        blocks=[_cube("block0", 0, b1, yaws[0]), _cube("block1", 2, b2, yaws[1])],
        goals=[
            _goal("goal0", (CUBE,) * 3, (goal_xy[0], goal_xy[1], CUBE / 2), goal_yaw),
            _goal("goal1", (CUBE,) * 3, (goal_xy[0], goal_xy[1], 1.5 * CUBE), goal_yaw),
        ],
        time_limit_s=30.0,
    )


def towers(rng: np.random.Generator | None) -> Scene:
    """Build a tower of nx x ny x nz blocks. Default: 1 x 1 x 5 blocks, tower 0.035 x 0.035 x 0.175 m
    at the centre, 80 g each. Space A: 1-3 blocks per axis, tower 0.08-0.12 m per side, centre in
    [-0.1, 0.05]^2, 20-60 g."""
    if rng is None:
        counts, dims, centre, mass = (1, 1, 5), (0.035, 0.035, 0.175), (0.0, 0.0), 0.08
    else:
        nx, ny, nz = (int(rng.integers(1, 4)) for _ in range(3))
        counts = (nx, ny, nz)
        dims = vec3(rng.uniform(0.08, 0.12, size=3))
        cx, cy = (float(v) for v in rng.uniform(-0.1, 0.05, size=2))
        centre = (cx, cy)
        mass = float(rng.uniform(0.02, 0.06))
    # towers.py defaults: tool_block_mass 0.08, number_of_blocks_in_tower (1, 1, 5), tower_dims
    # (0.035, 0.035, 0.175), tower_center (0, 0); space A as task_spaces lists it.
    size = vec3(d / n for d, n in zip(dims, counts))
    goals: list[GoalSpec] = []
    for level in range(counts[2]):
        for col in range(counts[1]):
            for row in range(counts[0]):
                position = (
                    centre[0] - dims[0] / 2 + (row + 0.5) * size[0],
                    centre[1] - dims[1] / 2 + (col + 0.5) * size[1],
                    (level + 0.5) * size[2],
                )
                goals.append(_goal(f"goal{len(goals)}", size, position))
    # towers.py _set_up_cuboid: blocks on the diagonal from (-0.12, -0.12); when the diagonal would
    # restart (CausalWorld then overlaps blocks), they are scattered on the floor instead
    starts = tower_start_positions(len(goals), size)
    if all(p[2] == size[2] / 2 for p in starts):
        blocks = [
            BlockSpec(f"block{i}", size, p, yaw_quaternion(0.0), mass, PALETTE[i % len(PALETTE)][1])
            for i, p in enumerate(starts)
        ]
    else:
        blocks = _scatter(rng or np.random.default_rng(0), len(goals), size, mass, goals)
    return Scene(
        "towers",
        f"Build the green tower of {len(goals)} blocks.",
        blocks=blocks,
        goals=goals,
        joint_positions=RAISED_JOINTS,
        time_limit_s=60.0,
    )


def _scatter(
    rng: np.random.Generator, count: int, size: Vec3, mass: float, goals: list[GoalSpec]
) -> list[BlockSpec]:
    """``count`` blocks of ``size`` on free floor spots away from the goal footprint, stacked in
    columns when the floor runs out (a tower task of 27 blocks does not fit side by side)."""
    footprint = math.hypot(size[0], size[1]) + 0.005
    taken = [(g.position[0], g.position[1]) for g in goals if g.position[2] < size[2]]
    spots: list[tuple[float, float]] = []
    for _ in range(600):
        if len(spots) == count:
            break
        p = _polar(rng, (0.0, 0.13))
        if all(math.dist(p, q) >= footprint for q in [*taken, *spots]):
            spots.append(p)
    if not spots or len(spots) * 6 < count:
        raise RuntimeError(f"could not scatter {count} blocks of {size}")
    blocks: list[BlockSpec] = []
    for i in range(count):
        x, y = spots[i % len(spots)]
        layer = i // len(spots)
        blocks.append(
            BlockSpec(
                f"block{i}",
                size,
                (x, y, size[2] * (layer + 0.5)),
                yaw_quaternion(0.0),
                mass,
                PALETTE[i % len(PALETTE)][1],
            )
        )
    return blocks


def stacked_blocks(rng: np.random.Generator | None) -> Scene:
    """Rebuild a wall of blocks. Default (stacked_blocks.py): 5 levels of 7 cubes of 3.5 cm, 80 g;
    sampled: its random pile from space A (1-4 levels, blocks 3.5-6.5 cm high, levels up to 0.12 m wide)."""
    return _stacked("stacked_blocks", rng, creative=False)


def creative_stacked_blocks(rng: np.random.Generator | None) -> Scene:
    """As stacked_blocks, but only the first and last level of the goal are shown (and scored): the
    blocks in between are the agent's to choose. Default (creative_stacked_blocks.py): 8 levels of 3
    cubes of 3.5 cm, 80 g; sampled: 3-4 levels."""
    return _stacked("creative_stacked_blocks", rng, creative=True)


#: stacked_blocks.py / creative_stacked_blocks.py defaults: (num_of_levels, max_level_width);
#: both: blocks_min_size 0.035, tool_block_mass 0.08.
STACKED_DEFAULTS = {"stacked_blocks": (5, 0.25), "creative_stacked_blocks": (8, 0.12)}
STACKED_MASS = 0.08


def _stacked(task: str, rng: np.random.Generator | None, creative: bool) -> Scene:
    if rng is None:
        levels, width = STACKED_DEFAULTS[task]
        wall = stacked_wall(levels, width)
        cube = (wall.side,) * 3
        blocks = [
            BlockSpec(f"block{i}", cube, p, yaw_quaternion(0.0), STACKED_MASS, PALETTE[i % len(PALETTE)][1])
            for i, p in enumerate(wall.block_positions)
        ]
        shown = [
            p
            for p, level in zip(wall.goal_positions, wall.goal_levels)
            if not creative or level in (0, levels - 1)
        ]
        goals = [_goal(f"goal{i}", cube, p) for i, p in enumerate(shown)]
        count = len(wall.block_positions)
    else:
        # space A of stacked_blocks.py (creative: stack_levels 3-5), drawn as its sample_new_goal
        # does (uniform; the level count is cut to an integer), then _create_new_challenge
        levels = int(rng.uniform(3, 5)) if creative else int(rng.uniform(1, 5))
        side = float(rng.uniform(0.035, 0.065))
        width = float(rng.uniform(0.035, 0.12))
        mass = float(rng.uniform(0.02, 0.06))
        pile = random_pile(rng, levels, side, width)
        blocks, goals = [], []
        for level, row in enumerate(pile.levels):
            for block_width, x in row:
                size = (block_width, side, side)
                blocks.append(_placed_block(rng, f"block{len(blocks)}", size, mass, blocks))
                if not creative or level in (0, len(pile.levels) - 1):
                    goals.append(_goal(f"goal{len(goals)}", size, (x, pile.y, (level + 1) * side - side / 2)))
        count = len(blocks)
    what = (
        "whose first and last levels are shown in green; fill the levels between"
        if creative
        else "shown in green"
    )
    return Scene(
        task,
        f"Rebuild the pile of {count} blocks {what}.",
        blocks=blocks,
        goals=goals,
        joint_positions=REST_JOINTS,  # stacked_blocks.py sets none: the rest pose
        time_limit_s=45.0,
    )


def _placed_block(
    rng: np.random.Generator, name: str, size: Vec3, mass: float, placed: list[BlockSpec]
) -> BlockSpec:
    """stacked_blocks.py _create_new_challenge: a block at a random place of the arena disc (radius
    0-0.15 m) resting on the floor with a random yaw; while it overlaps an earlier block, up to 10
    more tries at random heights up to 0.15 m (it then falls)."""
    from agentkit.envs.trifinger.sampling import block_problems

    block = None
    for trial in range(11):
        r, theta = math.sqrt(rng.uniform(0.0, 0.15**2)), rng.uniform(-math.pi, math.pi)
        z = size[2] / 2 if trial == 0 else float(rng.uniform(size[2] / 2, 0.15))
        block = BlockSpec(
            name,
            size,
            (r * math.cos(theta), r * math.sin(theta), z),
            yaw_quaternion(float(rng.uniform(-math.pi, math.pi))),
            mass,
            PALETTE[len(placed) % len(PALETTE)][1],
        )
        if not block_problems(Scene("stacked", "", blocks=[*placed, block])):
            break
    assert block is not None  # the loop above runs at least once
    return block


#: general.py defaults: nums_objects 5, tool_block_size 0.05, tool_block_mass 0.08.
GENERAL_DEFAULT = (5, 0.05, 0.08)


def general(rng: np.random.Generator | None) -> Scene:
    """Rebuild a goal configuration made by dropping the same cubes. Default (general.py): 5 cubes of
    5 cm, 80 g, dropped from its fixed drop positions; sampled: 1-4 cubes of 5-7 cm, 20-60 g, dropped
    from random points of the arena box with random orientations. The blocks start at random
    places up to 15 cm high (they fall), as general.py puts them."""
    if rng is None:
        count, side, mass = GENERAL_DEFAULT
        drops = tuple(
            (GENERAL_DROP_POSITIONS[i % len(GENERAL_DROP_POSITIONS)], (0.0, 0.0, 0.0, 1.0))
            for i in range(count)
        )
        local = np.random.default_rng(0)
    else:
        # general.py sample_new_goal over space A: randint(1, 5) objects, size and mass uniform
        count, side, mass = (
            int(rng.integers(1, 5)),
            float(rng.uniform(0.05, 0.07)),
            float(rng.uniform(0.02, 0.06)),
        )
        # general.py: drop points uniform in the arena box shrunk by 4 cm at the sides and 8 cm on top
        low, high = np.array([-0.11, -0.11, 0.0]), np.array([0.11, 0.11, 0.22])
        drops = tuple(
            (vec3(rng.uniform(low, high)), euler_quaternion(rng.uniform(0, 2 * math.pi, 3)))
            for _ in range(count)
        )
        local = rng
    rested = dropped_poses(drops, side, mass)
    goals = [GoalSpec(f"goal{i}", (side,) * 3, pos, orn, GOAL_COLOR) for i, (pos, orn) in enumerate(rested)]
    from agentkit.envs.trifinger.sampling import block_problems

    blocks: list[BlockSpec] = []
    for i in range(count):
        # general.py: random_position(height_limits=[size / 2, 0.15]) and a random yaw, drawn again
        # (up to 10 trials) while the stage is infeasible
        for _trial in range(10):
            r, theta = math.sqrt(local.uniform(0.0, 0.15**2)), local.uniform(-math.pi, math.pi)
            z = float(local.uniform(side / 2, 0.15))
            block = BlockSpec(
                f"block{i}",
                (side,) * 3,
                (r * math.cos(theta), r * math.sin(theta), z),
                yaw_quaternion(float(local.uniform(-math.pi, math.pi))),
                mass,
                PALETTE[i % len(PALETTE)][1],
            )
            if not block_problems(Scene("general", "", blocks=[*blocks, block])):
                break
        blocks.append(block)
    return Scene(
        "general",
        f"Arrange the {count} cubes into the green goal configuration.",
        blocks=blocks,
        goals=goals,
        joint_positions=RAISED_JOINTS,
        time_limit_s=60.0,
    )


#: reaching.py default_goal_60, default_goal_120, default_goal_300 (one per finger, in finger order).
REACHING_DEFAULT_TARGETS: tuple[Vec3, ...] = ((0.0, 0.0, 0.10), (0.0, 0.0, 0.13), (0.0, 0.0, 0.16))
#: Finger base directions seen from above (the azimuth of each fingertip at rest).
FINGER_AZIMUTHS = (math.radians(35.0), math.radians(-85.0), math.radians(155.0))


def reaching(rng: np.random.Generator | None) -> Scene:
    """Put each fingertip on its target point (no blocks). Default (reaching.py default_goal_60/120/300):
    the three targets on the arena's axis at 10, 13 and 16 cm; sampled: 5-10 cm out in each finger's
    direction, 30 degrees either side, 5-15 cm up (P5/P12 draw from CausalWorld's spaces instead)."""
    if rng is None:
        return Scene(
            "reaching",
            "Move the three fingertips onto their three target points.",
            tip_goals=list(REACHING_DEFAULT_TARGETS),
            joint_positions=REST_JOINTS,
            time_limit_s=5.0,
        )
    tips = []
    for azimuth in FINGER_AZIMUTHS:
        r, a, z = rng.uniform(0.05, 0.10), azimuth + rng.uniform(-0.5, 0.5), rng.uniform(0.05, 0.15)
        tips.append((r * math.cos(a), r * math.sin(a), z))
    return Scene(
        "reaching",
        "Move the three fingertips onto their three target points.",
        tip_goals=tips,
        joint_positions=REST_JOINTS,
        time_limit_s=5.0,
    )


@dataclass(frozen=True)
class TaskFamily:
    info: TaskInfo
    make: Callable[[np.random.Generator | None], Scene]


def _first_sentence(doc: str | None) -> str:
    text = " ".join((doc or "").split())
    return text.split(". ")[0].rstrip(".") + "."


FAMILIES: dict[str, TaskFamily] = {
    f.__name__: TaskFamily(TaskInfo(f.__name__, _first_sentence(f.__doc__), "causalworld"), f)
    for f in (
        pushing,
        picking,
        pick_and_place,
        stacking2,
        towers,
        stacked_blocks,
        creative_stacked_blocks,
        general,
        reaching,
    )
}


def task_infos() -> list[TaskInfo]:
    return [f.info for f in FAMILIES.values()]


def family(task: str) -> TaskFamily:
    try:
        return FAMILIES[task]
    except KeyError:
        raise ValueError(f"unknown trifinger task {task!r}; known: {', '.join(FAMILIES)}") from None


#: How many samples generate() draws before giving up on a seed (each one is checked: no block
#: inside another, the wall or the robot; goals in the arena).
GENERATE_ATTEMPTS = 20


def generate(task: str, seed: int, profile: str = "causalworld") -> Scene:
    """A scene of ``task`` sampled from its training space; the same seed always gives the same scene.
    The robot starts in ``profile``'s start pose (``start_pose``: raised under causalworld).

    An ill-posed sample (see ``sampling.scene_problems``) is drawn again from the same generator;
    after GENERATE_ATTEMPTS a ValueError names the task, the seed and the reason."""
    from agentkit.envs.trifinger.sampling import scene_problems
    from agentkit.envs.trifinger.start_pose import with_start_pose

    make = family(task).make
    rng = np.random.default_rng(seed)
    problems: list[str] = []
    for _ in range(GENERATE_ATTEMPTS):
        scene = with_start_pose(make(rng), profile)
        problems = scene_problems(scene)
        if not problems:
            return scene
    raise ValueError(
        f"trifinger {task} seed {seed}: no well-posed scene in {GENERATE_ATTEMPTS} samples; "
        f"the last was refused because {'; '.join(problems)}"
    )


def default_scene(task: str) -> Scene:
    """CausalWorld's fixed default configuration of ``task``."""
    return family(task).make(None)
