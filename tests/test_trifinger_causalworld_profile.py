"""The causalworld profile: CausalWorld's timing, episode lengths, dense reward, success and observation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agentkit.envs.trifinger import observation_vector as ov
from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.causalworld_profile import causalworld_overlap, episode_length_s, judge
from agentkit.envs.trifinger.dense_reward import DenseReward, angle_to_goal
from agentkit.envs.trifinger.geometry import Cuboid
from agentkit.envs.trifinger.state_snapshot import WorldState, body, read_state
from agentkit.envs.trifinger.world import CONTROL_STEP_S, SKIP_FRAME, TIME_STEP_S

CUBE = (0.065, 0.065, 0.065)
UPRIGHT = (0.0, 0.0, 0.0, 1.0)


@pytest.fixture(scope="module")
def backend():
    b = TriFingerBackend(cameras=False)
    yield b
    b.close()


def _state(blocks, goals, tips, velocities=None, obstacles=(), tip_goals=None) -> WorldState:
    return WorldState(
        np.zeros(9),
        np.zeros(9) if velocities is None else np.asarray(velocities, dtype=float),
        np.zeros(9),
        np.asarray(tips, dtype=float),
        list(blocks),
        list(goals),
        list(obstacles),
        np.zeros((0, 3)) if tip_goals is None else np.asarray(tip_goals, dtype=float),
    )


def _quat(axis, degrees) -> tuple[float, float, float, float]:
    half = math.radians(degrees) / 2
    x, y, z = (v * math.sin(half) for v in axis)
    return (x, y, z, math.cos(half))


def _compose(a, b):
    from agentkit.envs.trifinger.dense_reward import _quat_mul

    return tuple(_quat_mul(np.asarray(a), np.asarray(b)))


# -- timing and episode lengths ----------------------------------------------------------------


def test_control_step_is_ten_physics_steps_of_four_ms():
    assert (
        TIME_STEP_S == pytest.approx(1 / 250) and SKIP_FRAME == 10 and CONTROL_STEP_S == pytest.approx(0.04)
    )


@pytest.mark.parametrize(
    "task, seconds",
    [("pushing", 10), ("picking", 10), ("pick_and_place", 20), ("stacking2", 20), ("reaching", 5)],
)
def test_causalworld_episode_lengths(backend, task, seconds):
    backend.reset(task, 0)
    assert backend.time_limit_steps == seconds * 1000
    assert backend.prompt_context()["time_limit_s"] == seconds


def test_length_is_ten_seconds_per_rigid_object_fixed_ones_included(backend):
    backend.reset("towers", 0)
    world = backend.world
    assert backend.time_limit_steps == 10_000 * (len(world.block_specs) + len(world.scene.obstacles))
    assert (
        episode_length_s("stacked_blocks", 35) == 350
        and episode_length_s("creative_stacked_blocks", 24) == 240
    )
    assert episode_length_s("reaching", 0) == 5


def test_agentkit_profile_keeps_the_tasks_own_time_limit():
    b = TriFingerBackend(cameras=False, profile="agentkit")
    try:
        b.reset("pushing", 0)
        assert b.time_limit_steps == int(b.world.scene.time_limit_s * 1000)
        assert b.episode_metrics(None)["profile"] == "agentkit"
        assert b.episode_metrics(None)["success_measure"] == "volumetric_overlap>0.9"
    finally:
        b.close()
    with pytest.raises(ValueError, match="profile must be one of causalworld, agentkit"):
        TriFingerBackend(cameras=False, profile="rlbench")


# -- success ----------------------------------------------------------------------------------


def test_a_tilted_grasped_cube_is_a_causalworld_success_but_not_an_exact_one():
    goal = Cuboid((0.0, 0.0, 0.1), CUBE)
    tilted = Cuboid((0.0, 0.003, 0.096), CUBE, _compose(_quat((1, 0, 0), 12), _quat((0, 1, 0), 10)))
    assert causalworld_overlap([tilted], [goal]) == pytest.approx(1.0)
    exact = judge("agentkit", [tilted], [goal])
    assert exact.value < 0.9 and not exact.success
    verdict = judge("causalworld", [tilted], [goal])
    assert verdict.success and verdict.measure == "causalworld_aabb_overlap>0.9"


def test_causalworld_overlap_sums_box_intersections_over_goal_volumes():
    goal = Cuboid((0.0, 0.0, 0.0325), CUBE)
    half_on = Cuboid((0.0325, 0.0, 0.0325), CUBE)
    assert causalworld_overlap([half_on], [goal]) == pytest.approx(0.5)
    assert causalworld_overlap([], []) == 1.0


def test_reaching_success_is_a_mean_coordinate_error_under_a_centimetre():
    targets = np.array([[0.05, 0.0, 0.1], [0.0, 0.05, 0.1], [-0.05, 0.0, 0.1]])
    near = targets + np.array([0.009, -0.009, 0.009])
    assert judge("causalworld", [], [], near, targets).success
    assert not judge("causalworld", [], [], targets + 0.011, targets).success


# -- dense reward -----------------------------------------------------------------------------


def test_pushing_reward_terms_and_weights():
    goal = body((0.0, 0.08, 0.0325), UPRIGHT, CUBE)
    tips = np.array([[0.0, -0.12, 0.03]] * 3)
    before = _state([body((0.0, -0.08, 0.0325), UPRIGHT, CUBE)], [goal], tips)
    now = _state([body((0.0, -0.07, 0.0325), _quat((0, 0, 1), 10), CUBE)], [goal], tips + [0.0, 0.015, 0.0])
    reward = DenseReward("pushing")
    reward.reset(before)
    value = reward.step(now)
    terms = reward.last_terms
    assert terms[1] == pytest.approx(0.01)  # the block came 1 cm closer to its goal
    assert terms[0] == pytest.approx(
        np.linalg.norm(tips - [0, -0.08, 0.0325]) - np.linalg.norm(tips + [0, 0.015, 0] - [0, -0.07, 0.0325])
    )
    assert terms[2] == pytest.approx(
        -math.radians(10), abs=1e-9
    )  # turned 10 degrees away from the goal's yaw
    assert value == pytest.approx((750 * terms[0] + 250 * terms[1] + 100 * terms[2] + 0.0) * 0.04)
    assert reward.total == pytest.approx(value)


def test_picking_rewards_height_and_penalises_far_fingers():
    goal = body((0.0, 0.0, 0.15), UPRIGHT, CUBE)
    tips = np.array([[0.04, 0.0, 0.03], [-0.04, 0.0, 0.03], [0.0, 0.2, 0.03]])
    before = _state([body((0.0, 0.0, 0.0325), UPRIGHT, CUBE)], [goal], tips)
    now = _state(
        [body((0.0, 0.0, 0.0525), UPRIGHT, CUBE)], [goal], tips + [0.0, 0.0, 0.02], velocities=[0.1] * 9
    )
    reward = DenseReward("picking")
    reward.reset(before)
    reward.step(now)
    t = reward.last_terms
    assert t[0] == pytest.approx(0.02) and t[1] == pytest.approx(-(0.15 - 0.0525))
    assert t[2] == pytest.approx(0.0) and t[3] == pytest.approx(0.0)
    assert t[6] == pytest.approx(0.0)  # the two closest fingers are within the block's size on every axis
    assert t[7] == pytest.approx(-0.3)  # |change of 9 joint velocities by 0.1|


def test_pick_and_place_aims_for_the_carry_height_on_the_wrong_side_and_ignores_overlap():
    goal = body((0.0, 0.09, 0.0325), UPRIGHT, CUBE)
    tips = np.zeros((3, 3))
    before = _state([body((0.0, -0.09, 0.0325), UPRIGHT, CUBE)], [goal], tips)
    now = _state([body((0.0, -0.09, 0.0625), UPRIGHT, CUBE)], [goal], tips)
    reward = DenseReward("pick_and_place")
    reward.reset(before)
    reward.step(now)
    assert reward.last_terms[2] == pytest.approx(0.03)  # 3 cm closer to 0.15 m
    on_goal = _state([body((0.0, 0.09, 0.0325), UPRIGHT, CUBE)], [goal], tips)
    reward.reset(on_goal)
    assert reward.step(on_goal) == pytest.approx(0.0)  # fractional_reward_weight=0 in pick_and_place.py


def test_stacking2_switches_to_the_upper_block_once_the_lower_one_is_placed():
    goals = [
        body((0.0, 0.0, 0.0975), UPRIGHT, CUBE),
        body((0.0, 0.0, 0.0325), UPRIGHT, CUBE),
    ]  # upper listed first
    tips = np.zeros((3, 3))
    placed = body((0.0, 0.0, 0.0325), UPRIGHT, CUBE)
    before = _state([placed, body((0.1, 0.0, 0.0325), UPRIGHT, CUBE)], goals, tips)
    now = _state([placed, body((0.1, 0.0, 0.0525), UPRIGHT, CUBE)], goals, tips)
    reward = DenseReward("stacking2")
    reward.reset(before)
    reward.step(now)
    t = reward.last_terms
    assert t[1] == 0.0 and t[2] == pytest.approx(0.02) and t[3] == 0.0
    assert t[0] == pytest.approx(
        np.linalg.norm(tips - [0.1, 0.0, 0.0325]) - np.linalg.norm(tips - [0.1, 0.0, 0.0525])
    )


def test_reaching_adds_the_mean_error_as_its_goal_reward():
    targets = np.array([[0.05, 0.0, 0.1], [0.0, 0.05, 0.1], [-0.05, 0.0, 0.1]])
    before = _state([], [], targets + 0.02, tip_goals=targets)
    now = _state([], [], targets + 0.01, tip_goals=targets)
    reward = DenseReward("reaching")
    reward.reset(before)
    value = reward.step(now)
    delta = np.linalg.norm(np.full(9, 0.02)) - np.linalg.norm(np.full(9, 0.01))
    assert value == pytest.approx((100000 * delta + 0.01) * 0.04)


def test_angle_to_goal_is_twice_the_arccos_of_the_relative_quaternion():
    assert angle_to_goal(np.array(UPRIGHT), np.array(_quat((0, 0, 1), 30))) == pytest.approx(math.radians(30))


def test_the_backend_sums_the_dense_reward_once_per_40_ms(backend):
    backend.reset("reaching", 0)
    world = backend.world
    error = float(np.mean(np.abs(world.tips() - np.asarray(world.scene.tip_goals))))
    backend.step({"q": world.target.tolist(), "ms": 400})  # ten control steps, the fingers still
    metrics = backend.episode_metrics(None)
    assert metrics["dense_reward"] == pytest.approx(10 * 0.04 * error, rel=0.02)
    assert metrics["profile"] == "causalworld" and metrics["success"] is False
    assert set(metrics) >= {"overlap", "overlap_causalworld", "success_measure", "protocol", "interventions"}


# -- observation vector -----------------------------------------------------------------------


def test_pushing_observation_is_causalworlds_56_numbers_in_its_order(backend):
    backend.reset("pushing@P0", 0)
    state = read_state(backend.world)
    entries = ov.layout("pushing", 1, 1, 0, 10.0)
    names = ov.names(entries)
    assert len(names) == 56
    assert [e.name for e in entries] == [
        "time_left_for_task",
        "joint_positions",
        "joint_velocities",
        "end_effector_positions",
        "tool_block_type",
        "tool_block_size",
        "tool_block_cartesian_position",
        "tool_block_orientation",
        "tool_block_linear_velocity",
        "tool_block_angular_velocity",
        "goal_block_type",
        "goal_block_size",
        "goal_block_cartesian_position",
        "goal_block_orientation",
    ]
    vector = ov.vector(entries, state, time_left=10.0)
    low, high = ov.bounds(entries)
    assert vector.shape == (56,) and np.all(vector >= low) and np.all(vector <= high)
    assert vector[0] == pytest.approx(1.0)  # all the time is left
    by_name = dict(zip(names, vector))
    assert by_name["tool_block_type"] == 1.0 and by_name["goal_block_type"] == 20.0  # types are not scaled
    block = state.blocks[0].position
    assert by_name["tool_block_cartesian_position[1]"] == pytest.approx(2 * (block[1] + 0.5) - 1, abs=1e-6)
    assert by_name["tool_block_size[0]"] == pytest.approx(2 * (0.065 - 0.03) / 0.07 - 1, abs=1e-6)


def test_out_of_bound_values_are_clipped_and_missing_objects_are_zero():
    entries = ov.layout("towers", 2, 2, 0, 20.0)
    state = _state([body((0.9, 0.0, 0.0), UPRIGHT, CUBE, linear=(3.0, 0, 0))], [], np.zeros((3, 3)))
    vector = ov.vector(entries, state, time_left=25.0)
    names = ov.names(entries)
    by_name = dict(zip(names, vector))
    assert by_name["time_left_for_task"] == 1.0 and by_name["tool_0_cartesian_position[0]"] == 1.0
    assert by_name["tool_0_linear_velocity[0]"] == 1.0
    assert names.index("goal_0_type") < names.index("tool_1_type")  # towers.py lists block, goal, block, goal
    assert by_name["tool_1_type"] == 0.0 and by_name["goal_1_cartesian_position[2]"] == 0.0


def test_pick_and_place_observes_the_fixed_wall(backend):
    backend.reset("pick_and_place", 0)
    entries = ov.layout("pick_and_place", 1, 1, 1, 20.0)
    names = ov.names(entries)
    assert names[-11:] == [
        "obstacle_type",
        "obstacle_size[0]",
        "obstacle_size[1]",
        "obstacle_size[2]",
        "obstacle_cartesian_position[0]",
        "obstacle_cartesian_position[1]",
        "obstacle_cartesian_position[2]",
        "obstacle_orientation[0]",
        "obstacle_orientation[1]",
        "obstacle_orientation[2]",
        "obstacle_orientation[3]",
    ]
    vector = ov.vector(entries, read_state(backend.world), 20.0)
    assert vector[names.index("obstacle_type")] == 10.0


@pytest.mark.parametrize(
    "profile, measure",
    [("agentkit", "agentkit_reach_score>0.9"), ("causalworld", "causalworld_reaching_mean_abs_error<0.01")],
)
def test_the_run_configs_profile_option_is_recorded_in_the_episodes_metrics(profile, measure):
    from agentkit.config import RunConfig
    from agentkit.loop import run_episode
    from agentkit.runs.setup_episode import make_setup

    config = RunConfig(
        env="trifinger",
        tasks=["reaching"],
        backend_options={"cameras": False, "profile": profile},
        observer={"views": ["language"]},
        include_images=False,
    )
    setup = make_setup(config)
    try:
        result = run_episode(setup, "reaching", 0)
    finally:
        setup.backend.close()
    assert result.metrics["profile"] == profile and result.metrics["success_measure"] == measure
    assert result.success and result.metrics["success"] is True and result.metrics["dense_reward"] > 0


def test_the_fast_box_overlap_equals_the_cuboid_one():
    from agentkit.envs.trifinger.causalworld_profile import box_overlap

    rng = np.random.default_rng(7)
    for _ in range(20):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        block = body(rng.uniform(-0.03, 0.03, 3) + [0, 0, 0.05], q, rng.uniform(0.03, 0.08, 3))
        goal = body((0.0, 0.0, 0.05), _quat((0, 0, 1), float(rng.uniform(0, 90))), CUBE)
        assert box_overlap([block.aabb()], [goal.aabb()]) == pytest.approx(
            causalworld_overlap([block.cuboid()], [goal.cuboid()]), abs=1e-12
        )


# -- the status the model reads ----------------------------------------------------------------


def test_the_status_names_the_measure_success_is_judged_by():
    cw = TriFingerBackend(cameras=False, profile="causalworld")
    ak = TriFingerBackend(cameras=False, profile="agentkit")
    try:
        status = cw.reset("pushing", 1).status
        metrics = cw.episode_metrics(None)
        keys = list(status)
        assert keys.index("goal_overlap_causalworld") < keys.index("goal_overlap")
        assert status["goal_overlap_causalworld"].startswith(
            f"{metrics['overlap_causalworld']:.3f} (CausalWorld's measure"
        )
        assert "success above 0.9" in status["goal_overlap_causalworld"]
        assert "not what success is judged by" in status["goal_overlap"]
        reaching = cw.reset("reaching", 0).status
        error_cm = float(reaching["tip_error_causalworld"].split(" cm")[0])
        assert (
            error_cm == pytest.approx(cw.verdict().value * 100, abs=0.01)
            and "below 1 cm" in reaching["tip_error_causalworld"]
        )
        plain = ak.reset("pushing", 1).status
        assert "goal_overlap_causalworld" not in plain and plain["goal_overlap"].endswith(
            "(success above 0.9)"
        )
    finally:
        cw.close()
        ak.close()
