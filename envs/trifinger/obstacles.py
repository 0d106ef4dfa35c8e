"""CausalWorld's ``number_of_obstacles``: small fixed cubes placed at random in the arena.

Why: reaching and creative_stacked_blocks list ``number_of_obstacles`` among their task variables
(space A and B: 1-5), and a variable that is listed must change the scene or be refused, never be
ignored. CausalWorld's task generators (``task_generators/reaching.py`` and
``creative_stacked_blocks.py``, ``apply_task_generator_interventions``) add, for each obstacle
above the current count, a ``static_cube`` named ``obstacle_<i>`` of 1 cm, black, at a position
drawn uniformly in the stage box ``ARENA_BB`` ((-0.15, -0.15, 0)..(0.15, 0.15, 0.3) m), so most
of them hang in the air where the fingers move. The count is cut to an integer (``int(value)``);
a count at or below the current one leaves the obstacles as they are. Other tasks have no such
variable.

Unlike CausalWorld (which checks nothing when it adds them), a cube drawn into the robot, the
floor, the arena wall or a block is drawn again (``ATTEMPTS`` times per cube, then one clear
error), so every episode starts from a well-posed scene.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from agentkit.envs.trifinger.geometry import vec3
from agentkit.envs.trifinger.scene import BlockSpec, Scene

#: Tasks whose generator defines number_of_obstacles, with its range (the same in spaces A and B).
OBSTACLE_TASKS: dict[str, tuple[int, int]] = {"reaching": (1, 5), "creative_stacked_blocks": (1, 5)}
MAX_OBSTACLES = 5
#: Sub-stream of an episode's seed the backend option draws its cube places from.
OBSTACLE_STREAM = 17
#: reaching.py / creative_stacked_blocks.py: ``size=np.array([0.01, 0.01, 0.01])``, ``color=[0, 0, 0]``.
OBSTACLE_SIDE = 0.01
OBSTACLE_COLOR = (0.0, 0.0, 0.0)
#: configs/world_constants.py ARENA_BB (the same box as ``sampling.ARENA_BB``).
ARENA_BB = ((-0.15, -0.15, 0.0), (0.15, 0.15, 0.3))
ATTEMPTS = 50
PREFIX = "obstacle_"


class ObstacleError(ValueError):
    """number_of_obstacles cannot be applied (wrong task, bad count, or no free place)."""


def check_count(value: Any) -> int:
    """``int(value)`` as CausalWorld cuts it, for a number in 0 .. 5 (0: none); else ObstacleError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ObstacleError(f"number_of_obstacles must be a number, got {value!r}")
    if not 0 <= value <= MAX_OBSTACLES:
        raise ObstacleError(
            f"number_of_obstacles = {value} is outside 0 .. {MAX_OBSTACLES} "
            f"(CausalWorld's space A and B: 1 .. {MAX_OBSTACLES})"
        )
    return int(value)


def count_of(value: Any, task: str) -> int:
    """The integer count CausalWorld makes of ``value`` (``int(value)``), checked against the task."""
    family = task.partition("@")[0]
    if family not in OBSTACLE_TASKS:
        raise ObstacleError(
            f"number_of_obstacles: trifinger task {family!r} has no such variable; "
            f"CausalWorld defines it for {', '.join(OBSTACLE_TASKS)}"
        )
    return check_count(value)


def random_obstacles(scene: Scene) -> list[BlockSpec]:
    """The scene's obstacles that ``number_of_obstacles`` placed (named ``obstacle_<i>``)."""
    return [o for o in scene.obstacles if o.name.startswith(PREFIX)]


def with_obstacles(scene: Scene, value: Any, generator: np.random.Generator) -> Scene:
    """A copy of ``scene`` holding ``int(value)`` random obstacles (only ever more, as CausalWorld).

    Raises ``ObstacleError`` (one line) for a task without the variable, a count out of range, or a
    cube with no free place after ``ATTEMPTS`` draws."""
    from agentkit.envs.trifinger.sampling import scene_problems

    wanted = count_of(value, scene.task)
    scene = copy.deepcopy(scene)
    have = len(random_obstacles(scene))
    low, high = np.asarray(ARENA_BB[0]), np.asarray(ARENA_BB[1])
    for index in range(have, wanted):
        reason = ""
        for _ in range(ATTEMPTS):
            position = vec3(generator.uniform(low, high))
            cube = BlockSpec(
                f"{PREFIX}{index}",
                (OBSTACLE_SIDE,) * 3,
                position,
                mass=0.0,
                color=OBSTACLE_COLOR,
                static=True,
            )
            scene.obstacles.append(cube)
            problems = [p for p in scene_problems(scene) if cube.name in p]
            if not problems:
                break
            scene.obstacles.pop()
            reason = problems[0]
        else:
            raise ObstacleError(
                f"number_of_obstacles = {wanted} on {scene.task}: no free place for "
                f"{PREFIX}{index} in {ATTEMPTS} draws (the last: {reason})"
            )
    return scene
