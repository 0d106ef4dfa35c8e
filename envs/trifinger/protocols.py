"""CausalWorld's evaluation protocols P0-P11 as named presets, and the sampler they share with actors.

A protocol picks variables by two regular expressions (object or global name, then property name)
and a space, and at the start of an episode samples every picked variable uniformly from that
space. P0 changes nothing (CausalWorld's default configuration); P10 and P11 sample every variable
in space A and space B. Object names here are ``block<i>`` / ``goal<i>`` where CausalWorld says
``tool_block`` / ``goal_block``. Run one as task ``pushing@P4``; suites ``<task>-protocols`` list
P0-P11 for the four benchmark tasks.

Samples that turn out infeasible (a block inside another, off the arena) are drawn again, up to
``ATTEMPTS`` times; the episode's metrics record what was applied or why nothing was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from agentkit.envs.trifinger.interventions import apply_intervention, rounded
from agentkit.envs.trifinger.scene import Scene
from agentkit.envs.trifinger.spaces import SpaceName, intervention_space, sample
from agentkit.envs.trifinger.tasks import default_scene, generate
from agentkit.envs.trifinger.variables import WorldVariables

if TYPE_CHECKING:
    from agentkit.envs.trifinger.backend import TriFingerBackend

ATTEMPTS = 30
BENCHMARK_TASKS = ("pushing", "picking", "pick_and_place", "stacking2")
_ANY = r".*"
_OBJ = r"block\d+"
_GOAL = r"goal\d+"


@dataclass(frozen=True)
class Selection:
    """Which variables to sample: first-level and property regexes (full match), and the space."""

    first: str
    second: str
    space: SpaceName

    def pick(self, bounds: dict[str, Any]) -> dict[str, Any]:
        """The subset of ``bounds`` this selection covers (same nesting)."""
        out: dict[str, Any] = {}
        for name, value in bounds.items():
            if not re.fullmatch(self.first, name):
                continue
            if isinstance(value, dict):
                props = {prop: rng for prop, rng in value.items() if re.fullmatch(self.second, prop)}
                if props:
                    out[name] = props
            else:
                out[name] = value
        return out


PROTOCOLS: dict[str, Selection] = {
    "P0": Selection("", "", "A_B"),
    "P1": Selection(_OBJ, "mass", "A"),
    "P2": Selection(_OBJ, "mass", "B"),
    "P3": Selection(_OBJ, "size", "A"),
    "P4": Selection(_OBJ, "cylindrical_position", "A"),
    "P5": Selection(_GOAL, "cylindrical_position", "A"),
    "P6": Selection(f"{_GOAL}|{_OBJ}", "cylindrical_position", "B"),
    "P7": Selection(f"{_GOAL}|{_OBJ}", "cylindrical_position|mass", "A"),
    "P8": Selection(f"{_GOAL}|{_OBJ}", "cylindrical_position|mass", "B"),
    "P9": Selection(f"{_GOAL}|{_OBJ}|floor_friction", "cylindrical_position|mass", "B"),
    "P10": Selection(_ANY, _ANY, "A"),
    "P11": Selection(_ANY, _ANY, "B"),
}


def sample_intervention(selection: Selection, variables: WorldVariables, generator: np.random.Generator) -> dict[str, Any]:
    """One draw of every variable ``selection`` covers, kept consistent: a resized single block drags
    its goal's size along and both keep resting on the floor (as CausalWorld's tasks do)."""
    bounds = selection.pick(intervention_space(selection.space, variables))
    draw: dict[str, Any] = {}
    for name, value in bounds.items():
        if isinstance(value, dict):
            draw[name] = {prop: sample(rng, generator) for prop, rng in value.items()}
        else:
            draw[name] = sample(value, generator)
    world = variables.world
    for i, spec in enumerate(world.block_specs):
        size = draw.get(spec.name, {}).get("size")
        if size is None:
            continue
        cube = [size[0]] * 3  # blocks stay cubes
        draw[spec.name]["size"] = cube
        position = draw[spec.name].get("cylindrical_position") or variables.read(spec.name, "cylindrical_position")
        draw[spec.name]["cylindrical_position"] = [position[0], position[1], cube[2] / 2]
        if len(world.block_specs) == 1 and world.goal_specs:
            goal = world.goal_specs[0].name
            goal_draw = draw.setdefault(goal, {})
            goal_draw["size"] = cube
            gpos = goal_draw.get("cylindrical_position") or variables.read(goal, "cylindrical_position")
            on_floor = abs(gpos[2] - world.goal_specs[0].size[2] / 2) < 1e-3
            goal_draw["cylindrical_position"] = [gpos[0], gpos[1], cube[2] / 2 if on_floor else gpos[2]]
    return draw


def apply_selection(backend: TriFingerBackend, selection: Selection, generator: np.random.Generator,
                    label: str) -> dict[str, Any]:
    """Sample and apply until feasible; the record says what happened (also stored on the backend)."""
    variables = WorldVariables(backend.world)
    reason = "nothing to change"
    for attempt in range(1, ATTEMPTS + 1):
        draw = sample_intervention(selection, variables, generator)
        if not draw:
            record = {"by": label, "applied": False, "reason": reason}
            break
        result = apply_intervention(backend.world, draw, space=None, variables=variables)
        if result.applied:
            record = {"by": label, "applied": True, "attempts": attempt, "changed": rounded(result.changed)}
            break
        reason = result.reason
    else:
        record = {"by": label, "applied": False, "reason": f"no feasible sample in {ATTEMPTS} draws: {reason}"}
    backend.record_intervention(record)
    return record


@dataclass(frozen=True)
class ProtocolPlan:
    """A protocol to apply right after the scene is built."""

    name: str
    seed: int

    def apply(self, backend: TriFingerBackend) -> dict[str, Any]:
        return apply_selection(backend, PROTOCOLS[self.name], np.random.default_rng(self.seed), self.name)


def scene_for(task: str, seed: int) -> tuple[Scene, str | None, ProtocolPlan | None]:
    """The scene of ``task`` (``family`` or ``family@Pn``), its protocol name and plan."""
    family, _, protocol = task.partition("@")
    if not protocol:
        return generate(family, seed), None, None
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r} in task {task!r}; known: {', '.join(PROTOCOLS)}")
    return default_scene(family), protocol, ProtocolPlan(protocol, seed)


def protocol_suites() -> dict[str, list[str]]:
    return {f"{task}-protocols": [f"{task}@{name}" for name in PROTOCOLS] for task in BENCHMARK_TASKS}
