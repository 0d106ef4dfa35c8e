"""CausalWorld's base intervention spaces A (training) and B (evaluation) for a live TriFinger world.

Used to check explicit interventions (``apply_intervention(space=...)``) and by the curriculum's
visual, physical and random actors, in our names (``block0``, ``goal0``). Protocol draws and the
goal and block-pose actors use each task's own spaces instead (``task_spaces``: pinned floor
heights, sectors, ``goal_tower``, in CausalWorld's names).

Ranges are CausalWorld's (base task): block and goal centres within 0.11 m of the arena centre in
A and 0.11-0.15 m in B, any yaw; cube sides 5.5-7.5 cm (A) / 7.5-9.5 cm (B); block masses
15-45 g / 45-100 g; block colours light (A) / dark (B); floor and stage friction 0.3-0.6 / 0.6-0.8;
floor colour light / dark and stage colour dark / light; link colours dark / light and link masses
15-45 g / 45-100 g. Heights (the z of cylindrical positions) are held at their current value: blocks
stay on what supports them and goals keep their level (a cuboid resting on the floor may take the
rest height of any size in the space, so size and position can change together). Two variables are not in CausalWorld's base
listing and are chosen here: gravity's z of -10..-7 (A) / -7..-4 (B) m/s^2, and joint positions.
CausalWorld's joint spaces (``base_task.py``: A ``[-1.57, -1.2, -3]..[-0.69, 0, 0]``, B
``[-0.69, 0, 0]..[1, 1.57, 3]`` per finger) span most of the robot's range, and most draws put a
finger into the table or another finger, which CausalWorld's feasibility check then refuses (the
intervention is dropped); here A keeps each finger near its rest pose and B bends it further, both
within the action bounds and above the table, so that a joint intervention always takes effect.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from agentkit.envs.trifinger.variables import WorldVariables

SpaceName = Literal["A", "B", "A_B"]
SPACE_NAMES = ("A", "B", "A_B")

_GLOBALS: dict[str, dict[str, tuple[list[float] | float, list[float] | float]]] = {
    "A": {
        "gravity": ([0.0, 0.0, -10.0], [0.0, 0.0, -7.0]),
        "floor_friction": (0.3, 0.6),
        "stage_friction": (0.3, 0.6),
        "floor_color": ([0.5] * 3, [1.0] * 3),
        "stage_color": ([0.0] * 3, [0.5] * 3),
        "joint_positions": ([-0.2, 0.7, -1.9] * 3, [0.2, 1.0, -1.5] * 3),
    },
    "B": {
        "gravity": ([0.0, 0.0, -7.0], [0.0, 0.0, -4.0]),
        "floor_friction": (0.6, 0.8),
        "stage_friction": (0.6, 0.8),
        "floor_color": ([0.0] * 3, [0.5] * 3),
        "stage_color": ([0.5] * 3, [1.0] * 3),
        "joint_positions": ([0.2, 1.0, -1.5] * 3, [0.45, 1.25, -1.1] * 3),
    },
}
_RADIUS = {"A": (0.0, 0.11), "B": (0.11, 0.15)}
_CUBE = {"A": (0.055, 0.075), "B": (0.075, 0.095)}
_BLOCK_MASS = {"A": (0.015, 0.045), "B": (0.045, 0.1)}
_LIGHT, _DARK = ([0.5] * 3, [1.0] * 3), ([0.0] * 3, [0.5] * 3)
_BLOCK_COLOR = {"A": _LIGHT, "B": _DARK}
_LINK_COLOR = {"A": _DARK, "B": _LIGHT}
_LINK_MASS = {"A": (0.015, 0.045), "B": (0.045, 0.1)}

Range = tuple[Any, Any]


def _single(space: str, variables: WorldVariables) -> dict[str, Any]:
    out: dict[str, Any] = dict(_GLOBALS[space])
    for obj, props in variables.objects().items():
        ranges: dict[str, Range] = {}
        if obj.startswith(("block", "goal")):
            z = variables.read(obj, "cylindrical_position")[2]
            low_z = high_z = z
            if (
                abs(z - variables.read(obj, "size")[2] / 2) < 1e-3
            ):  # resting on the floor: any size's rest height
                low_z, high_z = min(z, _CUBE[space][0] / 2), max(z, _CUBE[space][1] / 2)
            ranges["cylindrical_position"] = (
                [_RADIUS[space][0], -math.pi, low_z],
                [_RADIUS[space][1], math.pi, high_z],
            )
            ranges["euler_orientation"] = ([0.0, 0.0, -math.pi], [0.0, 0.0, math.pi])
            ranges["size"] = ([_CUBE[space][0]] * 3, [_CUBE[space][1]] * 3)
            ranges["color"] = _BLOCK_COLOR[space]
            if "mass" in props:
                ranges["mass"] = _BLOCK_MASS[space]
        else:
            ranges = {"color": _LINK_COLOR[space], "mass": _LINK_MASS[space]}
        out[obj] = ranges
    return out


def _union(a: Range, b: Range) -> Range:
    return (
        np.minimum(a[0], b[0]).tolist() if isinstance(a[0], list) else min(a[0], b[0]),
        np.maximum(a[1], b[1]).tolist() if isinstance(a[1], list) else max(a[1], b[1]),
    )


def intervention_space(space: SpaceName, variables: WorldVariables) -> dict[str, Any]:
    """``name -> (low, high)`` for globals and ``object -> {property -> (low, high)}`` for objects."""
    if space in ("A", "B"):
        return _single(space, variables)
    if space != "A_B":
        raise ValueError(f"intervention space must be one of {', '.join(SPACE_NAMES)}, got {space!r}")
    a, b = _single("A", variables), _single("B", variables)
    out: dict[str, Any] = {}
    for name, value in a.items():
        if isinstance(value, dict):
            out[name] = {prop: _union(rng, b[name][prop]) for prop, rng in value.items()}
        else:
            out[name] = _union(value, b[name])
    return out


def within(value: Any, rng: Range, tolerance: float = 1e-9) -> bool:
    low, high = np.asarray(rng[0], dtype=float), np.asarray(rng[1], dtype=float)
    v = np.asarray(value, dtype=float)
    return v.shape == low.shape and bool(np.all(v >= low - tolerance) and np.all(v <= high + tolerance))


def sample(rng: Range, generator: np.random.Generator) -> Any:
    low, high = np.asarray(rng[0], dtype=float), np.asarray(rng[1], dtype=float)
    value = np.asarray(generator.uniform(low, high))
    return value.tolist() if value.ndim else float(value)
