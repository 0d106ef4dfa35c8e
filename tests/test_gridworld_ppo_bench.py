"""The PPO baseline bench: its observation and its train-seed walk (the training itself is the bench run)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX

from agentkit.envs.gridworld.gym_env import OneHotView, make_rl_env
from agentkit.envs.gridworld.seeds import episode_seeds

TASK = "gridworld/reach-goal-easy"


def _bench():
    """bench/ is not a package: load the script by its path, relative to this file."""
    path = Path(__file__).resolve().parent.parent / "bench" / "gridworld_ppo.py"
    spec = importlib.util.spec_from_file_location("gridworld_ppo_bench", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_one_hot_view_codes_every_cell_of_the_egocentric_image():
    raw = make_rl_env("gridworld/lava-gap-easy", split="eval")
    image, _ = raw.reset(seed=7)
    env = OneHotView(make_rl_env("gridworld/lava-gap-easy", split="eval"))
    obs, _ = env.reset(seed=7)
    assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
    cells = obs.reshape(49, -1)
    assert (cells.sum(axis=1) == 3).all()  # one object, one colour, one state per cell
    objects = cells[:, : len(OBJECT_TO_IDX)].argmax(axis=1)
    colours = cells[:, len(OBJECT_TO_IDX) : len(OBJECT_TO_IDX) + len(COLOR_TO_IDX)].argmax(axis=1)
    assert objects.tolist() == image.reshape(49, 3)[:, 0].tolist()
    assert colours.tolist() == image.reshape(49, 3)[:, 1].tolist()
    raw.close()
    env.close()


def test_vectorised_copies_share_out_the_train_seeds_without_repeats():
    bench = _bench()
    copies = [bench.StridedSplitSeeds(make_rl_env(TASK, split="train"), first=i, stride=3) for i in range(3)]
    played = [[env.reset()[1]["seed"] for _ in range(2)] for env in copies]
    assert sorted(s for seeds in played for s in seeds) == episode_seeds("reach-goal", "easy", "train", 6)
    assert played[1] == episode_seeds("reach-goal", "easy", "train", 5)[1::3]
    assert copies[0].reset(seed=11)[1]["seed"] == 11  # an explicit seed still wins
