"""CausalWorld's evaluation protocols, task by task, as ``causal_world/benchmark/benchmarks.py`` lists them.

Why: a researcher comparing with CausalWorld's published results must get the same protocol: the
same variables (CausalWorld's names: ``tool_block``, ``goal_block``, ``goal_tower``...), the same
space and, for P10/P11, its ``FullyRandomProtocol`` (never joints, never gravity; a coin flip between
sizes and positions). Each benchmark task has its own list: pushing, picking and pick_and_place have
P0-P11, stacking2 has no P3 (it has no size variable) and reaching has P0, P5 and P12. Run one as
task ``pushing@P4``; suites ``<task>-protocols`` list a task's protocols.

A protocol draw is made on plain scene data (``sampling.draw_protocol``): the scene the backend
builds already holds the intervened blocks and goals; ``ProtocolPlan.apply`` then sets the
world-level variables (frictions, colours, link masses) and records what was applied. A draw that
stays infeasible after ``sampling.ATTEMPTS`` tries raises ``ProtocolDrawError`` (never a silent P0).

``Selection``/``apply_selection`` are the curriculum actors' machinery (live worlds, see curriculum).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from agentkit.envs.trifinger.interventions import apply_intervention, rounded
from agentkit.envs.trifinger.scene import Scene
from agentkit.envs.trifinger.spaces import SpaceName, intervention_space, sample
from agentkit.envs.trifinger.tasks import generate
from agentkit.envs.trifinger.variables import WorldVariables

if TYPE_CHECKING:
    from agentkit.envs.trifinger.backend import TriFingerBackend
    from agentkit.envs.trifinger.sampling import ProtocolDraw

ATTEMPTS = 30  # curriculum actors' resampling bound on a live world
#: Tasks whose goal (block poses) the curriculum's goal (block_pose) actor draws with the task's own
#: sample_new_goal (spaces); other tasks use the base spaces of ``spaces``.
TASK_GOALS = ("pushing", "picking", "pick_and_place", "stacking2")


@dataclass(frozen=True)
class Protocol:
    """One of benchmarks.py's protocols: ``ProtocolGenerator`` (two full-match regexes over
    CausalWorld's variable names) or ``FullyRandomProtocol`` (``first`` is None)."""

    name: str
    first: str | None
    second: str | None
    space: str  # "A", "B" or "A_B" (CausalWorld: space_a, space_b, space_a_b)

    @property
    def fully_random(self) -> bool:
        return self.first is None


def _generators(tool: str, goal: str, p9_goal: str, with_p3: bool) -> dict[str, Protocol]:
    """benchmarks.py's P0-P11 for one of the block tasks (its regexes spelled as there)."""
    listing = [
        Protocol("P0", "", "", "A_B"),
        Protocol("P1", tool, "mass", "A"),
        Protocol("P2", tool, "mass", "B"),
        Protocol("P3", tool, "size", "A"),
        Protocol("P4", tool, "cylindrical_position", "A"),
        Protocol("P5", goal, "cylindrical_position", "A"),
        Protocol("P6", f"{goal}|{tool}", "cylindrical_position", "B"),
        Protocol("P7", f"{goal}|{tool}", "cylindrical_position|mass", "A"),
        Protocol("P8", f"{goal}|{tool}", "cylindrical_position|mass", "B"),
        Protocol("P9", f"{p9_goal}|{tool}|floor_friction", "cylindrical_position|mass", "B"),
        Protocol("P10", None, None, "A"),
        Protocol("P11", None, None, "B"),
    ]
    return {p.name: p for p in listing if with_p3 or p.name != "P3"}


#: benchmarks.py: REACHING_, PUSHING_, PICKING_, PICK_AND_PLACE_ and STACKING2_BENCHMARK.
BENCHMARKS: dict[str, dict[str, Protocol]] = {
    "pushing": _generators("tool_block", "goal_block", "goal_block", with_p3=True),
    "picking": _generators("tool_block", "goal_block", "goal_block", with_p3=True),
    "pick_and_place": _generators("tool_block", "goal_block", "goal_block", with_p3=True),
    # STACKING2_BENCHMARK: no P3; goals move as 'goal_tower'; its P9 names 'goal_block' (which
    # matches no stacking2 variable, so P9 moves only the tool blocks and the floor friction).
    "stacking2": _generators("tool_block.*", "goal_tower", "goal_block", with_p3=False),
    "reaching": {
        "P0": Protocol("P0", "", "", "A_B"),
        "P5": Protocol("P5", "goal_.*", "cylindrical_position", "A"),
        "P12": Protocol("P12", "goal_.*", "cylindrical_position", "B"),
    },
}
BENCHMARK_TASKS = tuple(BENCHMARKS)
#: Tasks benchmarks.py gives no protocols: ``task@P0`` is their task generator's default scene (its
#: default walls: stacked_blocks.py / creative_stacked_blocks.py ``_set_up_stage_arena``, towers.py's
#: diagonal start), so a bench can evaluate the defaults beside the protocols' P0.
DEFAULT_SCENE_TASKS = ("towers", "stacked_blocks", "creative_stacked_blocks")
_DEFAULT_ONLY = Protocol("P0", "", "", "A_B")  # benchmarks.py's P0: empty regexes, nothing intervened on
#: Every protocol name some benchmark task defines (P0-P12).
PROTOCOL_NAMES = tuple(sorted({n for table in BENCHMARKS.values() for n in table}, key=lambda n: int(n[1:])))


def protocol_for(task: str, name: str) -> Protocol:
    """The protocol ``name`` of benchmark task ``task``; a clear error otherwise."""
    table = BENCHMARKS.get(task)
    if table is None and task in DEFAULT_SCENE_TASKS:
        if name == "P0":
            return _DEFAULT_ONLY
        raise ValueError(
            f"trifinger task {task!r} has no CausalWorld protocols (benchmarks.py lists none); "
            f"only '{task}@P0', its default scene, runs"
        )
    if table is None:
        raise ValueError(
            f"trifinger task {task!r} has no CausalWorld protocols; "
            f"benchmarks.py defines them for {', '.join(BENCHMARK_TASKS)}"
        )
    if name not in table:
        raise ValueError(f"unknown protocol {name!r} in task '{task}@{name}'; {task} has {', '.join(table)}")
    return table[name]


@dataclass(frozen=True)
class ProtocolPlan:
    """A protocol draw to finish right after the scene is built (world-level variables, record)."""

    draw: ProtocolDraw

    @property
    def name(self) -> str:
        return self.draw.protocol

    def apply(self, backend: TriFingerBackend) -> dict[str, Any]:
        draw = self.draw
        if draw.world_values:
            variables = WorldVariables(backend.world)
            for name, value in draw.world_values.items():
                if isinstance(value, dict):
                    for prop, v in value.items():
                        variables.write(name, v, prop)
                else:
                    variables.write(name, value)
        if draw.intervention:
            record = {
                "by": draw.protocol,
                "applied": True,
                "attempts": draw.attempts,
                "space": draw.space,
                "changed": rounded(draw.intervention),
                "carry_over": draw.carry_over,
            }
            if draw.inherited_from:  # the earlier episode whose size draw set this draw's heights
                record["inherited_from"] = draw.inherited_from
        elif draw.refused:  # CausalWorld would run this episode unintervened (sampling.draw_inheriting)
            record = {
                "by": draw.protocol,
                "applied": False,
                "reason": draw.refused,
                "carry_over": draw.carry_over,
            }
        else:
            record = {"by": draw.protocol, "applied": False, "reason": "nothing to change"}
        backend.record_intervention(record)
        return record


def scene_for(
    task: str, seed: int, profile: str = "causalworld", carry_over: str | None = None
) -> tuple[Scene, str | None, ProtocolPlan | None]:
    """The scene of ``task`` (``family`` or ``family@Pn``), its protocol name and plan; the robot
    starts in ``profile``'s start pose (``start_pose``). A protocol episode ``seed`` is episode
    ``seed`` of CausalWorld's evaluation and inherits what ``carry_over`` says
    (``protocol_carry_over``; None: ``benchmark`` under causalworld, ``none`` under agentkit).

    Raises ``ValueError`` for an unknown protocol or carry-over mode and
    ``sampling.ProtocolDrawError`` when no feasible draw was found."""
    from agentkit.envs.trifinger.sampling import draw_protocol

    family, _, protocol = task.partition("@")
    if not protocol:
        return generate(family, seed, profile), None, None
    draw = draw_protocol(family, protocol, seed, profile, carry_over)
    return draw.scene, protocol, ProtocolPlan(draw)


def protocol_suites() -> dict[str, list[str]]:
    return {f"{task}-protocols": [f"{task}@{name}" for name in table] for task, table in BENCHMARKS.items()}


# ------------------------------------------------------------------ curriculum actors (live world)


@dataclass(frozen=True)
class Selection:
    """Which variables an actor samples: first-level and property regexes (full match), and the space."""

    first: str
    second: str
    space: SpaceName
    #: intervention_actors/random_actor.py: every variable but joint positions (and gravity, which
    #: CausalWorld's spaces do not hold), with a fair coin between sizes and positions.
    random: bool = False
    #: intervention_actors/goal_actor.py: ask the task for a new goal (goal_sampling.new_goal).
    task_goal: bool = False
    #: intervention_actors/joints_actor.py: joint positions by inverse kinematics of three tip
    #: positions drawn uniformly in the stage box (ARENA_BB), from the all-zero pose.
    tip_joints: bool = False
    #: intervention_actors/rigid_block_pose_actor.py: tool blocks' poses from the task's own space.
    task_pose: bool = False

    def pick(self, bounds: dict[str, Any], generator: np.random.Generator | None = None) -> dict[str, Any]:
        """The subset of ``bounds`` this selection covers (same nesting)."""
        out: dict[str, Any] = {}
        skip = {"joint_positions", "gravity"} if self.random else set()
        skip_prop = ""
        if self.random:
            skip_prop = (
                "cylindrical_position" if generator is not None and generator.integers(0, 2) else "size"
            )
        for name, value in bounds.items():
            if not re.fullmatch(self.first, name) or name in skip:
                continue
            if isinstance(value, dict) and skip_prop:
                value = {prop: rng for prop, rng in value.items() if prop != skip_prop}
            if isinstance(value, dict):
                props = {prop: rng for prop, rng in value.items() if re.fullmatch(self.second, prop)}
                if props:
                    out[name] = props
            else:
                out[name] = value
        return out


def sample_intervention(
    selection: Selection, variables: WorldVariables, generator: np.random.Generator
) -> dict[str, Any]:
    """One draw of every variable ``selection`` covers, kept consistent: a resized single block drags
    its goal's size along and both keep resting on the floor (as CausalWorld's tasks do)."""
    if selection.tip_joints:
        from agentkit.envs.trifinger.sampling import ARENA_BB

        # CausalWorld keeps whatever its IK returns; a tip target TriFingerPro cannot reach (its IK
        # then ends anywhere, once with a tip 37 cm out) is drawn again here, up to 60 times (1 in
        # 10 draws is reachable by all three fingers), keeping the closest solution
        best = None
        for _ in range(60):
            targets = generator.uniform(np.asarray(ARENA_BB[0]), np.asarray(ARENA_BB[1]), size=(3, 3))
            solved = variables.world.kinematics.solve(targets, np.zeros(9))
            if best is None or solved.worst < best.worst:
                best = solved
            if solved.worst < 0.01:
                break
        assert best is not None  # the loop above runs at least once
        return {"joint_positions": [float(v) for v in best.joints]}
    task = variables.world.scene.task if variables.world.scene is not None else None
    if selection.task_goal and task in TASK_GOALS:
        from agentkit.envs.trifinger.goal_sampling import new_goal

        return new_goal(variables.world, selection.space, generator)
    if selection.task_pose and task in TASK_GOALS:
        from agentkit.envs.trifinger.goal_sampling import new_block_poses

        return new_block_poses(variables.world, selection.space, generator)
    bounds = selection.pick(intervention_space(selection.space, variables), generator)
    draw: dict[str, Any] = {}
    for name, value in bounds.items():
        if isinstance(value, dict):
            draw[name] = {prop: sample(rng, generator) for prop, rng in value.items()}
        else:
            draw[name] = sample(value, generator)
    world = variables.world
    for spec in world.block_specs:
        size = draw.get(spec.name, {}).get("size")
        if size is None:
            continue
        cube = [size[0]] * 3  # blocks stay cubes
        draw[spec.name]["size"] = cube
        position = draw[spec.name].get("cylindrical_position") or variables.read(
            spec.name, "cylindrical_position"
        )
        draw[spec.name]["cylindrical_position"] = [position[0], position[1], cube[2] / 2]
        if len(world.block_specs) == 1 and world.goal_specs:
            goal = world.goal_specs[0].name
            goal_draw = draw.setdefault(goal, {})
            goal_draw["size"] = cube
            gpos = goal_draw.get("cylindrical_position") or variables.read(goal, "cylindrical_position")
            on_floor = abs(gpos[2] - world.goal_specs[0].size[2] / 2) < 1e-3
            goal_draw["cylindrical_position"] = [gpos[0], gpos[1], cube[2] / 2 if on_floor else gpos[2]]
    return draw


def apply_selection(
    backend: TriFingerBackend, selection: Selection, generator: np.random.Generator, label: str
) -> dict[str, Any]:
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
        record = {
            "by": label,
            "applied": False,
            "reason": f"no feasible sample in {ATTEMPTS} draws: {reason}",
        }
    backend.record_intervention(record)
    return record
