"""A new goal as each CausalWorld task samples one (its ``sample_new_goal``), and new block poses from
the task's own space, for the curriculum's goal and block-pose actors.

Why: CausalWorld's goal actor (``intervention_actors/goal_actor.py``) does not draw goal variables
blindly; it asks the task, which keeps pushing's goal on the floor, picking's goal above the
centre, pick_and_place's goal across the wall from the block and stacking2's goals in one tower.
``new_goal`` returns that draw in our world's variable names, ready for ``apply_intervention``.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from agentkit.envs.trifinger.geometry import quat, vec3
from agentkit.envs.trifinger.scene import Scene
from agentkit.envs.trifinger.task_spaces import ALIASES, PNP_ANGLES, task_space
from agentkit.envs.trifinger.world import TriFingerWorld

#: pick_and_place.py sample_new_goal: the block is first put 9 cm from the centre, straight across
#: the wall on a random side (angle -pi/2 or pi/2).
PNP_BLOCK_RADIUS = 0.09


def snapshot(world: TriFingerWorld) -> Scene:
    """The world's scene with its current block poses and the current goal and block specs."""
    scene = copy.deepcopy(world.built_scene())
    scene.goals = copy.deepcopy(world.goal_specs)
    scene.blocks = copy.deepcopy(world.block_specs)
    for i, block in enumerate(scene.blocks):
        pos, orn = world.block_pose(i)
        block.position, block.orientation = vec3(pos), quat(orn)
    return scene


def _uniform(rng, generator: np.random.Generator) -> list[float]:
    return generator.uniform(np.asarray(rng[0], dtype=float), np.asarray(rng[1], dtype=float)).tolist()


def _area_uniform(cyl_range, generator: np.random.Generator) -> list[float]:
    """stage.py random_position: angle uniform, radius uniform in area, height uniform."""
    (r0, a0, z0), (r1, a1, z1) = cyl_range
    angle = generator.uniform(a0, a1)
    radius = math.sqrt(generator.uniform(r0**2, r1**2))
    return [radius, angle, generator.uniform(z0, z1)]


def causalworld_goal(scene: Scene, space: str, generator: np.random.Generator) -> dict[str, Any]:
    """The task's ``sample_new_goal`` in CausalWorld's names (pushing.py, picking.py,
    pick_and_place.py, stacking2.py; others: base_task.py over every goal)."""
    bounds = task_space(scene, space)
    task = scene.task
    if task == "pushing":  # goal z pinned to the block's half height, position uniform per axis
        return {
            "goal_block": {
                "cylindrical_position": _uniform(bounds["goal_block"]["cylindrical_position"], generator),
                "euler_orientation": _uniform(bounds["goal_block"]["euler_orientation"], generator),
            }
        }
    if task == "picking":  # only a height, straight above the centre
        (_, _, z0), (_, _, z1) = bounds["goal_block"]["cylindrical_position"]
        return {"goal_block": {"cylindrical_position": [0.0, 0.0, generator.uniform(z0, z1)]}}
    if task == "pick_and_place":
        side = -1.0 if generator.integers(0, 2) == 0 else 1.0
        height = scene.blocks[0].size[2] / 2
        goal_side = -side
        (r0, _, z0), (r1, _, z1) = bounds["goal_block"]["cylindrical_position"]
        a0, a1 = (PNP_ANGLES[0], PNP_ANGLES[1]) if goal_side > 0 else (-PNP_ANGLES[1], -PNP_ANGLES[0])
        return {
            "tool_block": {"cylindrical_position": [PNP_BLOCK_RADIUS, side * math.pi / 2, height]},
            "goal_block": {
                "cylindrical_position": _uniform(([r0, a0, z0], [r1, a1, z1]), generator),
                "euler_orientation": _uniform(bounds["goal_block"]["euler_orientation"], generator),
            },
        }
    if task == "stacking2":
        return {
            "goal_tower": {
                "cylindrical_position": _uniform(bounds["goal_tower"]["cylindrical_position"], generator),
                "euler_orientation": _uniform(bounds["goal_tower"]["euler_orientation"], generator),
            }
        }
    out: dict[str, Any] = {}
    for goal_name in [
        n for n, (kind, _) in ALIASES.get(task, {}).items() if kind in ("goal", "tip_goal")
    ] or [g.name for g in scene.goals if g.name in bounds]:
        ranges = bounds[goal_name]
        out[goal_name] = {"cylindrical_position": _area_uniform(ranges["cylindrical_position"], generator)}
        if "euler_orientation" in ranges:
            out[goal_name]["euler_orientation"] = _uniform(ranges["euler_orientation"], generator)
    return out


def in_world_names(scene: Scene, draw: dict[str, Any]) -> dict[str, Any]:
    """A CausalWorld-named draw as our world variables (``goal_tower`` becomes both goal blocks,
    at z/2 and 3z/2, as stacking2.py applies it). Reaching's tip goals are not world variables."""
    aliases = ALIASES.get(scene.task, {})
    names = {"block": [b.name for b in scene.blocks], "goal": [g.name for g in scene.goals]}
    out: dict[str, Any] = {}
    for name, value in draw.items():
        if name == "goal_tower":
            if "cylindrical_position" in value:
                r, theta, z = value["cylindrical_position"]
                out[names["goal"][0]] = {"cylindrical_position": [r, theta, z / 2]}
                out[names["goal"][1]] = {"cylindrical_position": [r, theta, 1.5 * z]}
            elif "euler_orientation" in value:
                for goal in names["goal"][:2]:
                    out[goal] = {"euler_orientation": list(value["euler_orientation"])}
            continue
        kind, index = aliases.get(name, ("", -1))
        if kind in names:
            out[names[kind][index]] = dict(value)
        elif not kind:
            out[name] = value
    return out


def new_block_poses(world: TriFingerWorld, space: str, generator: np.random.Generator) -> dict[str, Any]:
    """intervention_actors/rigid_block_pose_actor.py: every ``tool*`` variable's position and yaw,
    uniform over the task's space (pushing's blocks stay on the floor, pick_and_place's in their
    sector), in our variable names."""
    scene = snapshot(world)
    bounds = task_space(scene, space)
    draw = {
        name: {
            "cylindrical_position": _uniform(value["cylindrical_position"], generator),
            "euler_orientation": _uniform(value["euler_orientation"], generator),
        }
        for name, value in bounds.items()
        if name.startswith("tool") and "cylindrical_position" in value
    }
    return in_world_names(scene, draw)


def new_goal(world: TriFingerWorld, space: str, generator: np.random.Generator) -> dict[str, Any]:
    """The task's new goal for the live ``world``, in our variable names."""
    scene = snapshot(world)
    return in_world_names(scene, causalworld_goal(scene, space, generator))
