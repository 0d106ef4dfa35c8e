"""The simulated TriFinger and its stage: CausalWorld's robot, table, wall, blocks, obstacles, goals.

Physics: CausalWorld's TriFinger Edu (``causalworld_robot``: its URDF, link dynamics, table and wall)
on a headless pybullet server stepped at 4 ms (``causal_world/envs/causalworld.py``:
``self._simulation_time = 1. / 250``), driven as CausalWorld drives it: at every physics step a PD
torque towards the joint set-point, safety-clipped to 0.36 N m (``envs/robot/trifinger.py``
``apply_action``, ``compute_pd_control_torques``, ``_safety_torque_check``). There is no gravity
term in that controller; agentkit's own scripted motions (``hold``) add one to the set-point
instead (``gravity_offset``), so the robot and its controller stay CausalWorld's and only
agentkit's planner compensates.

A low-level action holds a joint target for ``ms`` milliseconds of simulated time, moving the
set-point linearly from the previous target so the fingers follow smooth joint trajectories. Time is
counted in milliseconds (``steps``, the unit of actions and observations); the physics catches up in
whole 4-ms steps (``physics_steps``), so a 50 ms action runs 12 or 13 steps and no time is lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np

from agentkit.envs.pybullet_support.bullet import connect, disconnect
from agentkit.envs.trifinger import causalworld_robot as robot
from agentkit.envs.trifinger.geometry import Cuboid, vec3
from agentkit.envs.trifinger.kinematics import JOINT_HIGH, JOINT_LOW, TipKinematics
from agentkit.envs.trifinger.scene import BlockSpec, GoalSpec, Scene
from agentkit.envs.trifinger.sim_import import p

logger = logging.getLogger(__name__)

#: causal_world/envs/causalworld.py ``self._simulation_time = 1. / 250`` (the physics step, 4 ms).
TIME_STEP_S = 1.0 / 250
TIME_STEP_MS = 4
#: causal_world/envs/causalworld.py ``skip_frame=10``: physics steps per control step (40 ms).
SKIP_FRAME = 10
CONTROL_STEP_S = TIME_STEP_S * SKIP_FRAME
POSITION_GAINS = robot.POSITION_GAINS
VELOCITY_GAINS = robot.VELOCITY_GAINS
DEFAULT_GRAVITY = (0.0, 0.0, -9.81)
DEFAULT_FRICTION = 0.5  # pybullet's default lateral friction: CausalWorld leaves the table's and wall's
GOAL_ALPHA = (
    0.3  # envs/scene/silhouette.py ``self._alpha = 0.3`` (the renderer draws it opaque; see cameras.py)
)
TIP_GOAL_RADIUS = 0.012


class TriFingerWorld:
    """One pybullet server with the robot; ``build`` swaps the scene's bodies in place."""

    def __init__(self) -> None:
        self.client: int = connect()
        # causal_world/envs/causalworld.py ``_reset_world``: ``deterministicOverlappingPairs=1``, so the
        # contact order (and the result) does not depend on body ids, which change as scenes are rebuilt.
        p.setPhysicsEngineParameter(deterministicOverlappingPairs=1, physicsClientId=self.client)
        p.setTimeStep(TIME_STEP_S, physicsClientId=self.client)
        bodies = robot.load(self.client)
        self.robot_id: int = bodies.robot
        self.table_id: int = bodies.table
        self.stage_id: int = bodies.wall
        self.joint_ids: list[int] = list(bodies.joints)
        self.tip_ids: list[int] = list(bodies.tips)
        self.kinematics = TipKinematics()
        self._limit_self_collision(bodies.links)
        self._positions = np.zeros(9)
        self._velocities = np.zeros(9)
        self.scene: Scene | None = None
        self.block_ids: list[int] = []
        self.obstacle_ids: list[int] = []
        self.goal_ids: list[int] = []
        self.block_specs: list[BlockSpec] = []
        self.goal_specs: list[GoalSpec] = []
        self.target = np.zeros(9)
        self.steps = 0  # simulated milliseconds since the scene was built
        self.physics_steps = 0  # 4-ms physics steps since the scene was built
        self._since_control = 0
        #: Called at the end of every 40-ms control step (the dense reward is summed there).
        self.control_hook: Callable[[], None] | None = None
        self.gravity = DEFAULT_GRAVITY

    def _limit_self_collision(self, links: dict[str, int]) -> None:
        """Keep finger-finger contacts only between lower links and tips, the parts that meet around a
        block; pairs of upper and middle links never touch in reachable poses but were 40% of the
        step time (convex mesh pairs tested every step)."""
        fingers = [
            [links[f"finger_{part}_link_{angle}"] for part in ("upper", "middle", "lower", "tip")]
            for angle in (0, 120, 240)
        ]
        for i, own in enumerate(fingers):
            for j, other in enumerate(fingers):
                for a_rank, a in enumerate(own):
                    for b_rank, b in enumerate(other):
                        if i == j or a_rank < 2 or b_rank < 2:
                            p.setCollisionFilterPair(
                                self.robot_id, self.robot_id, a, b, 0, physicsClientId=self.client
                            )

    # -- building -------------------------------------------------------------------------------

    def built_scene(self) -> Scene:
        """The scene of the last ``build`` (a RuntimeError before the first)."""
        if self.scene is None:
            raise RuntimeError("build() a scene in the TriFinger world before reading it")
        return self.scene

    def build(self, scene: Scene) -> None:
        """Remove the previous scene's bodies and create ``scene``'s; the robot goes to its start pose."""
        for body in [*self.block_ids, *self.obstacle_ids, *self.goal_ids]:
            p.removeBody(body, physicsClientId=self.client)
        self.scene = scene
        self.block_specs = [BlockSpec(**vars(b)) for b in scene.blocks]
        self.goal_specs = [GoalSpec(**vars(g)) for g in scene.goals]
        self.block_ids = [self._cuboid_body(b) for b in self.block_specs]
        self.obstacle_ids = [self._cuboid_body(b) for b in scene.obstacles]
        self.goal_ids = [self._goal_body(g.size, g.position, g.orientation, g.color) for g in self.goal_specs]
        self.goal_ids += [self._sphere_marker(tip, i) for i, tip in enumerate(scene.tip_goals)]
        self.set_gravity(DEFAULT_GRAVITY)
        for body in (self.table_id, self.stage_id):
            p.changeDynamics(body, -1, lateralFriction=DEFAULT_FRICTION, physicsClientId=self.client)
        self.reset_joints(np.asarray(scene.joint_positions, dtype=float))
        self.steps = 0
        self.physics_steps = 0
        self._since_control = 0

    def replace_block(self, index: int, spec: BlockSpec) -> None:
        """Rebuild block ``index`` (a new size needs a new collision shape); it keeps its number."""
        p.removeBody(self.block_ids[index], physicsClientId=self.client)
        self.block_specs[index] = spec
        self.block_ids[index] = self._cuboid_body(spec)

    def replace_goal(self, index: int, spec: GoalSpec) -> None:
        p.removeBody(self.goal_ids[index], physicsClientId=self.client)
        self.goal_specs[index] = spec
        self.goal_ids[index] = self._goal_body(spec.size, spec.position, spec.orientation, spec.color)

    def _cuboid_body(self, spec: BlockSpec) -> int:
        half = [s / 2 for s in spec.size]
        shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=self.client)
        visual = p.createVisualShape(
            p.GEOM_BOX, halfExtents=half, rgbaColor=[*spec.color, 1.0], physicsClientId=self.client
        )
        body = p.createMultiBody(
            baseMass=0.0 if spec.static else spec.mass,
            baseCollisionShapeIndex=shape,
            baseVisualShapeIndex=visual,
            basePosition=spec.position,
            baseOrientation=spec.orientation,
            physicsClientId=self.client,
        )
        p.changeDynamics(
            body,
            -1,
            lateralFriction=1.0,
            spinningFriction=0.001,
            restitution=0.0,
            physicsClientId=self.client,
        )
        return body

    def _goal_body(
        self,
        size: Sequence[float],
        position: Sequence[float],
        orientation: Sequence[float],
        color: Sequence[float],
    ) -> int:
        visual = p.createVisualShape(
            p.GEOM_BOX,
            halfExtents=[s / 2 for s in size],
            rgbaColor=[*color, GOAL_ALPHA],
            physicsClientId=self.client,
        )
        return p.createMultiBody(
            baseMass=0.0,
            baseVisualShapeIndex=visual,
            basePosition=position,
            baseOrientation=orientation,
            physicsClientId=self.client,
        )

    def _sphere_marker(self, position: Sequence[float], index: int) -> int:
        colours = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
        visual = p.createVisualShape(
            p.GEOM_SPHERE,
            radius=TIP_GOAL_RADIUS,
            rgbaColor=[*colours[index % 3], 0.6],
            physicsClientId=self.client,
        )
        return p.createMultiBody(
            baseMass=0.0, baseVisualShapeIndex=visual, basePosition=position, physicsClientId=self.client
        )

    # -- stepping -------------------------------------------------------------------------------

    def reset_joints(self, joints: np.ndarray) -> None:
        """Put the joints at ``joints`` (clipped to the action bounds) at rest; the set-point follows."""
        joints = np.clip(np.asarray(joints, dtype=float), JOINT_LOW, JOINT_HIGH)
        for joint, angle in zip(self.joint_ids, joints):
            p.resetJointState(self.robot_id, joint, float(angle), 0.0, physicsClientId=self.client)
        self._read_joints()
        self.target = joints.copy()

    def _read_joints(self) -> None:
        columns = tuple(zip(*p.getJointStates(self.robot_id, self.joint_ids, physicsClientId=self.client)))
        self._positions = np.array(columns[0])
        self._velocities = np.array(columns[1])

    def _advance(self, ms: int) -> int:
        """Count ``ms`` more milliseconds; the number of whole physics steps now due."""
        self.steps += int(ms)
        due = self.steps // TIME_STEP_MS - self.physics_steps
        self.physics_steps += due
        return due

    def _physics_step(self, torques: np.ndarray) -> None:
        """One 4-ms step under ``torques`` after CausalWorld's safety check (``send_torque_commands``)."""
        applied = robot.safe_torques(torques, self._velocities)
        p.setJointMotorControlArray(
            self.robot_id, self.joint_ids, p.TORQUE_CONTROL, forces=applied, physicsClientId=self.client
        )
        p.stepSimulation(physicsClientId=self.client)
        self._read_joints()
        self._tick()

    def _pd_step(self, set_point: np.ndarray) -> None:
        self._physics_step(robot.pd_torques(set_point, self._positions, self._velocities))

    def gravity_offset(self, joints: np.ndarray) -> np.ndarray:
        """How far past ``joints`` the set-point must lie for the PD controller's spring to hold the
        fingers against gravity there (agentkit's planner only; CausalWorld's actions get none)."""
        return self.kinematics.gravity(joints) / POSITION_GAINS

    def hold(self, joints: Sequence[float], ms: int) -> None:
        """Move the set-point linearly from the current target to ``joints`` over ``ms`` milliseconds,
        gravity-compensated (``gravity_offset``)."""
        goal = np.clip(np.asarray(joints, dtype=float), JOINT_LOW, JOINT_HIGH)
        start = self.target
        offset = self.gravity_offset(goal)
        count = self._advance(ms)
        for k in range(1, count + 1):
            self._pd_step(start + (goal - start) * (k / count) + offset)
        self.target = goal

    def hold_steps(self, joints: Sequence[float] | np.ndarray, count: int) -> None:
        """Hold the set-point ``joints`` (no ramp, no gravity term) for ``count`` physics steps:
        CausalWorld's joint-position control step (``envs/robot/trifinger.py`` ``apply_action``)."""
        goal = np.clip(np.asarray(joints, dtype=float), JOINT_LOW, JOINT_HIGH)
        for _ in range(self._advance(count * TIME_STEP_MS)):
            self._pd_step(goal)
        self.target = goal

    def apply_torques(self, torques: Sequence[float] | np.ndarray, count: int = 1) -> None:
        """Raw torque control for ``count`` physics steps (the gym env's torque mode, safety-checked
        as CausalWorld's); the set-point follows the measured joints."""
        wanted = np.asarray(torques, dtype=float)
        for _ in range(self._advance(count * TIME_STEP_MS)):
            self._physics_step(wanted)
        self.target = self.joint_positions()

    def _tick(self) -> None:
        """After one physics step: every ``SKIP_FRAME`` steps a control step ends; tell the hook."""
        self._since_control += 1
        if self._since_control >= SKIP_FRAME:
            self._since_control = 0
            if self.control_hook is not None:
                self.control_hook()

    @property
    def elapsed_s(self) -> float:
        return self.steps / 1000.0

    # -- state ----------------------------------------------------------------------------------

    def joint_positions(self) -> np.ndarray:
        self._read_joints()
        return self._positions.copy()

    def joint_velocities(self) -> np.ndarray:
        self._read_joints()
        return self._velocities.copy()

    def tips(self) -> np.ndarray:
        """Measured fingertip positions (3, 3)."""
        return self.kinematics.tips(self.joint_positions())

    def block_pose(self, index: int) -> tuple[np.ndarray, tuple[float, float, float, float]]:
        pos, orn = p.getBasePositionAndOrientation(self.block_ids[index], physicsClientId=self.client)
        return np.asarray(pos), tuple(orn)

    def block_cuboids(self) -> list[Cuboid]:
        out = []
        for i, spec in enumerate(self.block_specs):
            pos, orn = self.block_pose(i)
            out.append(Cuboid(tuple(pos), spec.size, orn))
        return out

    def obstacle_cuboids(self) -> list[Cuboid]:
        assert self.scene is not None
        out = []
        for spec, body in zip(self.scene.obstacles, self.obstacle_ids):
            pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
            out.append(Cuboid(tuple(pos), spec.size, tuple(orn)))
        return out

    def goal_cuboids(self) -> list[Cuboid]:
        return [g.cuboid() for g in self.goal_specs]

    def set_gravity(self, gravity: Sequence[float]) -> None:
        self.gravity = vec3(gravity)
        p.setGravity(*self.gravity, physicsClientId=self.client)
        self.kinematics.set_gravity(self.gravity)

    def penetrations(self, tolerance: float = 0.002) -> list[str]:
        """Pairs of bodies interpenetrating by more than ``tolerance`` metres (after a collision pass)."""
        p.performCollisionDetection(physicsClientId=self.client)
        names = {self.robot_id: "robot", self.table_id: "floor", self.stage_id: "stage"}
        names.update({b: spec.name for b, spec in zip(self.block_ids, self.block_specs)})
        if self.scene is not None:
            names.update({b: spec.name for b, spec in zip(self.obstacle_ids, self.scene.obstacles)})
        found = set()
        for body in [*self.block_ids, self.robot_id]:
            for contact in p.getContactPoints(bodyA=body, physicsClientId=self.client):
                other = contact[2]
                if (
                    contact[8] < -tolerance
                    and other != body
                    and not (body == self.robot_id and other == self.robot_id)
                ):
                    found.add(
                        " and ".join(sorted((names.get(body, str(body)), names.get(other, str(other)))))
                    )
        return sorted(found)

    def close(self) -> None:
        disconnect(self.client)
