"""Catalogue tasks as gymnasium environments for RL, with the split seeds."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agentkit.envs.gridworld import GridworldBackend
from agentkit.envs.gridworld.gym_env import make_rl_env
from agentkit.envs.gridworld.seeds import episode_seeds


def test_rl_env_passes_gymnasium_checks_and_walks_the_split_seeds():
    env = make_rl_env("gridworld/door-key-easy", split="train")
    check_env(env.unwrapped, skip_render_check=True)
    seeds = []
    for _ in range(3):
        obs, info = env.reset()
        assert obs.shape == (7, 7, 3) and obs.dtype == np.uint8
        seeds.append(info["seed"])
        _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        assert isinstance(reward, float) or np.isscalar(reward)
    assert seeds == episode_seeds("door-key", "easy", "train", 3)
    env.close()


def test_rl_env_meets_the_same_episode_as_the_backend():
    seed = episode_seeds("lava-gap", "medium", "eval", 1)[0]
    env = make_rl_env("gridworld/lava-gap-medium", split="eval")
    env.reset()
    backend = GridworldBackend(frame="none")
    raw = backend.reset("gridworld/lava-gap-medium", seed)
    assert list(env.unwrapped.agent_pos) == list(raw.grid.agent_pos)
    assert env.unwrapped.grid.encode().tolist() == backend.unwrapped.grid.encode().tolist()
    env.close()
    backend.close()


def test_unknown_task_is_refused():
    with pytest.raises(ValueError, match="not in the gridworld catalogue"):
        make_rl_env("MiniGrid-Empty-5x5-v0")
