"""The TriFinger reference agent: a privileged planner writing the same API-call scripts a model would.

Each turn it reads the true state, takes the lowest goal cuboid not yet filled (goals are matched
to blocks of the same size, nearest first) and writes one script towards it: ``grasp``, ``lift``
over everything, then, if the yaw is off (modulo the block's symmetry), ``move_to`` the arena
centre and ``rotate``, ending the turn there because a turn in the hand slips by about a third
and the next turn measures again; otherwise ``move_to`` above the goal and down into it (beside a
wall it comes down clear of it and slides in), and ``release`` unless it is the last block (the
fingers keep holding it in place: releasing nudges a block by 3-6 mm, which costs more overlap
than any other step). Blocks that ended off their goal are redone from fresh measurements, up to
a few tries each; a block stuck in an unreachable pose is set down and grasped afresh. Reaching
moves each fingertip onto its target.

Tilt: a grip often leaves the block hanging 5-15 degrees tilted; while holding it the agent calls
``rotate`` (which levels the block as well as turning it) before setting it in its goal. Failed
grasps: a block the grasp planner cannot reach where it lies, or one the last grasp script left
where it was, is pushed towards the centre (clear of fixed obstacles) instead of being grasped
again; the next turn grasps it from there. A block that can be neither is skipped for a few turns,
and a script that failed at its first motion is never repeated.

Measure: the agent aims at the run's own success measure (``profile``): under ``causalworld``,
CausalWorld's axis-aligned overlap, so cubes are turned only when a yawed goal needs it; under
``agentkit``, the exact overlap. Carries go only as high as what lies on the way needs; blocks and
floor goals far out are reached low, nearer the centre, where the fingers can still lift.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

import numpy as np

from agentkit.actions import Command, Script
from agentkit.actions.formatter import format_script
from agentkit.envs.trifinger.compiler import tilt_degrees
from agentkit.envs.trifinger.geometry import Cuboid, vec3, yaw_of
from agentkit.envs.trifinger.grasping import plan_grasp
from agentkit.envs.trifinger.overlap import aabb_overlap, volumetric_overlap
from agentkit.envs.trifinger.vocabulary import VOCABULARY
from agentkit.envs.trifinger.workspace import WORKSPACE
from agentkit.observers import Observation

if TYPE_CHECKING:
    from agentkit.envs.trifinger.backend import TriFingerBackend

logger = logging.getLogger(__name__)

PLACED_TOLERANCE = 0.003  # metres: a block this close to its goal (and aligned) is left alone
YAW_TOLERANCE = math.radians(4.0)
CLEARANCE = 0.025  # a carried block clears what it passes over by this much (it swings when the carry starts and stops)
MAX_TRIES = 6
MAX_TURNS = 3
YAW_TOLERANCE_DEG = 4.0
TILT_TOLERANCE_DEG = (
    4.0  # a held block leaning more than this is levelled with rotate() before it is set down
)
MAX_LEVELS = 2  # levelling turns per goal
STUCK_DISTANCE = 0.01  # metres: a block a grasp script moved less than this was not picked up
PUSH_RADIUS = 0.06  # pushes aim to bring a block this close to the arena centre
MAX_PUSHES = 3  # per block per episode
#: Under the causalworld profile (its success: axis-aligned overlap > 0.9, task_generators/base_task.py):
CAUSALWORLD_PLACED = 0.95  # a block whose own goal overlap reaches this is left alone
CAUSALWORLD_YAW_TOLERANCE_DEG = 15.0  # oblong blocks
CAUSALWORLD_CUBE_YAW_TOLERANCE_DEG = (
    5.0  # a cube sitting less diagonally than its yawed goal (axis-aligned boxes)
)
CAUSALWORLD_CUBE_SLACK_DEG = 3.0  # ... by more than this
CAUSALWORLD_TILT_TOLERANCE_DEG = 8.0
SKIP_TURNS = 3
OUTER_RADIUS = (
    0.1  # metres from the centre: a block grasped farther out is carried inwards low before it is raised
)
INNER_RADIUS = 0.06  # ... to about this far from the centre
HIGH_GOAL = 0.12  # metres: goals above this may lie beyond the workspace (picking's space B reaches 0.25)
STALL_MS = 40  # a script after which the world clock moved less than this (ms) failed at its first motion  # a block that can be neither grasped nor pushed waits this many turns while others are moved


def symmetric_yaw_error(block: Cuboid, goal: Cuboid) -> float:
    """The smallest turn (radians) aligning the block's footprint with the goal's."""
    period = math.pi / 2 if abs(block.size[0] - block.size[1]) < 1e-3 else math.pi
    delta = yaw_of(goal.orientation) - yaw_of(block.orientation)
    return (delta + period / 2) % period - period / 2


def _diagonality(c: Cuboid) -> float:
    """How far (degrees, 0-45) a footprint's yaw is from the world axes, modulo its square symmetry."""
    yaw = math.degrees(yaw_of(c.orientation)) % 90.0
    return min(yaw, 90.0 - yaw)


def _single_quoted(command: Command) -> Command:
    """A Think whose text quotes with ``'`` (as this agent's thoughts always have), so its script
    text needs no escapes; other commands unchanged."""
    if command.name != "Think":
        return command
    return Command("Think", tuple(str(a).replace('"', "'") for a in command.args))


class TriFingerReference:
    """Bound to one backend; plans from its live world every turn."""

    def __init__(self, backend: TriFingerBackend) -> None:
        self.backend = backend
        self._episode: int | None = None
        self._attempts: dict[int, int] = {}  # goal index -> scripts spent on it this episode
        self._turns: dict[int, int] = {}  # goal index -> rotations made for it
        self._levels: dict[int, int] = {}  # goal index -> levelling turns made for it
        self._grasped_from: dict[
            int, tuple[float, float, float]
        ] = {}  # block -> where the last grasp script found it
        self._failed: set[int] = set()  # blocks whose last grasp did not pick them up
        self._pushes: dict[int, int] = {}  # block -> pushes spent on it
        self._skip: dict[
            int, int
        ] = {}  # block -> the turn until which it is left alone (neither graspable nor pushable)
        self._turn = 0
        self._last_steps: int | None = None  # world time (ms) when the last script was planned
        self._last_block: int | None = None  # the block it was about
        self._stalls = 0  # scripts in a row that did not get to move
        self._waits = 0  # turns in a row spent waiting for a block in the air to land

    def next_answer(self, observation: Observation | None = None) -> str:
        """The next commands as script text (what the transcript stores)."""
        return format_script(Script(tuple(self.next_commands(observation))), VOCABULARY)

    def next_commands(self, observation: Observation | None = None) -> list[Command]:
        """The next script's commands, planned from the backend's live world (``observation`` is not needed)."""
        return [_single_quoted(c) for c in self._next_script()]

    def _next_script(self) -> list[Command]:
        world = self.backend.world
        if world.scene is not None and world.scene.tip_goals:
            return self._reach(world.scene.tip_goals)
        if self._episode != self.backend.episode:
            self._episode, self._attempts, self._turns = self.backend.episode, {}, {}
            self._levels, self._grasped_from, self._failed, self._pushes = {}, {}, set(), {}
            self._skip, self._turn = {}, 0
            self._last_steps, self._last_block, self._stalls, self._waits = None, None, 0, 0
        self._turn += 1
        blocks = world.block_cuboids()
        self._note_failed_grasps(blocks)
        goals = world.goal_cuboids()
        stalled = self._last_steps is not None and world.steps - self._last_steps < STALL_MS
        self._last_steps = world.steps
        if stalled:  # the last script failed at its first motion: repeating it would fail again
            self._stalls += 1
            if self.backend.held_block is not None:
                return [
                    Command("Think", ("that carry is out of reach: let go here",)),
                    Command("release", ()),
                ]
            if self._last_block is not None:
                self._failed.add(self._last_block)
            if self._stalls >= 3:
                self._stalls = 0
                return [
                    Command("Think", ("nothing worked from this pose: start over from the rest pose",)),
                    Command("home", ()),
                    Command("wait", (0.3,)),
                ]
        else:
            self._stalls = 0
        falling = (
            self._falling(blocks) if self._waits < 2 else None
        )  # a block wedged up for a second is not falling
        self._waits = self._waits + 1 if falling is not None else 0
        if falling is not None:
            return [
                Command("Think", (f"block {falling} is in the air: let it land first",)),
                Command("wait", (0.5,)),
            ]
        for _ in range(4):  # a block that can be neither grasped nor pushed is skipped for a few turns
            commands = self._plan(blocks, goals)
            if commands is not None:
                return commands
        return [Command("Think", ("no block can be moved from where it lies",)), Command("wait", (1.0,))]

    def _plan(self, blocks: list[Cuboid], goals: list[Cuboid]) -> list[Command] | None:
        """This turn's script, or None when the chosen block was just marked to be skipped."""
        world = self.backend.world
        pairs = self._match(blocks, goals)
        choice = None
        for g, b in pairs:
            tries = self._attempts.get(g, 0)
            score = self._score(blocks[b], goals[g])
            loose = self.backend.held_block != b
            tilted = (
                not loose
                and tilt_degrees(blocks[b]) > self._tilt_tolerance()
                and self._levels.get(g, 0) < MAX_LEVELS
            )
            good_enough = not tilted and (
                self._placed(blocks[b], goals[g])
                or (loose and score >= 0.88)
                or (tries >= 2 and score >= 0.7)
                or (tries >= 4 and score >= 0.5)
                or tries >= MAX_TRIES
            )
            if not good_enough:
                choice = (g, b)
                break
        if choice is None:
            retry = [
                (g, b)
                for g, b in pairs
                if self._attempts.get(g, 0) < MAX_TRIES + 2 and self._score(blocks[b], goals[g]) < 0.5
            ]
            if not retry:
                return [Command("Think", ("every block is where it belongs",)), Command("wait", (1.0,))]
            choice = retry[0]
        g, b = choice
        self._last_block = b
        if self.backend.held_block != b and (
            b in self._failed
            or plan_grasp(world.kinematics, blocks[b], world.target, others=self._others(blocks, b)) is None
        ):
            push = self._push_inwards(blocks, b, goals[g]) if self._pushes.get(b, 0) < MAX_PUSHES else None
            if push is not None:
                return push
            if self._skippable(b, blocks, goals):
                self._skip[b] = self._turn + SKIP_TURNS
                self._failed.discard(b)
                return None
        tries = self._attempts.get(g, 0)
        self._attempts[g] = tries + 1
        last = (
            all(other_g == g or self._attempts.get(other_g, 0) > 0 for other_g, _ in pairs)
            and pairs[-1][0] == g
        )
        commands = self._pick_and_place(blocks, goals, b, g, keep_holding=last, tries=tries)
        if any(c.name == "grasp" for c in commands):
            self._grasped_from[b] = vec3(blocks[b].position)
        return commands

    # -- recovery --------------------------------------------------------------------------------

    def _note_failed_grasps(self, blocks: list[Cuboid]) -> None:
        """A block the last grasp script left (almost) where it was, and is not holding, failed to be picked up."""
        for b, start in list(self._grasped_from.items()):
            if (
                b < len(blocks)
                and self.backend.held_block != b
                and math.dist(blocks[b].position, start) < STUCK_DISTANCE
            ):
                self._failed.add(b)
                logger.debug("grasp of block %d failed; it will be pushed", b)
        self._grasped_from.clear()

    def _push_inwards(self, blocks: list[Cuboid], b: int, goal: Cuboid) -> list[Command] | None:
        """A push of block ``b`` along the floor: onto its goal when that lies on the floor, else towards
        the arena centre, else to the free spot nearby with the most room around it for the fingers;
        every path stops short of fixed obstacles and other blocks. None when no push of 2 cm is free."""
        block = blocks[b]
        start = np.asarray(block.position[:2], dtype=float)
        half = math.hypot(block.size[0], block.size[1]) / 2
        others = self._others(blocks, b)
        radius = float(np.linalg.norm(start))
        targets = []
        if goal.position[2] < block.size[2]:
            targets.append(np.asarray(goal.position[:2], dtype=float))
        if radius > PUSH_RADIUS + 0.02:
            targets.append(start * (PUSH_RADIUS / radius))
        around = [
            start + 0.05 * np.array([math.cos(a), math.sin(a)])
            for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)
        ]
        around = [t for t in around if np.linalg.norm(t) < max(radius, 0.09)]
        targets += sorted(around, key=lambda t: -min((self._gap(t, c) for c in others), default=1.0))
        if self._pushes.get(b, 0) % 2:  # the previous push did not free it: try the next idea first
            targets = targets[1:] + targets[:1]
        for target in targets:
            step = target - start
            length = float(np.linalg.norm(step))
            if length < 1e-6:
                continue
            free = length
            # walk the path in 5% steps; stop before the first one that comes too close to something (or,
            # for a block starting closer than that, closer than it starts)
            limits = [min(half + 0.005, self._gap(start, c) - 0.001) for c in others]
            for k in range(1, 21):
                point = start + step * k / 20
                if any(self._gap(point, c) < limit for c, limit in zip(others, limits)):
                    free = length * (k - 1) / 20
                    break
            if free >= 0.02:
                dx, dy = (float(v) for v in step / length * min(free, 0.1))
                self._pushes[b] = self._pushes.get(b, 0) + 1
                self._failed.discard(b)
                return [
                    Command(
                        "Think",
                        (f"block {b} cannot be picked up where it lies: push it {min(free, 0.1):.2f} m",),
                    ),
                    Command("push", (b, round(dx, 4), round(dy, 4))),
                ]
        return None

    def _free_towards(
        self, blocks: list[Cuboid], b: int, target: np.ndarray, stop: float
    ) -> np.ndarray | None:
        """The farthest point on the way from block ``b`` towards ``target`` (on the floor, ending ``stop``
        metres from the arena centre at the nearest) that it can slide or be carried low to without coming
        closer to anything than it starts; None when that is under 2 cm away."""
        block = blocks[b]
        return self._free_path(
            np.asarray(block.position[:2], dtype=float),
            np.asarray(target, dtype=float),
            stop,
            math.hypot(block.size[0], block.size[1]) / 2,
            self._others(blocks, b),
        )

    def _free_path(
        self, start: np.ndarray, end: np.ndarray, stop: float, half: float, others: list[Cuboid]
    ) -> np.ndarray | None:
        """``_free_towards`` for a footprint of half diagonal ``half`` at ``start`` among ``others``."""
        if float(np.linalg.norm(end)) < stop:
            radius = float(np.linalg.norm(start))
            end = start * (stop / radius) if radius > stop else start
        step = end - start
        length = float(np.linalg.norm(step))
        if length < 0.02:
            return None
        limits = [min(half + 0.005, self._gap(start, c) - 0.001) for c in others]
        free = length
        for k in range(1, 21):
            point = start + step * k / 20
            if any(self._gap(point, c) < limit for c, limit in zip(others, limits)):
                free = length * (k - 1) / 20
                break
        return start + step / length * free if free >= 0.02 else None

    @staticmethod
    def _gap(point: np.ndarray, other: Cuboid) -> float:
        """Horizontal distance from ``point`` to ``other``'s footprint (its bounding box)."""
        low, high = other.aabb()
        return float(np.linalg.norm(point - np.clip(point, low[:2], high[:2])))

    def _skippable(self, b: int, blocks: list[Cuboid], goals: list[Cuboid]) -> bool:
        """Whether another block of the same size, not skipped, could take ``b``'s place."""
        if self._skip.get(b, 0) >= self._turn:
            return False
        size = sorted(blocks[b].size)
        return any(
            i != b and self._skip.get(i, 0) < self._turn and np.allclose(sorted(c.size), size, atol=2e-3)
            for i, c in enumerate(blocks)
        )

    def _others(self, blocks: list[Cuboid], b: int) -> list[Cuboid]:
        return [c for i, c in enumerate(blocks) if i != b] + self.backend.world.obstacle_cuboids()

    # -- planning ------------------------------------------------------------------------------

    def _match(self, blocks: list[Cuboid], goals: list[Cuboid]) -> list[tuple[int, int]]:
        """(goal, block) pairs: lowest goals first, each taking the nearest free block of its size."""
        free = set(range(len(blocks)))
        pairs = []
        for g in sorted(range(len(goals)), key=lambda i: (round(goals[i].position[2], 3), i)):
            same = [b for b in free if np.allclose(sorted(blocks[b].size), sorted(goals[g].size), atol=2e-3)]
            awake = [b for b in same if self._skip.get(b, 0) < self._turn]
            options = awake or same or list(free)
            if not options:
                break
            b = min(options, key=lambda i: math.dist(blocks[i].position, goals[g].position))
            free.discard(b)
            pairs.append((g, b))
        return pairs

    def _placed(self, block: Cuboid, goal: Cuboid) -> bool:
        if self._causalworld():
            return aabb_overlap([block], [goal]) >= CAUSALWORLD_PLACED
        return (
            math.dist(block.position, goal.position) < PLACED_TOLERANCE
            and abs(symmetric_yaw_error(block, goal)) < YAW_TOLERANCE
        )

    # -- the run's success measure -----------------------------------------------------------------

    def _causalworld(self) -> bool:
        """Whether the run scores by CausalWorld's axis-aligned overlap (the ``causalworld`` profile)."""
        return getattr(self.backend, "profile", "agentkit") == "causalworld"

    def _score(self, block: Cuboid, goal: Cuboid) -> float:
        return aabb_overlap([block], [goal]) if self._causalworld() else volumetric_overlap([block], [goal])

    def _yaw_tolerance(self, block: Cuboid, goal: Cuboid) -> float:
        """Degrees of yaw error worth a rotate(). Under CausalWorld's axis-aligned measure a square
        footprint loses nothing while its bounding box is at least as wide as the goal's, i.e. while it
        sits at least as diagonally as the goal: an axis-aligned goal never needs a cube turned, a
        yawed one needs it turned within a few degrees."""
        if not self._causalworld():
            return YAW_TOLERANCE_DEG
        if abs(block.size[0] - block.size[1]) >= 1e-3:
            return CAUSALWORLD_YAW_TOLERANCE_DEG
        if _diagonality(block) >= _diagonality(goal) - CAUSALWORLD_CUBE_SLACK_DEG:
            return 90.0
        return CAUSALWORLD_CUBE_YAW_TOLERANCE_DEG

    def _tilt_tolerance(self) -> float:
        return CAUSALWORLD_TILT_TOLERANCE_DEG if self._causalworld() else TILT_TOLERANCE_DEG

    def _pick_and_place(
        self, blocks: list[Cuboid], goals: list[Cuboid], b: int, g: int, keep_holding: bool, tries: int
    ) -> list[Command]:
        """One turn towards block ``b`` filling goal ``g``. Turning a block in the hand lags the command
        (the grip slips by about a third), so a turn ends after ``rotate`` and the next one measures
        the yaw again: up to ``MAX_TURNS`` rotations per goal before the block is carried over."""
        world = self.backend.world
        block, goal = blocks[b], goals[g]
        others = [c for i, c in enumerate(blocks) if i != b] + world.obstacle_cuboids()
        half = block.size[2] / 2
        gx, gy, gz = (float(v) for v in goal.position)
        top = self._top_along(others, block, (gx, gy))
        if gz > HIGH_GOAL:  # a goal above the workspace is approached as high as the fingers carry
            gz = max(HIGH_GOAL, min(gz, self._highest_carry(block, gx, gy)))
        travel = min(0.2, max(gz, top + half + CLEARANCE, 0.08))
        yaw = math.degrees(symmetric_yaw_error(block, goal))
        held = self.backend.held_block
        commands = [
            Command(
                "Think",
                (f"block {b} goes to goal {g} at ({gx:.3f}, {gy:.3f}, {gz:.3f}), turning {yaw:.0f} degrees",),
            )
        ]
        near = math.dist(block.position[:2], (gx, gy)) < 0.02 and abs(block.position[2] - gz) < 0.02
        stuck = held == b and tries - self._turns.get(g, 0) >= 3 and (near or self._support(b) == 0.0)
        if stuck:  # corrections in the hand did not work: set it down and grasp afresh
            bx, by, _ = block.position
            commands += [
                Command("move_to", (float(bx), float(by), float(self._support(b) + half + 0.002))),
                Command("release", ()),
            ]
            held = None
        levels = self._levels.get(g, 0)
        yaw_tolerance = self._yaw_tolerance(block, goal)
        if held == b and tilt_degrees(block) > self._tilt_tolerance() and levels < MAX_LEVELS:
            self._levels[g] = levels + 1  # level the block in the grip (and turn it when its yaw is off too)
            turn = round(yaw, 1) if abs(yaw) > yaw_tolerance else 0.0
            if near:
                return [*commands, Command("rotate", (b, turn)), Command("move_to", (gx, gy, gz))]
            return [*commands, Command("lift", (travel,)), Command("rotate", (b, turn))]
        if held == b and near:
            if abs(yaw) < max(8.0, yaw_tolerance):
                return [*commands, Command("move_to", (gx, gy, gz))]  # a small correction in place
            commands.append(Command("lift", (travel,)))
        if held != b:
            commands.append(Command("grasp", (b,)))
            inner = self._free_towards(blocks, b, np.zeros(2), stop=INNER_RADIUS) if travel > 0.08 else None
            if inner is not None and math.hypot(*block.position[:2]) > OUTER_RADIUS:
                # far out the fingers cannot raise it high: carry it inwards just off the floor first
                low = round(self._support(b) + half + 0.015, 4)
                commands += [
                    Command("lift", (low,)),
                    Command("move_to", (round(float(inner[0]), 4), round(float(inner[1]), 4), low)),
                ]
            commands.append(Command("lift", (travel,)))
        turns = self._turns.get(g, 0)
        if abs(yaw) > yaw_tolerance and turns < MAX_TURNS:
            self._turns[g] = turns + 1
            return [*commands, Command("move_to", (0.0, 0.0, travel)), Command("rotate", (b, round(yaw, 1)))]
        away = self._away_from_obstacles(goal, block)
        goal_radius = math.hypot(gx, gy)
        inner = None
        if gz < block.size[2] and goal_radius > OUTER_RADIUS and travel > 0.08:
            inner = self._free_path(
                np.array([gx, gy]),
                np.zeros(2),
                INNER_RADIUS,
                math.hypot(block.size[0], block.size[1]) / 2,
                others,
            )
        if (
            inner is not None
        ):  # a floor goal far out: come down nearer the centre, then slide out to it just off the floor
            ix, iy = round(float(inner[0]), 4), round(float(inner[1]), 4)
            low = round(gz + 0.015, 4)
            commands += [
                Command("move_to", (ix, iy, travel)),
                Command("move_to", (ix, iy, low)),
                Command("move_to", (gx, gy, low)),
                Command("move_to", (gx, gy, gz)),
            ]
        elif away is not None:  # come down beside the goal, clear of the wall, then slide in along the floor
            ax, ay = gx + away[0], gy + away[1]
            commands += [
                Command("move_to", (round(ax, 4), round(ay, 4), travel)),
                Command("move_to", (round(ax, 4), round(ay, 4), gz + 0.002)),
                Command("move_to", (gx, gy, gz)),
            ]
        else:
            commands += [Command("move_to", (gx, gy, travel)), Command("move_to", (gx, gy, gz))]
        if not keep_holding:
            commands.append(Command("release", ()))
        return commands

    def _away_from_obstacles(self, goal: Cuboid, block: Cuboid) -> tuple[float, float] | None:
        """A horizontal offset (m) from the goal that keeps a block being lowered clear of fixed
        obstacles closer than a block's half diagonal, or None when nothing is that close."""
        reach = math.hypot(block.size[0], block.size[1]) / 2 + 0.008
        gx, gy = goal.position[0], goal.position[1]
        for obstacle in self.backend.world.obstacle_cuboids():
            low, high = obstacle.aabb()
            nearest = (min(max(gx, low[0]), high[0]), min(max(gy, low[1]), high[1]))
            dx, dy = gx - nearest[0], gy - nearest[1]
            distance = math.hypot(dx, dy)
            if 1e-6 < distance < reach:
                push = reach - distance + 0.004
                return (dx / distance * push, dy / distance * push)
        return None

    @staticmethod
    def _top_along(others: list[Cuboid], block: Cuboid, goal_xy: tuple[float, float]) -> float:
        """The highest top among ``others`` that a block carried from where it lies to ``goal_xy``, straight
        or by way of the arena centre (where it is turned), could pass over."""
        start = np.asarray(block.position[:2], dtype=float)
        goal = np.asarray(goal_xy, dtype=float)
        reach = math.hypot(block.size[0], block.size[1]) / 2 + 0.01
        top = 0.0
        for other in others:
            low, high = other.aabb()
            centre = (low[:2] + high[:2]) / 2
            radius = float(np.linalg.norm(high[:2] - low[:2])) / 2 + reach
            for a, b in ((start, goal), (start, np.zeros(2)), (np.zeros(2), goal)):
                ab = b - a
                t = float(np.clip(np.dot(centre - a, ab) / (float(np.dot(ab, ab)) or 1.0), 0.0, 1.0))
                if float(np.linalg.norm(a + t * ab - centre)) < radius:
                    top = max(top, float(high[2]))
                    break
        return top

    @staticmethod
    def _highest_carry(block: Cuboid, x: float, y: float) -> float:
        """The highest centre (m) a block held at (x, y) can be carried to: its grip's fingertips, a half
        width and a tip radius out from the centre, must stay inside the reachable workspace, with a
        margin for a block hanging low in the grip."""
        spread = math.hypot(x, y) + max(block.size[0], block.size[1]) / 2 + 0.01
        z = WORKSPACE.top
        while z > 0.05 and WORKSPACE.radius_at(z) < spread:
            z -= 0.005
        return z - 0.015  # a block hangs up to 2 cm below its fingertips' centre

    def _falling(self, blocks: list[Cuboid]) -> int | None:
        """A block not held whose bottom is clear of whatever lies under it (a drawn scene can start
        one in the air; it lands within a second), or None."""
        for b, block in enumerate(blocks):
            if b != self.backend.held_block and float(block.aabb()[0][2]) > self._support(b) + 0.01:
                return b
        return None

    def _support(self, b: int) -> float:
        """Top of whatever is under block ``b`` (0 for the floor)."""
        world = self.backend.world
        block = world.block_cuboids()[b]
        x, y = block.position[0], block.position[1]
        top = 0.0
        for i, c in enumerate([*world.block_cuboids(), *world.obstacle_cuboids()]):
            low, high = c.aabb()
            if i != b and low[0] <= x <= high[0] and low[1] <= y <= high[1] and high[2] < block.position[2]:
                top = max(top, float(high[2]))
        return top

    def _reach(self, tip_goals: list[tuple[float, float, float]]) -> list[Command]:
        commands = [Command("Think", ("put each fingertip on its target",))]
        for finger, (x, y, z) in enumerate(tip_goals):
            commands.append(Command("move_tip", (finger, float(x), float(y), float(z))))
        return commands
