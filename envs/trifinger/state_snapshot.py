"""One reading of the TriFinger world, as plain arrays: what CausalWorld's rewards and observations read.

Why a snapshot: the dense reward, the success measure and the scaled observation vector all look at
the same quantities (fingertips, joint velocities, block poses and velocities, goal poses); reading
them once per control step from pybullet keeps the three consistent and lets tests build a state by
hand (a tilted grasped cube, a block halfway to its goal) without running the simulator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from agentkit.envs.trifinger.geometry import Cuboid, quat, quaternion_matrix, vec3
from agentkit.envs.trifinger.sim_import import p


@dataclass
class BodyState:
    """A cuboid's pose (position x, y, z; quaternion x, y, z, w) and size; velocities for blocks."""

    position: np.ndarray
    orientation: np.ndarray
    size: np.ndarray
    linear_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def aabb(self) -> tuple[np.ndarray, np.ndarray]:
        """Axis-aligned bounding box (low, high): the centre -+ |R| times the half size, exact for a box."""
        half = np.abs(quaternion_matrix(self.orientation)) @ (np.asarray(self.size, dtype=float) / 2.0)
        return self.position - half, self.position + half

    def cuboid(self) -> Cuboid:
        return Cuboid(vec3(self.position), vec3(self.size), quat(self.orientation))


@dataclass
class WorldState:
    """Everything CausalWorld's task code reads at a control step (metres, radians, seconds)."""

    joint_positions: np.ndarray
    joint_velocities: np.ndarray
    joint_torques: np.ndarray
    tips: np.ndarray  # (3, 3) fingertip positions
    blocks: list[BodyState]
    goals: list[BodyState]
    obstacles: list[BodyState] = field(default_factory=list)
    tip_goals: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    elapsed_s: float = 0.0


def body(position, orientation, size, linear=(0.0, 0.0, 0.0), angular=(0.0, 0.0, 0.0)) -> BodyState:
    """A ``BodyState`` from plain sequences (tests and the world reader use it)."""
    return BodyState(
        np.asarray(position, dtype=float),
        np.asarray(orientation, dtype=float),
        np.asarray(size, dtype=float),
        np.asarray(linear, dtype=float),
        np.asarray(angular, dtype=float),
    )


def read_state(world) -> WorldState:
    """The current state of a ``TriFingerWorld`` (one pybullet query per body)."""
    client = world.client
    joints = p.getJointStates(world.robot_id, world.joint_ids, physicsClientId=client)
    positions = np.array([j[0] for j in joints])
    blocks = []
    for spec, body_id in zip(world.block_specs, world.block_ids):
        pos, orn = p.getBasePositionAndOrientation(body_id, physicsClientId=client)
        linear, angular = p.getBaseVelocity(body_id, physicsClientId=client)
        blocks.append(body(pos, orn, spec.size, linear, angular))
    goals = [body(g.position, g.orientation, g.size) for g in world.goal_specs]
    obstacles = []
    if world.scene is not None:
        for spec, body_id in zip(world.scene.obstacles, world.obstacle_ids):
            pos, orn = p.getBasePositionAndOrientation(body_id, physicsClientId=client)
            obstacles.append(body(pos, orn, spec.size))
    tip_goals = (
        np.asarray(world.scene.tip_goals, dtype=float).reshape(-1, 3) if world.scene else np.zeros((0, 3))
    )
    return WorldState(
        positions,
        np.array([j[1] for j in joints]),
        np.array([j[3] for j in joints]),
        world.kinematics.tips(positions),
        blocks,
        goals,
        obstacles,
        tip_goals,
        world.elapsed_s,
    )
