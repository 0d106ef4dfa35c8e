"""One protocol draw on plain scene data: sample, reconcile as the task does, check, resample or fail.

Why: a protocol episode must start from a well-posed scene (floor goals on the floor, goals clear
of the wall, blocks inside neither the robot nor each other) or fail with one clear error; it must
never run the default scene silently. Drawing on data instead of a live world also lets
``agentkit tasks trifinger --protocol P8 --sample 20`` and the tests show what a protocol draws
without running physics.

Steps, as CausalWorld does them: sample every variable the protocol covers uniformly from the
task's space (``task_spaces``; ``evaluation/protocols/protocol_generator.py`` and
``fully_random_protocol.py``); reconcile contradictory values as the task generator's
``_handle_contradictory_interventions`` does; apply to the scene; check feasibility
(``envs/scene/stage.py check_feasiblity_of_stage`` and ``envs/robot/trifinger.py
check_feasibility_of_robot_state``, see ``scene_problems``). CausalWorld retries 5 times
(``wrappers/protocol_wrapper.py``) and then keeps the unintervened scene; here an infeasible draw
is retried up to ``ATTEMPTS`` times and then raises ``ProtocolDrawError``.
"""

from __future__ import annotations

import copy
import logging
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentkit.envs.trifinger.causalworld_profile import DEFAULT_PROFILE
from agentkit.envs.trifinger.geometry import Cuboid, euler_quaternion, vec3
from agentkit.envs.trifinger.protocol_carry_over import Inherited, carry_over_mode, inherited
from agentkit.envs.trifinger.protocols import Protocol, protocol_for
from agentkit.envs.trifinger.scene import BlockSpec, GoalSpec, Scene
from agentkit.envs.trifinger.start_pose import with_start_pose
from agentkit.envs.trifinger.task_spaces import ALIASES, task_space
from agentkit.envs.trifinger.tasks import default_scene

logger = logging.getLogger(__name__)

ATTEMPTS = 50
#: configs/world_constants.py ARENA_BB: the box goals must mostly lie in (x, y, z low / high).
ARENA_BB = ((-0.15, -0.15, 0.0), (0.15, 0.15, 0.3))
#: stage.py check_feasiblity_of_stage: a goal is feasible when at least this fraction of its
#: bounding box lies in ARENA_BB and its bottom is above GOAL_LOWEST_Z.
GOAL_INSIDE_FRACTION = 0.5
GOAL_LOWEST_Z = -0.01
#: Allowed interpenetration of rigid bodies (blocks, wall, robot, floor, arena wall). CausalWorld
#: tolerates 3 cm between objects (stage.py, contact distance < -0.03) and 9.5 mm with the robot
#: (trifinger.py, < -0.0095); so deep an overlap makes pybullet throw blocks, so 2 mm is used here.
PENETRATION_TOLERANCE = 0.002
#: wrappers/protocol_wrapper.py: a refused intervention is drawn again 5 times, then the episode runs
#: without it. Used for draws CausalWorld refuses as out of bounds (feasibility keeps ATTEMPTS).
OUT_OF_BOUNDS_TRIES = 6
OUT_OF_BOUNDS = (
    "out of bounds: pick_and_place's initial goal sector runs from -30 to -150 degrees (low above high), "
    "so base_task.py is_intervention_in_bounds refuses every goal position until a block position was applied"
)


class ProtocolDrawError(ValueError):
    """No feasible draw of a protocol for a task and seed (the message says which and why)."""


@dataclass
class ProtocolDraw:
    """What a protocol drew for one seed: the scene to build and the values it set."""

    task: str
    protocol: str
    seed: int
    space: str
    scene: Scene
    intervention: dict[str, Any] = field(default_factory=dict)  # CausalWorld names, after reconciling
    world_values: dict[str, Any] = field(default_factory=dict)  # frictions, colours, links (set on the world)
    attempts: int = 0
    rejected: list[str] = field(default_factory=list)  # why earlier attempts were refused
    carry_over: str = "none"  # protocol_carry_over mode the draw was made under
    inherited_from: str = ""  # the earlier episode whose size intervention set its heights, if any
    refused: str = ""  # why CausalWorld would run this episode unintervened (empty: it did not)

    def to_json(self) -> dict[str, Any]:
        from agentkit.envs.trifinger.interventions import rounded

        def pose(spec) -> dict[str, Any]:
            return {
                "name": spec.name,
                "position": rounded(list(spec.position)),
                "yaw": round(_yaw(spec.orientation), 4),
                "size": rounded(list(spec.size)),
            }

        scene = self.scene
        return {
            "task": self.task,
            "protocol": self.protocol,
            "seed": self.seed,
            "space": self.space,
            "attempts": self.attempts,
            "rejected": self.rejected,
            "blocks": [{**pose(b), "mass": round(b.mass, 5)} for b in scene.blocks],
            "goals": [pose(g) for g in scene.goals],
            "obstacles": [pose(o) for o in scene.obstacles],
            "tip_goals": [rounded(list(t)) for t in scene.tip_goals],
            "intervention": rounded(self.intervention),
            "carry_over": self.carry_over,
            "inherited_from": self.inherited_from,
            "refused": self.refused,
        }


def _yaw(q) -> float:
    x, y, z, w = q
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def _cartesian(cyl) -> tuple[float, float, float]:
    r, theta, z = (float(v) for v in cyl)
    return (r * math.cos(theta), r * math.sin(theta), z)


def _cylindrical(position) -> list[float]:
    x, y, z = (float(v) for v in position)
    return [math.hypot(x, y), math.atan2(y, x), z]


def _uniform(rng: tuple[Any, Any], generator: np.random.Generator) -> Any:
    value = generator.uniform(np.asarray(rng[0], dtype=float), np.asarray(rng[1], dtype=float))
    return value.tolist() if np.ndim(value) else float(value)


# ------------------------------------------------------------------------------------ sampling


def sample(protocol: Protocol, space: dict[str, Any], generator: np.random.Generator) -> dict[str, Any]:
    """One raw draw of ``protocol`` over ``space`` (CausalWorld names), before reconciling."""
    draw: dict[str, Any] = {}
    if protocol.fully_random:
        # fully_random_protocol.py: a fair coin between sizes and positions (a size changes where a
        # block can rest); joint_positions never (its probability is 0); gravity is in no space.
        on_size = bool(generator.integers(0, 2))
        for name, value in space.items():
            if isinstance(value, dict):
                picked = {
                    prop: _uniform(rng, generator)
                    for prop, rng in value.items()
                    if not (prop == "cylindrical_position" and on_size)
                    and not (prop == "size" and not on_size)
                }
                if picked:
                    draw[name] = picked
            elif name != "joint_positions":
                draw[name] = _uniform(value, generator)
        return draw
    first, second = protocol.first, protocol.second
    assert first is not None and second is not None, "only the fully random protocol has no regexes"
    for name, value in space.items():
        if not re.fullmatch(first, name):
            continue
        if isinstance(value, dict):
            picked = {
                prop: _uniform(rng, generator) for prop, rng in value.items() if re.fullmatch(second, prop)
            }
            if picked:
                draw[name] = picked
        else:
            draw[name] = _uniform(value, generator)
    return draw


def reconcile(scene: Scene, draw: dict[str, Any]) -> dict[str, Any]:
    """The task generator's ``_handle_contradictory_interventions`` (and its resting heights)."""
    task = scene.task
    draw = copy.deepcopy(draw)
    if "number_of_obstacles" in draw:  # reaching.py / creative_stacked_blocks.py: int(value)
        draw["number_of_obstacles"] = int(draw["number_of_obstacles"])
    if task in ("pushing", "pick_and_place", "picking"):
        tool, goal = draw.get("tool_block", {}), draw.get("goal_block", {})
        size = goal.get(
            "size", tool.get("size")
        )  # the goal's size wins when both are drawn (its `if` comes first)
        if size is not None:
            cube = [float(size[0])] * 3 if task != "picking" else [float(v) for v in size]
            draw.setdefault("tool_block", {})["size"] = cube
            draw.setdefault("goal_block", {})["size"] = cube
        if task in ("pushing", "pick_and_place"):
            # pushing.py / pick_and_place.py: a drawn size puts both on the floor at half the new
            # height. A drawn position keeps the height its space gave (half the block's height,
            # or after an inherited size intervention half that size: a goal floating above the floor
            # or sunk into it, see protocol_carry_over); the rigid block starts resting on the floor,
            # where CausalWorld's drops or is pushed out in its first physics steps.
            height = draw["tool_block"]["size"][2] if size is not None else scene.blocks[0].size[2]
            for name, index, specs in (("tool_block", 0, scene.blocks), ("goal_block", 0, scene.goals)):
                entry = draw.get(name)
                if entry is None or not ({"size", "cylindrical_position"} & set(entry)):
                    continue
                cyl = entry.get("cylindrical_position") or _cylindrical(specs[index].position)
                keep = size is None and name == "goal_block" and "cylindrical_position" in entry
                entry["cylindrical_position"] = [cyl[0], cyl[1], cyl[2] if keep else height / 2]
        if task == "picking":
            if "cylindrical_position" in draw.get("goal_block", {}):
                # picking.py: the goal moves only in height (radius and angle forced to 0).
                z = draw["goal_block"]["cylindrical_position"][2]
                draw["goal_block"]["cylindrical_position"] = [0.0, 0.0, z]
            if size is not None and "cylindrical_position" not in draw["tool_block"]:
                # CausalWorld leaves the resized block's centre where it was (it settles in the first
                # physics steps); here it starts resting at its new half height.
                cyl = _cylindrical(scene.blocks[0].position)
                draw["tool_block"]["cylindrical_position"] = [
                    cyl[0],
                    cyl[1],
                    draw["tool_block"]["size"][2] / 2,
                ]
            tool_cyl = draw.get("tool_block", {}).get("cylindrical_position")
            rest = (draw["tool_block"]["size"][2] if size is not None else scene.blocks[0].size[2]) / 2
            if tool_cyl is not None and tool_cyl[2] < rest:
                # After an inherited size intervention the block's height range starts at half that
                # size (picking.py _adjust_variable_spaces_after_intervention), which can put the
                # block into the floor; CausalWorld's pops out, here it starts resting.
                draw["tool_block"]["cylindrical_position"] = [tool_cyl[0], tool_cyl[1], rest]
    return draw


def apply(
    scene: Scene, draw: dict[str, Any], generator: np.random.Generator | None = None
) -> tuple[Scene, dict[str, Any]]:
    """A copy of ``scene`` with the draw's object variables set, and the world-level rest.
    ``number_of_obstacles`` places that many fixed cubes (``obstacles.with_obstacles``, drawn from
    ``generator``; a task without the variable is refused with ``ObstacleError``)."""
    scene = copy.deepcopy(scene)
    aliases = ALIASES.get(scene.task, {})
    world: dict[str, Any] = {}
    for name, value in draw.items():
        if name == "goal_tower":
            _apply_tower(scene, value)
            continue
        if name == "number_of_obstacles":
            continue  # placed last, once every block and goal has its place
        target = aliases.get(name)
        if target is None:
            world[name] = value
            continue
        kind, index = target
        if kind == "tip_goal":
            if "cylindrical_position" in value:
                scene.tip_goals[index] = _cartesian(value["cylindrical_position"])
            continue  # a sphere's colour and orientation are not modelled
        specs: dict[str, list[BlockSpec] | list[GoalSpec]] = {
            "block": scene.blocks,
            "goal": scene.goals,
            "obstacle": scene.obstacles,
        }
        spec = specs[kind][index]
        if "size" in value:
            spec.size = vec3(value["size"])
            if kind == "obstacle":  # a fixed wall stays standing on the floor
                spec.position = (spec.position[0], spec.position[1], spec.size[2] / 2)
        if "cylindrical_position" in value:
            spec.position = _cartesian(value["cylindrical_position"])
        if "euler_orientation" in value:
            spec.orientation = euler_quaternion(value["euler_orientation"])
        if "color" in value:
            spec.color = vec3(value["color"])
        if "mass" in value and isinstance(spec, BlockSpec):  # goals have no mass
            spec.mass = float(value["mass"])
    if "number_of_obstacles" in draw:
        from agentkit.envs.trifinger.obstacles import with_obstacles

        scene = with_obstacles(scene, draw["number_of_obstacles"], generator or np.random.default_rng(0))
    return scene, world


def _apply_tower(scene: Scene, value: dict[str, Any]) -> None:
    """stacking2.py apply_task_generator_interventions: goal_tower's z is the tower's height; the
    lower goal block goes to z/2 and the upper one to 3z/2. Its orientation is applied only when
    no position is given (CausalWorld's `elif`)."""
    if "cylindrical_position" in value:
        r, theta, z = value["cylindrical_position"]
        for goal, level in zip(scene.goals[:2], (0.5, 1.5)):
            goal.position = _cartesian([r, theta, z * level])
    elif "euler_orientation" in value:
        for goal in scene.goals[:2]:
            goal.orientation = euler_quaternion(value["euler_orientation"])


# --------------------------------------------------------------------------------- feasibility

_PROBE = None


def _probe():
    """A headless world used only for collision checks (no stepping), made once per process."""
    global _PROBE
    if _PROBE is None:
        from agentkit.envs.trifinger.world import TriFingerWorld

        _PROBE = TriFingerWorld()
    return _PROBE


def goal_problems(scene: Scene) -> list[str]:
    """stage.py's rule for goals (mostly inside ARENA_BB, not below the floor), and goals clear of
    fixed obstacles (a goal inside pick_and_place's wall cannot be filled)."""
    problems = []
    low, high = np.asarray(ARENA_BB[0]), np.asarray(ARENA_BB[1])
    shapes = [(g.name, g.cuboid()) for g in scene.goals]
    shapes += [(f"tip_goal{i}", Cuboid(vec3(t), (0.03, 0.03, 0.03))) for i, t in enumerate(scene.tip_goals)]
    for name, cuboid in shapes:
        box_low, box_high = cuboid.aabb()
        inside = np.clip(np.minimum(box_high, high) - np.maximum(box_low, low), 0.0, None).prod()
        volume = float(np.prod(box_high - box_low))
        if volume > 0 and inside / volume < GOAL_INSIDE_FRACTION:
            problems.append(f"{name} lies {1 - inside / volume:.0%} outside the arena box")
        if box_low[2] < GOAL_LOWEST_Z:
            problems.append(f"{name} reaches below the floor ({box_low[2]:.3f} m)")
        for obstacle in scene.obstacles:
            if _cuboids_intersect(cuboid, obstacle.cuboid()):
                problems.append(f"{name} overlaps the {obstacle.name}")
    return problems


def block_problems(scene: Scene) -> list[str]:
    """Blocks overlapping each other or a fixed obstacle at all (faces may touch): exact boxes."""
    problems = []
    rigid = [*scene.blocks, *scene.obstacles]
    for i, a in enumerate(scene.blocks):
        for b in rigid[i + 1 :]:
            if _cuboids_intersect(a.cuboid(), b.cuboid()):
                problems.append(f"{a.name} overlaps {'the ' if b.static else ''}{b.name}")
    return problems


def _cuboids_intersect(a: Cuboid, b: Cuboid, margin: float = 1e-4) -> bool:
    """Separating-axis test of two oriented boxes (shrunk by ``margin``: touching faces do not count)."""
    ra, rb = a.rotation, b.rotation
    half_a = np.asarray(a.size) / 2 - margin
    half_b = np.asarray(b.size) / 2 - margin
    t = np.asarray(b.position) - np.asarray(a.position)
    axes = [ra[:, i] for i in range(3)] + [rb[:, i] for i in range(3)]
    axes += [np.cross(ra[:, i], rb[:, j]) for i in range(3) for j in range(3)]
    for axis in axes:
        norm = np.linalg.norm(axis)
        if norm < 1e-9:
            continue
        axis = axis / norm
        reach_a = np.sum(half_a * np.abs(ra.T @ axis))
        reach_b = np.sum(half_b * np.abs(rb.T @ axis))
        if abs(t @ axis) > reach_a + reach_b:
            return False
    return True


def scene_problems(scene: Scene) -> list[str]:
    """Everything that makes ``scene`` ill-posed (empty when it is fine): goal rules, blocks
    overlapping each other or the wall, and rigid bodies (blocks, wall) interpenetrating each other, the robot at its start pose, the floor or
    the arena wall by more than PENETRATION_TOLERANCE (checked with pybullet's collision pass).
    The robot is left out when its start pose holds every fingertip above every block and fixed
    obstacle (``tips_clear_of_blocks``): CausalWorld's raised rest pose never meets a drawn block."""
    problems = goal_problems(scene) + block_problems(scene)
    world = _probe()
    world.build(scene)
    pairs = world.penetrations(PENETRATION_TOLERANCE)
    if tips_clear_of_blocks(scene, world.tips()):
        pairs = [pair for pair in pairs if "robot" not in pair.split(" and ")]
    problems += [f"{pair} interpenetrate" for pair in pairs]
    return problems


#: The fingertip's radius (CausalWorld's check_feasibility_of_robot_state tolerance), so "above" means clear.
TIP_RADIUS = 0.0095


def tips_clear_of_blocks(scene: Scene, tips: np.ndarray) -> bool:
    """Whether every fingertip (its sphere) is above the top of every block and fixed obstacle."""
    rigid = [*scene.blocks, *scene.obstacles]
    if not rigid:
        return True
    top = max(float(spec.cuboid().aabb()[1][2]) for spec in rigid)
    return float(np.min(np.asarray(tips)[:, 2])) - TIP_RADIUS > top


# --------------------------------------------------------------------------------------- draws


def draw_protocol(
    task: str, protocol: str, seed: int, profile: str = DEFAULT_PROFILE, carry_over: str | None = None
) -> ProtocolDraw:
    """The scene and values ``task@protocol`` draws for ``seed``; ``ProtocolDrawError`` when none of
    ATTEMPTS draws is feasible (the error names task, protocol, seed and the last reason). The
    robot starts in ``profile``'s start pose (``start_pose``: raised under causalworld).

    ``carry_over`` (``protocol_carry_over.CARRY_OVER_MODES``; None: the profile's default, ``benchmark``
    under causalworld, ``none`` under agentkit) says which earlier episodes' edits of the task's spaces
    this seed inherits, as CausalWorld's one environment carries them from episode to episode."""
    mode = carry_over_mode(carry_over, profile)
    if protocol_for(task, protocol).name == "P0":
        return draw_inheriting(task, protocol, seed, profile, mode, Inherited())
    return draw_inheriting(
        task, protocol, seed, profile, mode, inherited(task, protocol, seed, mode, profile)
    )


def draw_inheriting(
    task: str, protocol: str, seed: int, profile: str, mode: str, carried: Inherited
) -> ProtocolDraw:
    """``draw_protocol`` for a known inherited state ``carried`` (``mode`` is only recorded).

    A draw that moves pick_and_place's goal while its sector is still CausalWorld's initial, reversed
    one is out of bounds (``Inherited.goal_sector_reversed``); after CausalWorld's OUT_OF_BOUNDS_TRIES
    such draws the episode runs the unintervened scene, as ``ProtocolWrapper`` leaves it, and says why."""
    spec = protocol_for(task, protocol)
    base = with_start_pose(default_scene(task), profile)
    if spec.name == "P0":  # benchmarks.py P0: empty regexes, nothing is intervened on
        return ProtocolDraw(task, protocol, seed, spec.space, base, carry_over=mode)
    space = task_space(base, spec.space, carried)
    generator = np.random.default_rng(seed)
    rejected: list[str] = []
    out_of_bounds = 0
    for attempt in range(1, ATTEMPTS + 1):
        raw = sample(spec, space, generator)
        if carried.goal_sector_reversed and "cylindrical_position" in raw.get("goal_block", {}):
            out_of_bounds += 1
            rejected.append(OUT_OF_BOUNDS)
            if out_of_bounds == OUT_OF_BOUNDS_TRIES:
                logger.info("%s@%s seed %d runs unintervened: %s", task, protocol, seed, OUT_OF_BOUNDS)
                return ProtocolDraw(
                    task, protocol, seed, spec.space, base, {}, {}, attempt, rejected, mode, "", OUT_OF_BOUNDS
                )
            continue
        draw = reconcile(base, raw)
        scene, world = apply(base, draw, generator)
        problems = scene_problems(scene)
        if not problems:
            logger.debug("%s@%s seed %d: feasible draw after %d attempt(s)", task, protocol, seed, attempt)
            return ProtocolDraw(
                task, protocol, seed, spec.space, scene, draw, world, attempt, rejected, mode, carried.source
            )
        rejected.append("; ".join(problems))
    raise ProtocolDrawError(
        f"trifinger {task}@{protocol} seed {seed}: no feasible draw in {ATTEMPTS} attempts "
        f"(space {spec.space}); the last was refused because {rejected[-1]}"
    )
