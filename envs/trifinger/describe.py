"""The TriFinger state in words (for text-only models) and as a JSON-able structure (for tools).

Positions are metres in the arena frame: origin at the centre of the floor, z up; yaw in degrees
counter-clockwise seen from above; a block's roll and pitch (degrees about its own x and y axes, after
the yaw: Z-Y-X Euler angles) show when it tips over or hangs tilted in the grip. The words go into the observation's status lines, which every
prompt shows; the structure is the privileged state the reference agent and analyses read.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agentkit.envs.trifinger.causalworld_profile import OVERLAP_SUCCESS, REACHING_SUCCESS_ERROR, Verdict
from agentkit.envs.trifinger.geometry import Cuboid, quaternion_matrix, yaw_of
from agentkit.envs.trifinger.tasks import colour_name
from agentkit.envs.trifinger.world import TriFingerWorld

_DIGITS = 4


def _xyz(v) -> str:
    return "(" + ", ".join(f"{float(c):.3f}" for c in v) + ")"


def _shape(size) -> str:
    cm = [round(float(s) * 100, 1) for s in size]
    if max(cm) - min(cm) < 0.15:
        return f"cube of {cm[0]:g} cm"
    return f"box of {cm[0]:g} x {cm[1]:g} x {cm[2]:g} cm"


def _yaw(c: Cuboid) -> float:
    return math.degrees(yaw_of(c.orientation))


def roll_pitch(c: Cuboid) -> tuple[float, float]:
    """Roll and pitch in degrees (Z-Y-X Euler angles: yaw, then pitch about y, then roll about x)."""
    m = quaternion_matrix(c.orientation)
    pitch = math.degrees(math.asin(max(-1.0, min(1.0, -float(m[2, 0])))))
    roll = math.degrees(math.atan2(float(m[2, 1]), float(m[2, 2])))
    return roll, pitch


def _attitude(c: Cuboid) -> str:
    roll, pitch = roll_pitch(c)
    return f"yaw {round(_yaw(c))} deg, roll {round(roll)} deg, pitch {round(pitch)} deg"


def status_lines(
    world: TriFingerWorld, held: int | None, overlap: float, time_left_s: float, judged: Verdict | None = None
) -> dict[str, str]:
    """Ordered ``label -> text`` facts for the prompt's status block.

    ``judged``: the verdict of a measure other than ``overlap`` that decides success (the causalworld
    profile: CausalWorld's axis-aligned overlap, or reaching's mean tip error); it is shown first,
    named as CausalWorld's, and ``overlap`` is then labelled as the exact measure, not judged."""
    lines: dict[str, str] = {"time_left": f"{time_left_s:.1f} s"}
    if judged is None:
        lines["goal_overlap"] = f"{overlap:.3f} (success above 0.9)"
    elif judged.measure.startswith("causalworld_reaching"):
        lines["tip_error_causalworld"] = (
            f"{judged.value * 100:.2f} cm (CausalWorld's measure: mean absolute fingertip "
            f"coordinate error; success below {REACHING_SUCCESS_ERROR * 100:g} cm)"
        )
        lines["goal_overlap"] = (
            f"{overlap:.3f} (fingertip closeness, for reference; not what success is judged by)"
        )
    else:
        lines["goal_overlap_causalworld"] = (
            f"{judged.value:.3f} (CausalWorld's measure: axis-aligned bounding boxes of "
            f"blocks and goals; success above {OVERLAP_SUCCESS:g} by this number)"
        )
        lines["goal_overlap"] = (
            f"{overlap:.3f} (exact oriented overlap, for reference; not what success is judged by)"
        )
    lines["holding"] = "nothing" if held is None else f"block {held}"
    for i, (spec, c) in enumerate(zip(world.block_specs, world.block_cuboids())):
        lines[f"block_{i}"] = (
            f"{colour_name(spec.color)} {_shape(spec.size)}, centre {_xyz(c.position)}, {_attitude(c)}"
        )
    for i, c in enumerate(world.goal_cuboids()):
        lines[f"goal_{i}"] = f"{_shape(c.size)}, centre {_xyz(c.position)}, yaw {_yaw(c):.0f} deg"
    for i, c in enumerate(world.obstacle_cuboids()):
        lines[f"obstacle_{i}"] = f"fixed {_shape(c.size)}, centre {_xyz(c.position)}, yaw {_yaw(c):.0f} deg"
    if world.scene is not None:
        for i, tip in enumerate(world.scene.tip_goals):
            lines[f"tip_target_{i}"] = _xyz(tip)
    lines["fingertips"] = ", ".join(_xyz(t) for t in world.tips())
    return lines


def structured_state(world: TriFingerWorld, held: int | None, overlap: float) -> dict[str, Any]:
    """The full state, rounded and JSON-able."""
    r = lambda v: round(float(v), _DIGITS) + 0.0
    blocks = []
    for spec, c in zip(world.block_specs, world.block_cuboids()):
        blocks.append(
            {
                "name": spec.name,
                "size": [r(s) for s in spec.size],
                "position": [r(v) for v in c.position],
                "orientation": [r(v) for v in c.orientation],
                "mass": r(spec.mass),
                "color": [r(v) for v in spec.color],
            }
        )
    goals = [
        {
            "name": g.name,
            "size": [r(s) for s in g.size],
            "position": [r(v) for v in g.position],
            "orientation": [r(v) for v in g.orientation],
        }
        for g in world.goal_specs
    ]
    obstacles = [
        {"size": [r(s) for s in c.size], "position": [r(v) for v in c.position]}
        for c in world.obstacle_cuboids()
    ]
    return {
        "task": world.scene.task if world.scene else None,
        "time_s": r(world.steps / 1000.0),
        "joint_positions": [r(v) for v in world.joint_positions()],
        "joint_targets": [r(v) for v in world.target],
        "fingertips": [[r(v) for v in tip] for tip in np.asarray(world.tips())],
        "held_block": held,
        "overlap": r(overlap),
        "blocks": blocks,
        "goals": goals,
        "obstacles": obstacles,
        "tip_goals": [[r(v) for v in t] for t in (world.scene.tip_goals if world.scene else [])],
        "gravity": [r(v) for v in world.gravity],
    }
