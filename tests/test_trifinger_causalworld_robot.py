"""The TriFinger is CausalWorld's: its URDF, rest pose, action bounds, gains, link ids and stage; its
controller holds a pose as CausalWorld's does (no gravity term); picking's space-B goals are reached."""

from __future__ import annotations

import numpy as np
import pytest

from agentkit.envs.trifinger import causalworld_robot as robot
from agentkit.envs.trifinger.grasping import plan_grasp
from agentkit.envs.trifinger.kinematics import JOINT_HIGH, JOINT_LOW, TipKinematics
from agentkit.envs.trifinger.sampling import draw_protocol
from agentkit.envs.trifinger.world import TriFingerWorld


@pytest.fixture(scope="module")
def world():
    w = TriFingerWorld()
    yield w
    w.close()


def test_the_robot_is_causalworlds_trifinger_edu_with_its_link_ids(world):
    assert robot.urdf_path().name == "trifinger_edu.urdf" and robot.urdf_path().is_file()
    # configs/world_constants.py LINK_IDS: the revolute joints and tips CausalWorld addresses
    assert world.joint_ids == [2, 3, 4, 7, 8, 9, 12, 13, 14]
    assert world.tip_ids == [5, 10, 15]
    assert (robot.asset_folder().parent / "LICENSE").is_file()


def test_rest_pose_limits_and_gains_are_causalworlds():
    assert robot.REST_JOINTS == pytest.approx([0.0, np.pi / 4, -np.pi / 4] * 3)
    assert JOINT_LOW.tolist() == [-1.57, -1.2, -3.0] * 3  # action.py joint_positions_lower_bounds
    assert JOINT_HIGH.tolist() == [1.0, 1.57, 3.0] * 3
    assert robot.POSITION_GAINS.tolist() == [10.0] * 9
    assert robot.VELOCITY_GAINS.tolist() == [0.1, 0.3, 0.001] * 3
    # the rest tips by CausalWorld's URDF: 5.6 cm above the table (get_rest_pose's 0.321 is stale)
    tips = TipKinematics().tips(np.asarray(robot.REST_JOINTS))
    assert tips[:, 2] == pytest.approx([0.0559] * 3, abs=1e-4)
    assert np.linalg.norm(tips[:, :2], axis=1) == pytest.approx([0.1687] * 3, abs=1e-3)


def test_the_safety_check_clips_and_damps_as_causalworld():
    velocities = np.array([1.0, -1.0, 0.0] * 3)
    out = robot.safe_torques(np.array([1.0, -1.0, 0.1] * 3), velocities)
    # clip to 0.36, subtract safety_kd * v (0.08, 0.08, 0.04), clip again
    assert out.tolist() == pytest.approx([0.28, -0.28, 0.1] * 3)


def test_the_pd_holds_the_rest_pose_with_causalworlds_sag_and_the_planner_compensates(world):
    from agentkit.envs.trifinger.scene import Scene

    world.build(Scene("reaching", "hold", joint_positions=robot.REST_JOINTS))
    world.hold_steps(np.asarray(robot.REST_JOINTS), 250)
    sag = world.joint_positions() - np.asarray(robot.REST_JOINTS)
    assert 0.010 < -sag[1] < 0.015  # the middle joint sinks by gravity torque / kp
    world.hold(robot.REST_JOINTS, 1000)
    world.hold(robot.REST_JOINTS, 500)
    assert np.abs(world.joint_positions() - np.asarray(robot.REST_JOINTS)).max() < 1e-4


@pytest.mark.parametrize("seed", range(5))
def test_a_picking_p8_goal_is_reached_by_the_kinematics(seed):
    # a fresh env's draw: space B's goal heights (0.20-0.25 m) uncut by an earlier size episode
    draw = draw_protocol("picking", "P8", seed, carry_over="protocol")
    goal = draw.scene.goals[0].cuboid()
    assert goal.position[2] >= 0.2
    grasp = plan_grasp(TipKinematics(), goal, np.asarray(robot.REST_JOINTS))
    assert grasp is not None, goal.position
