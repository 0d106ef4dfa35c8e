"""Do-interventions on a TriFinger world: checked against a space, applied, rolled back if infeasible.

An intervention is ``{"floor_friction": 0.7, "block0": {"mass": 0.05, "cylindrical_position": [...]}}``.
It is *refused* (nothing changes) when it names an unknown variable or leaves the chosen space;
it is *rolled back* (every touched variable restored) when the result is physically infeasible:
bodies interpenetrating, or a block or goal outside the arena. Either way the result says why.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentkit.envs.trifinger.scene import ARENA_HEIGHT, ARENA_RADIUS
from agentkit.envs.trifinger.spaces import SpaceName, intervention_space, within
from agentkit.envs.trifinger.variables import GLOBALS, WorldVariables
from agentkit.envs.trifinger.world import TriFingerWorld

logger = logging.getLogger(__name__)


@dataclass
class InterventionResult:
    applied: bool
    refused: bool = False
    rolled_back: bool = False
    reason: str = ""
    changed: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "applied": self.applied,
            "refused": self.refused,
            "rolled_back": self.rolled_back,
            "reason": self.reason,
            "changed": self.changed,
        }


def _flatten(intervention: dict[str, Any]) -> list[tuple[str, str | None, Any]]:
    items: list[tuple[str, str | None, Any]] = []
    for name, value in intervention.items():
        if isinstance(value, dict):
            items.extend((name, prop, v) for prop, v in value.items())
        else:
            items.append((name, None, value))
    return items


def infeasibilities(world: TriFingerWorld) -> list[str]:
    """What makes the current world state infeasible (empty when it is fine)."""
    problems = [f"{pair} interpenetrate" for pair in world.penetrations()]
    for label, cuboids in (("block", world.block_cuboids()), ("goal", world.goal_cuboids())):
        for i, c in enumerate(cuboids):
            corners = c.corners()
            radius = float(np.hypot(corners[:, 0], corners[:, 1]).max())
            if (
                radius > ARENA_RADIUS + 1e-6
                or corners[:, 2].min() < -1e-3
                or corners[:, 2].max() > ARENA_HEIGHT
            ):
                problems.append(
                    f"{label} {i} would be outside the arena (reaches {radius:.3f} m from the centre)"
                )
    return problems


def apply_intervention(
    world: TriFingerWorld,
    intervention: dict[str, Any],
    space: SpaceName | None = "A",
    variables: WorldVariables | None = None,
) -> InterventionResult:
    """Apply ``intervention`` if it lies in ``space`` (None: any value) and leaves the world feasible."""
    variables = variables or WorldVariables(world)
    items = _flatten(intervention)
    bounds = intervention_space(space, variables) if space is not None else None
    known = variables.objects()
    for name, prop, value in items:
        if prop is None and name not in bounds_or_globals(bounds):
            return InterventionResult(False, refused=True, reason=f"unknown variable {name!r}")
        if prop is not None and (name not in known or prop not in known[name]):
            return InterventionResult(False, refused=True, reason=f"unknown variable {name}.{prop}")
        if bounds is not None:
            rng = bounds[name][prop] if prop is not None else bounds[name]
            if not within(value, rng):
                label = name if prop is None else f"{name}.{prop}"
                return InterventionResult(
                    False,
                    refused=True,
                    reason=f"{label} = {value} is outside space {space} ({rng[0]} .. {rng[1]})",
                )
    saved = [(name, prop, variables.read(name, prop)) for name, prop, _ in items]
    # Sizes first, then poses: a resized block is rebuilt at its old pose, then moved.
    order = sorted(items, key=lambda item: 0 if item[1] == "size" else 1)
    for name, prop, value in order:
        variables.write(name, value, prop)
    problems = infeasibilities(world)
    if problems:
        for name, prop, value in sorted(saved, key=lambda item: 0 if item[1] == "size" else 1):
            variables.write(name, value, prop)
        logger.debug("intervention rolled back: %s", "; ".join(problems))
        return InterventionResult(False, rolled_back=True, reason="; ".join(problems))
    changed: dict[str, Any] = {}
    for name, prop, value in items:
        if prop is None:
            changed[name] = value
        else:
            changed.setdefault(name, {})[prop] = value
    return InterventionResult(True, changed=changed)


def bounds_or_globals(bounds: dict[str, Any] | None) -> set[str]:
    """The global (non-object) variable names an intervention may set."""
    return set(GLOBALS) if bounds is None else {k for k, v in bounds.items() if not isinstance(v, dict)}


def rounded(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v) for v in value]
    if isinstance(value, float):
        return round(value, 5) if math.isfinite(value) else value
    return value
