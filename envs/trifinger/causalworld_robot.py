"""CausalWorld's robot: the TriFinger Edu it loads, its stage, its link ids and its joint controller.

Why this file: a CausalWorld number (its baselines, its trained actors) is only comparable when the
robot is CausalWorld's. The URDF and meshes are CausalWorld's own (``assets/causalworld``, MIT, see
its README); every constant below names where CausalWorld sets it. The arena's floor is z = 0 here,
as CausalWorld reports positions (``WorldConstants.FLOOR_HEIGHT = 0.011`` is subtracted from every
position it observes): so the bodies CausalWorld builds at z = 0 are built 0.011 m lower, and a
position here is the number CausalWorld's observation would show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from agentkit.envs.pybullet_support.bullet import p

#: causal_world/configs/world_constants.py ``FLOOR_HEIGHT``: the table top above CausalWorld's z = 0.
FLOOR_HEIGHT = 0.011
#: world_constants.py ``JOINT_NAMES``: the links whose parent joints are the nine revolute joints.
JOINT_LINKS = tuple(
    f"finger_{part}_link_{angle}" for angle in (0, 120, 240) for part in ("upper", "middle", "lower")
)
#: world_constants.py ``TIP_LINK_NAMES``.
TIP_LINKS = ("finger_tip_link_0", "finger_tip_link_120", "finger_tip_link_240")
#: envs/robot/trifinger.py ``get_rest_pose``: every task but towers and general starts here.
REST_JOINTS: tuple[float, ...] = (0.0, math.pi / 4, -math.pi / 4) * 3
#: envs/robot/action.py ``joint_positions_raised``: towers and general start here.
RAISED_JOINTS: tuple[float, ...] = (-1.56, -0.08, -2.7) * 3
#: envs/robot/action.py ``joint_positions_lower_bounds`` / ``upper_bounds``: the joint-position
#: action space (actions are clipped to it before they reach the controller).
JOINT_LOW = np.array([-1.57, -1.2, -3.0] * 3)
JOINT_HIGH = np.array([1.0, 1.57, 3.0] * 3)
#: envs/robot/trifinger.py ``_position_gains``, ``_velocity_gains``, ``_safety_kd``, ``_max_motor_torque``.
POSITION_GAINS = np.array([10.0, 10.0, 10.0] * 3)
VELOCITY_GAINS = np.array([0.1, 0.3, 0.001] * 3)
SAFETY_KD = np.array([0.08, 0.08, 0.04] * 3)
MAX_TORQUE = 0.36
#: envs/causalworld.py ``_create_world``: the dynamics every finger link gets.
LINK_DYNAMICS = {
    "maxJointVelocity": 1e3,
    "restitution": 0.8,
    "jointDamping": 0.0,
    "lateralFriction": 0.1,
    "spinningFriction": 0.1,
    "rollingFriction": 0.1,
    "linearDamping": 0.5,
    "angularDamping": 0.5,
    "contactStiffness": 0.1,
    "contactDamping": 0.05,
}
#: envs/causalworld.py ``_create_stage``: the table's and the wall's colours.
TABLE_COLOUR = (0.31, 0.27, 0.25, 1.0)
WALL_COLOUR = (0.95, 0.95, 0.95, 1.0)


def asset_folder() -> Path:
    """The shipped copy of CausalWorld's ``robot_properties_fingers`` folder."""
    return (
        Path(str(resources.files("agentkit.envs.trifinger")))
        / "assets"
        / "causalworld"
        / "robot_properties_fingers"
    )


def urdf_path() -> Path:
    return asset_folder() / "urdf" / "trifinger_edu.urdf"


@dataclass(frozen=True)
class RobotBodies:
    """Body and link ids of one loaded robot and stage."""

    robot: int
    table: int
    wall: int
    joints: tuple[int, ...]  # the nine revolute joints, CausalWorld's order
    tips: tuple[int, ...]  # the three tip links
    links: dict[str, int]  # every link by name


def load(client: int) -> RobotBodies:
    """Build CausalWorld's robot and stage in ``client`` (its ``_create_world`` and ``_create_stage``),
    0.011 m lower so the table top is z = 0. Velocity motors are off (``_disable_velocity_control``):
    the joints move by the torques of ``safe_torques`` only."""
    base = [0.0, 0.0, -FLOOR_HEIGHT]
    robot = p.loadURDF(
        str(urdf_path()),
        basePosition=base,
        baseOrientation=[0, 0, 0, 1],
        useFixedBase=1,
        flags=p.URDF_USE_INERTIA_FROM_FILE | p.URDF_USE_SELF_COLLISION,
        physicsClientId=client,
    )
    links = {
        p.getJointInfo(robot, j, physicsClientId=client)[12].decode(): j
        for j in range(p.getNumJoints(robot, physicsClientId=client))
    }
    joints = tuple(links[name] for name in JOINT_LINKS)
    for link in joints:
        p.changeDynamics(robot, link, physicsClientId=client, **LINK_DYNAMICS)
    p.setJointMotorControlArray(
        robot, list(joints), p.VELOCITY_CONTROL, forces=[0.0] * len(joints), physicsClientId=client
    )
    table = _mesh_body(client, "trifinger_table_without_border.stl", 0, TABLE_COLOUR)
    wall = _mesh_body(client, "edu/frame_wall.stl", p.GEOM_FORCE_CONCAVE_TRIMESH, WALL_COLOUR)
    return RobotBodies(robot, table, wall, joints, tuple(links[name] for name in TIP_LINKS), links)


def _mesh_body(client: int, name: str, flags: int, colour: tuple[float, ...]) -> int:
    shape = p.createCollisionShape(
        p.GEOM_MESH,
        fileName=str(asset_folder() / "meshes" / "stl" / name),
        flags=flags,
        physicsClientId=client,
    )
    body = p.createMultiBody(
        baseCollisionShapeIndex=shape,
        baseVisualShapeIndex=-1,
        basePosition=[0.0, 0.0, 0.01 - FLOOR_HEIGHT],
        physicsClientId=client,
    )
    p.changeVisualShape(body, -1, rgbaColor=list(colour), physicsClientId=client)
    return body


def denormalize_action(action: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """envs/robot/action.py ``clip_action`` then ``denormalize_action``: [-1, 1] to ``low``..``high``."""
    clipped = np.clip(np.asarray(action, dtype=float), -1.0, 1.0)
    return low + (clipped + 1.0) / 2.0 * (high - low)


def pd_torques(target: np.ndarray, positions: np.ndarray, velocities: np.ndarray) -> np.ndarray:
    """envs/robot/trifinger.py ``compute_pd_control_torques``: no gravity term."""
    return POSITION_GAINS * (target - positions) - VELOCITY_GAINS * velocities


def safe_torques(desired: np.ndarray, velocities: np.ndarray) -> np.ndarray:
    """envs/robot/trifinger.py ``_safety_torque_check``: clip to the motor's 0.36 N m, damp along the
    velocity, clip again."""
    # np.minimum / np.maximum: the same numbers as np.clip at a third of its call cost (9 values,
    # every 4-ms step)
    clipped = np.minimum(np.maximum(desired, -MAX_TORQUE), MAX_TORQUE)
    return np.minimum(np.maximum(clipped - SAFETY_KD * velocities, -MAX_TORQUE), MAX_TORQUE)
