"""CausalWorld's tasks as registered gymnasium environments: ids, modes, reward and episode length."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agentkit.envs.gym_registry import TRIFINGER_TASK_IDS
from agentkit.envs.trifinger.gym_env import ACTION_BOUNDS


def _make(env_id: str = "agentkit/trifinger-pushing-v0", **kwargs):
    return gymnasium.make(env_id, **kwargs).unwrapped


@pytest.mark.parametrize("env_id", sorted(TRIFINGER_TASK_IDS))
def test_every_causalworld_task_is_registered_and_passes_check_env(env_id):
    env = _make(env_id)
    try:
        check_env(env, skip_render_check=True)
        assert (
            env.observation_names[0] == "time_left_for_task"
            and len(env.observation_names) == env.observation_space.shape[0]
        )
    finally:
        env.close()


@pytest.mark.parametrize("mode", ["joint_torques", "end_effector_positions"])
def test_the_other_action_modes_pass_check_env(mode):
    env = _make(action_mode=mode)
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def test_pixel_mode_gives_three_camera_and_three_goal_images_in_unit_range():
    env = _make(observation_mode="pixel", task="pushing@P0")
    try:
        obs, _ = env.reset(seed=0)
        again, _ = env.reset(seed=0)
        assert (
            obs.shape == (6, 128, 128, 3) and obs.dtype == np.float32 and env.observation_space.contains(obs)
        )
        assert np.array_equal(obs, again)
        green = (obs[..., 1] > 0.6) & (obs[..., 0] < 0.4)
        assert green[3:].sum() > 20 and green[:3].sum() == 0  # the goal shows in goal images only
        obs, *_ = env.step(np.zeros(9, dtype=np.float32))
        assert env.observation_space.contains(obs)
    finally:
        env.close()


def test_actions_are_scaled_from_minus_one_one_to_causalworlds_bounds():
    env = _make(task="reaching@P0")
    try:
        env.reset(seed=0)
        world = env.backend.world
        low, high = ACTION_BOUNDS["joint_positions"]
        rest = world.target.copy()
        action = 2.0 * (rest - low) / (high - low) - 1.0  # action.py ``normalize_action``
        for _ in range(5):
            env.step(action.astype(np.float32))
        # CausalWorld's PD has no gravity term: the middle joints sag 0.012 rad below the set-point
        assert np.abs(world.joint_positions() - rest).max() < 0.015
        assert world.steps == 5 * 40 and world.physics_steps == 50
    finally:
        env.close()


def test_rewards_add_up_to_the_episodes_dense_reward_and_truncate_at_causalworlds_length():
    env = _make(task="reaching@P0", action_mode="joint_torques")
    try:
        env.reset(seed=0)
        total, steps, truncated, info = 0.0, 0, False, {}
        while not truncated:
            _, reward, terminated, truncated, info = env.step(np.zeros(9, dtype=np.float32))
            assert not terminated
            total += reward
            steps += 1
        assert steps == 126  # reaching: int(5 s / (10 x 4 ms)) = 125, done when the count exceeds it
        assert total == pytest.approx(info["dense_reward"]) and total != 0.0
        assert env.backend.episode_metrics(None)["dense_reward"] == pytest.approx(total, abs=1e-4)
        # fingers fell: far from the targets (goal reward: the mean tip error in m), so CausalWorld's
        # fractional success, clipped at 3 cm, is 0
        assert info["success"] is False and info["goal_reward"] > 0.03
        assert info["fractional_success"] == 0.0
    finally:
        env.close()


def test_pushing_from_the_default_scene_is_the_same_every_reset():
    env = _make(task="pushing@P0")
    try:
        first, _ = env.reset(seed=1)
        second, _ = env.reset(seed=2)
        names = env.observation_names
        block = [i for i, n in enumerate(names) if n.startswith("tool_block_cartesian_position")]
        assert np.allclose(first[block], second[block])
        assert env.observation_space.contains(first)
    finally:
        env.close()


def test_bad_modes_are_one_clear_line():
    with pytest.raises(ValueError, match="observation_mode must be one of structured, pixel"):
        _make(observation_mode="depth")
    with pytest.raises(ValueError, match="action_mode must be one of"):
        _make(action_mode="velocity")


@pytest.mark.filterwarnings(
    "ignore:.*symmetric and normalized space:UserWarning"
)  # the checker's advice, wanted here
def test_unnormalised_actions_and_observations_are_in_causalworlds_units():
    env = _make(task="pushing@P0", normalize_actions=False, normalize_observations=False)
    try:
        check_env(env, skip_render_check=True)
        obs, _ = env.reset(seed=0)
        by_name = dict(zip(env.observation_names, obs))
        block = env.backend.world.block_cuboids()[0].position
        assert by_name["tool_block_cartesian_position[1]"] == pytest.approx(block[1], abs=1e-6)
        assert by_name["time_left_for_task"] == pytest.approx(10.0)
        low, high = ACTION_BOUNDS["joint_positions"]
        assert np.allclose(env.action_space.low, low) and np.allclose(env.action_space.high, high)
        rest = env.backend.world.target.copy()
        for _ in range(5):
            env.step(rest.astype(np.float32))
        assert np.abs(env.backend.world.joint_positions() - rest).max() < 0.015  # the PD's sag
    finally:
        env.close()


def test_skip_frame_3_sets_the_step_the_reward_and_the_cutoff_as_causalworld():
    """The paper's baselines (reproduce_experiments.py: skip_frame 3): dt = 3 x 4 ms = 12 ms, pushing's
    10 s is int(10 / 0.012) = 833 steps and the episode is done when the count exceeds it (834 steps);
    causalworld.py computes the task's reward at every step and scales it by dt."""
    env = _make(task="pushing@P0", skip_frame=3)
    rng = np.random.default_rng(0)
    try:
        env.reset(seed=0)
        rewards: list[float] = []
        truncated = False
        while not truncated:
            _, reward, _, truncated, info = env.step(rng.uniform(-1, 1, 9).astype(np.float32))
            rewards.append(reward)
        assert len(rewards) == 834
        assert env.backend.world.elapsed_s == pytest.approx(834 * 0.012)
        assert all(r != 0.0 for r in rewards)  # a reward at every step, not every 40 ms
        assert sum(rewards) == pytest.approx(info["dense_reward"])
    finally:
        env.close()
