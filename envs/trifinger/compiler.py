"""Compiles one API call into joint actions, against the live world and the commanded tip targets.

State kept between calls: which block is held (if any). Tip motion always starts from the last
commanded targets (``world.target``), never the measured tips, so a grasp's squeeze survives
across calls. Errors a model can fix (unknown block, nothing held, unreachable point) raise
``CompileError`` with a message written for it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from agentkit.actions import Command, CompileError
from agentkit.envs.trifinger.geometry import Cuboid, vec3
from agentkit.envs.trifinger.grasping import APPROACH, SQUEEZE, TIP_RADIUS, plan_grasp
from agentkit.envs.trifinger.motion import CARRY_TOLERANCE, TrajectoryBuilder, UnreachableError
from agentkit.envs.trifinger.scene import REST_JOINTS
from agentkit.envs.trifinger.vocabulary import VOCABULARY
from agentkit.envs.trifinger.workspace import WORKSPACE
from agentkit.envs.trifinger.world import TriFingerWorld

SAFE_CLEARANCE = 0.035  # tips travel this far above the highest block top when repositioning
CARRY_CLEARANCE = 0.025  # a carried block's bottom clears everything below by this much
DROP_DISTANCE = 0.06  # a held block this far from the tips' centre has slipped out
PUSH_HEIGHT = 0.02  # the lowest push; a taller block is pushed higher (``_push_height``)
SETTLE_S = 0.15
LEVELLING_GAIN = (
    0.8  # the fingers turn the grip by this share of the measured tilt: a full turn overshoots by a
)
#                       third (the block lags in the grip, then swings past), the next measurement corrects the rest


def tilt_degrees(cuboid: Cuboid) -> float:
    """How far (degrees) the block's most vertical face normal leans from upright."""
    column = np.abs(cuboid.rotation[2, :]).max()
    return math.degrees(math.acos(min(1.0, float(column))))


def levelling_rotation(cuboid: Cuboid) -> np.ndarray:
    """The world rotation (3x3) about a horizontal axis that turns the block's most vertical face normal
    upright (``LEVELLING_GAIN`` of the way)."""
    rot = cuboid.rotation
    k = int(np.argmax(np.abs(rot[2, :])))
    up = rot[:, k] * math.copysign(1.0, rot[2, k])
    axis = np.cross(up, [0.0, 0.0, 1.0])
    sine = float(np.linalg.norm(axis))
    if sine < 1e-6:
        return np.eye(3)
    return axis_rotation(axis / sine, LEVELLING_GAIN * math.atan2(sine, float(up[2])))


def axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues' rotation by ``angle`` radians about the unit ``axis``."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


class ScriptCompiler:
    """Turns TriFinger commands into ``{"q", "ms"}`` actions for ``world``."""

    def __init__(self, world: TriFingerWorld) -> None:
        self.world = world
        self.held: int | None = None
        self.normals: np.ndarray | None = None  # outward face normal under each tip of the grasp

    def reset(self) -> None:
        self.held = None
        self.normals = None

    # -- entry point ------------------------------------------------------------------------------

    def compile(self, command: Command) -> list[dict]:
        spec = VOCABULARY.lookup(command.name)
        if spec is None:
            raise CompileError(f"unknown trifinger command {command.name}()", command)
        name = spec.name
        if name == "Think":
            return []
        self._check_held()
        build = TrajectoryBuilder(self.world.kinematics, self.world.target)
        asked = self._asked_point(name, command.args)
        try:
            getattr(self, f"_{name}")(build, *command.args)
        except UnreachableError as exc:
            raise CompileError(
                self._unreachable_message(name, command.args, asked, str(exc)), command
            ) from None
        except ValueError as exc:
            raise CompileError(f"{name}(): {exc}", command) from None
        return build.actions

    def _asked_point(self, name: str, args: tuple) -> tuple[float, float, float] | None:
        """The point a command asks the fingers (or the grasped block's centre) to go to, when it names one."""
        try:
            if name in ("move_to", "move_tip"):
                return vec3(args[-3:])
            if name == "grasp" or name == "rotate" or name == "push":
                x, y, z = self._block(int(args[0])).position
                if name == "push":
                    return (x + float(args[1]), y + float(args[2]), z)
                return (x, y, z)
            if name in ("lift", "place") and self.held is not None:
                held = self._block(self.held)
                if name == "lift":
                    return (held.position[0], held.position[1], float(args[0]) if args else 0.08)
                return (
                    float(args[0]),
                    float(args[1]),
                    self._top_below(args[0], args[1], self.held) + held.size[2] / 2,
                )
        except (ValueError, IndexError, TypeError):
            return None
        return None

    @staticmethod
    def _unreachable_message(
        name: str, args: tuple, asked: tuple[float, float, float] | None, detail: str
    ) -> str:
        """Names the call, the point it asked for, how far it is from the centre axis, and the reachable region."""
        call = f"{name}({', '.join(f'{a:g}' if isinstance(a, float) else str(a) for a in args)})"
        if asked is None:
            where = f"it is out of reach ({detail})"
        else:
            x, y, z = asked
            where = (
                f"the point it asks for, ({x:.3f}, {y:.3f}, {z:.3f}), {math.hypot(x, y):.3f} m from the centre axis, "
                f"is out of reach ({detail})"
            )
        return f"{call}: {where}; reachable region: {WORKSPACE.describe()}"

    # -- commands ---------------------------------------------------------------------------------

    def _grasp(self, build: TrajectoryBuilder, block: int) -> None:
        cuboid = self._block(block)
        if self.held is not None and self.held != block:
            self._open(build)
        grasp = plan_grasp(self.world.kinematics, cuboid, build.q, others=self._others(block))
        if grasp is None:
            x, y, z = cuboid.position
            raise UnreachableError(
                f"block {block} at ({x:.3f}, {y:.3f}, {z:.3f}) cannot be grasped where it lies: "
                "push it closer to the centre"
            )
        safe = self._safe_height()
        self._reposition(build, grasp.approach, safe)
        build.move(grasp.contacts, speed=0.15)
        build.hold(SETTLE_S)
        self.held = block
        self.normals = grasp.normals.copy()

    def _lift(self, build: TrajectoryBuilder, height: float) -> None:
        cuboid = self._held_block()
        self._carry(build, np.array([cuboid.position[0], cuboid.position[1], height]), cuboid)
        build.hold(0.1)

    def _move_to(self, build: TrajectoryBuilder, x: float, y: float, z: float) -> None:
        target = np.array([x, y, z])
        if self.held is None:
            build.move(build.tips + (target - build.tips.mean(axis=0)))
            return
        cuboid = self._held_block()
        if z < cuboid.size[2] / 2:
            raise ValueError(
                f"z = {z} would push block {self.held} into the floor (its half height is {cuboid.size[2] / 2:.3f})"
            )
        self._carry(build, target, cuboid)
        build.hold(0.1)

    def _place(self, build: TrajectoryBuilder, x: float, y: float) -> None:
        cuboid = self._held_block()
        half = cuboid.size[2] / 2
        above = self._top_below(x, y, exclude=self.held)
        travel = max(
            cuboid.position[2],
            self._highest_top(exclude=self.held) + half + CARRY_CLEARANCE,
            above + half + CARRY_CLEARANCE,
        )
        position = np.asarray(cuboid.position)
        if travel > position[2] + 1e-3:
            self._carry(build, np.array([position[0], position[1], travel]), cuboid)
        self._carry(
            build, np.array([x, y, travel]), cuboid, reference=np.array([position[0], position[1], travel])
        )
        self._carry(
            build,
            np.array([x, y, above + half + 0.002]),
            cuboid,
            reference=np.array([x, y, travel]),
            speed=0.12,
        )
        build.hold(0.1)
        self._open(build)

    def _release(self, build: TrajectoryBuilder) -> None:
        if self.held is None:
            raise ValueError("no block is grasped")
        self._open(build)

    def _rotate(self, build: TrajectoryBuilder, block: int, yaw: float) -> None:
        """Turn the grip about the block's centre: first undo the tilt the grip gave the block (the
        smallest turn bringing its most vertical face normal upright), then ``yaw`` about the vertical."""
        cuboid = self._held_block(block)
        angle = math.radians(yaw)
        turn = np.array(
            [[math.cos(angle), -math.sin(angle), 0.0], [math.sin(angle), math.cos(angle), 0.0], [0, 0, 1.0]]
        )
        rot = turn @ levelling_rotation(cuboid)
        build.turn(np.asarray(cuboid.position), rot)
        if self.normals is not None:
            self.normals = self.normals @ rot.T
        build.hold(0.1)

    def _push(self, build: TrajectoryBuilder, block: int, dx: float, dy: float) -> None:
        """Fingertips abreast behind the block, then forward: all three if they reach, else the two
        that do, else one alone (the others wait above the arena)."""
        cuboid = self._block(block)
        if self.held is not None:
            self._open(build)
        distance = math.hypot(dx, dy)
        if distance < 1e-3:
            return
        u = np.array([dx / distance, dy / distance, 0.0])
        side = np.cross([0.0, 0.0, 1.0], u)
        corners = cuboid.corners() - np.asarray(cuboid.position)
        extent = float((corners @ u).max())
        behind = np.asarray(cuboid.position) - u * (extent + TIP_RADIUS + 0.008)
        behind[2] = _push_height(cuboid)
        safe = self._safe_height()

        def push_with(pushers: tuple[int, ...], trial: TrajectoryBuilder) -> None:
            order = sorted(pushers, key=lambda f: float(np.dot(trial.tips[f] - behind, side)))
            start = trial.tips.copy()
            offsets = np.linspace(-0.012, 0.012, len(order)) if len(order) > 1 else [0.0]
            for finger, offset in zip(order, offsets):
                start[finger] = behind + side * offset * 2
            forward = start.copy()
            back = start.copy()
            for finger in order:
                forward[finger] = start[finger] + u * (distance + 0.015)
                back[finger] = forward[finger] - u * 0.02
            self._reposition(trial, start, safe, tuple(order))
            trial.move(forward, speed=0.2)
            trial.move(back)
            # all tips back up; an idle one already as high as it goes (the raised start) stays
            trial.move(
                self._within_reach(trial, trial.tips + np.array([0.0, 0.0, SAFE_CLEARANCE]), trial.tips)
            )

        _first_reachable(
            build,
            [
                functools.partial(push_with, fingers)
                for fingers in ((0, 1, 2), (0, 1), (1, 2), (0, 2), (0,), (1,), (2,))
            ],
        )

    def _move_tip(self, build: TrajectoryBuilder, finger: int, x: float, y: float, z: float) -> None:
        if self.held is not None:
            raise ValueError(f"block {self.held} is held; release() it before moving single fingertips")
        targets = build.tips.copy()
        targets[finger] = (x, y, max(z, TIP_RADIUS))
        build.move(targets)

    def _home(self, build: TrajectoryBuilder) -> None:
        if self.held is not None:
            self._open(build)
        build.move(self._within_reach(build, build.tips + np.array([0.0, 0.0, 0.02]), build.tips))
        build.joints(np.asarray(REST_JOINTS), 0.6)

    def _wait(self, build: TrajectoryBuilder, seconds: float) -> None:
        build.hold(seconds)

    # -- helpers ------------------------------------------------------------------------------------

    def _block(self, index: int) -> Cuboid:
        count = len(self.world.block_ids)
        if not 0 <= index < count:
            raise ValueError(
                f"there is no block {index}; blocks are numbered 0..{count - 1}"
                if count
                else "there are no blocks"
            )
        return self.world.block_cuboids()[index]

    def _held_block(self, block: int | None = None) -> Cuboid:
        if self.held is None:
            raise ValueError("no block is grasped; call grasp(block=N) first")
        if block is not None and block != self.held:
            raise ValueError(f"block {block} is not the grasped one (block {self.held} is)")
        return self._block(self.held)

    def _check_held(self) -> None:
        """Forget a grasp whose block has slipped away from the fingertips."""
        if self.held is None:
            return
        centre = self.world.kinematics.tips(self.world.target).mean(axis=0)
        if np.linalg.norm(np.asarray(self._block(self.held).position) - centre) > DROP_DISTANCE:
            self.held = None

    def _carry(
        self,
        build: TrajectoryBuilder,
        target: np.ndarray,
        cuboid: Cuboid,
        reference: np.ndarray | None = None,
        speed: float = 0.2,
    ) -> None:
        """Move the tips by the offset taking the block (at ``reference``, default its measured centre)
        to ``target``; the grip's commanded squeeze is kept."""
        start = np.asarray(cuboid.position) if reference is None else reference
        build.move(build.tips + (target - start), speed=speed, tolerance=CARRY_TOLERANCE)

    def _open(self, build: TrajectoryBuilder) -> None:
        """Ease off the squeeze, back away along the grasped faces' normals, then rise."""
        if self.normals is not None:
            outward = self.normals
        else:
            outward = build.tips - build.tips.mean(axis=0)
            outward[:, 2] = 0.0
            norms = np.linalg.norm(outward, axis=1, keepdims=True)
            outward = np.where(norms > 1e-6, outward / np.maximum(norms, 1e-6), 0.0)
        build.move(self._as_far_as_reachable(build, build.tips + outward * SQUEEZE), speed=0.05)
        build.move(self._as_far_as_reachable(build, build.tips + outward * APPROACH), speed=0.15)
        build.move(self._as_far_as_reachable(build, build.tips + np.array([0.0, 0.0, SAFE_CLEARANCE])))
        self.held = None
        self.normals = None

    @staticmethod
    def _as_far_as_reachable(build: TrajectoryBuilder, wanted: np.ndarray) -> np.ndarray:
        """``wanted``, with each tip that cannot get there (near the arena wall) going half way, or staying:
        letting go must work wherever a block was carried to."""
        out = wanted.copy()
        for share in (0.5, 0.0):
            bad = build.kin.solve(out, build.q).errors > 0.004
            if not bad.any():
                break
            out[bad] = build.tips[bad] + (wanted[bad] - build.tips[bad]) * share
        return out

    def _reposition(
        self, build: TrajectoryBuilder, targets: np.ndarray, safe: float, fingers: tuple[int, ...] = (0, 1, 2)
    ) -> None:
        """Up to ``safe`` height, across above ``targets``, then down onto them (only ``fingers`` move).
        A tip that cannot rise that high where it is (near the wall) travels as high as it can. When
        that path is out of reach from a tip above ``safe`` (the raised start pose, 0.27 m: a slanted
        path from so high passes points the fingers cannot reach), the tips come straight down to
        ``safe`` first."""
        _first_reachable(
            build,
            [
                functools.partial(
                    self._reposition_path, targets=targets, safe=safe, fingers=fingers, come_down=come_down
                )
                for come_down in (False, True)
            ],
        )

    def _reposition_path(
        self,
        build: TrajectoryBuilder,
        targets: np.ndarray,
        safe: float,
        fingers: tuple[int, ...],
        come_down: bool,
    ) -> None:
        up = build.tips.copy()
        for f in fingers:
            up[f, 2] = safe if come_down else max(up[f, 2], safe)
        build.move(self._within_reach(build, up, build.tips))
        over = build.tips.copy()
        for f in fingers:
            over[f] = (targets[f, 0], targets[f, 1], max(targets[f, 2], safe))
        build.move(self._within_reach(build, over, targets))
        final = build.tips.copy()
        final[list(fingers)] = targets[list(fingers)]
        build.move(final)

    def _within_reach(self, build: TrajectoryBuilder, wanted: np.ndarray, floor: np.ndarray) -> np.ndarray:
        """``wanted`` with each unreachable tip lowered in 1 cm steps towards ``floor``'s height."""
        out = wanted.copy()
        for _ in range(12):
            result = build.kin.solve(out, build.q)
            bad = result.errors > 0.004
            if not bad.any():
                break
            out[bad, 2] = np.maximum(out[bad, 2] - 0.01, floor[bad, 2])
        return out

    def _others(self, block: int) -> list[Cuboid]:
        """Every block but ``block``, and the fixed obstacles."""
        return [
            c for i, c in enumerate(self.world.block_cuboids()) if i != block
        ] + self.world.obstacle_cuboids()

    def _highest_top(self, exclude: int | None = None) -> float:
        tops = [c.aabb()[1][2] for i, c in enumerate(self.world.block_cuboids()) if i != exclude]
        tops += [c.aabb()[1][2] for c in self.world.obstacle_cuboids()]
        return max(tops, default=0.0)

    def _safe_height(self) -> float:
        return self._highest_top() + SAFE_CLEARANCE

    def _top_below(self, x: float, y: float, exclude: int | None = None) -> float:
        """The highest surface under (x, y): a block or obstacle top, or the floor."""
        top = 0.0
        for i, c in enumerate([*self.world.block_cuboids(), *self.world.obstacle_cuboids()]):
            if i == exclude:
                continue
            low, high = c.aabb()
            if low[0] - 0.01 <= x <= high[0] + 0.01 and low[1] - 0.01 <= y <= high[1] + 0.01:
                top = max(top, float(high[2]))
        return top


def _push_height(cuboid: Cuboid) -> float:
    """Where the tips press a block they push: 70% of its height up, at least ``PUSH_HEIGHT``, at most
    5 cm. Why high: the robot's fingers hang from 0.33 m, so near the floor a tip reaches only 0.146 m
    out on its own side, at 5 cm 0.21 m (blocks lying out near the wall can be pushed in); and a block
    pushed at 70% of its height does not tip over (pybullet multiplies the frictions, 1.0 x 0.5)."""
    low, high = cuboid.aabb()
    return float(min(max(low[2] + 0.7 * (high[2] - low[2]), PUSH_HEIGHT), 0.05))


def _first_reachable(build: TrajectoryBuilder, attempts: list[Callable[[TrajectoryBuilder], None]]) -> None:
    """Append to ``build`` the first attempt whose every move is reachable (each is tried on a scratch
    copy from the same joints); when none is, raise the first attempt's error, the most telling one."""
    error: UnreachableError | None = None
    for attempt in attempts:
        trial = TrajectoryBuilder(build.kin, build.q)
        try:
            attempt(trial)
        except UnreachableError as exc:
            error = error or exc
            continue
        build.q, build.tips = trial.q, trial.tips
        build.actions.extend(trial.actions)
        return
    assert error is not None
    raise error
