"""Catalogue tasks as plain gymnasium environments, for RL baselines beside the LLM rows.

``make_rl_env("gridworld/door-key-easy", split="train")`` gives MiniGrid's own egocentric image
observation (7x7x3 symbolic encoding) and its seven discrete actions, and resets through the
hashed seeds of the chosen split (``seeds.episode_seeds``): the k-th reset without an explicit
seed plays seed k of that split, so an RL agent trains on ``train`` episodes and is evaluated on
exactly the ``eval`` episodes every LLM agent meets. An explicit ``reset(seed=...)`` still wins.
``OneHotView`` turns that image into a flat one-hot vector, the input a small MLP policy learns from.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX, STATE_TO_IDX
from minigrid.wrappers import ImgObsWrapper

from agentkit.envs.gridworld.catalogue import catalogue_entry
from agentkit.envs.gridworld.quiet import quiet_stdout
from agentkit.envs.gridworld.seeds import base_seed

_MODULUS = 2**31


class SplitSeeds(gymnasium.Wrapper):
    """Resets walk through the hashed seeds of one (family, difficulty, split)."""

    def __init__(self, env: gymnasium.Env, family: str, difficulty: str, split: str) -> None:
        super().__init__(env)
        self.base = base_seed(family, difficulty, split)
        self.episode = 0  # index of the next split seed

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is None:
            seed = (self.base + self.episode) % _MODULUS
            self.episode += 1
        with quiet_stdout():
            obs, info = self.env.reset(seed=seed, options=options)
        return obs, {**info, "seed": seed}

    def step(self, action):
        with quiet_stdout():
            return self.env.step(action)


class OneHotView(gymnasium.ObservationWrapper):
    """The egocentric symbolic image as one flat float32 vector of one-hot codes.

    MiniGrid codes (object, colour, state) as small integers whose order means nothing, and an MLP
    fed them raw (or divided by 255, as image policies do) learns slowly; one-hot codes per cell
    keep the view compact (7 x 7 x 20 = 980 values) and make "is there lava ahead" one input.
    """

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        shape = env.observation_space.shape
        assert shape is not None  # MiniGrid's image observation has a shape
        height, width, _ = shape
        self._offsets = np.array([0, len(OBJECT_TO_IDX), len(OBJECT_TO_IDX) + len(COLOR_TO_IDX)])
        self._depth = len(OBJECT_TO_IDX) + len(COLOR_TO_IDX) + len(STATE_TO_IDX)
        self._cells = height * width
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (self._cells * self._depth,), np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        out = np.zeros((self._cells, self._depth), np.float32)
        codes = observation.reshape(self._cells, 3).astype(np.int64) + self._offsets
        out[np.arange(self._cells)[:, None], codes] = 1.0
        return out.reshape(-1)


def make_rl_env(task: str, split: str = "train", render_mode: str | None = None) -> gymnasium.Env:
    """A catalogue task as a gymnasium env with image observations and split seeds."""
    entry = catalogue_entry(task)
    with quiet_stdout():
        env = gymnasium.make(entry.name, render_mode=render_mode)
    return SplitSeeds(ImgObsWrapper(env), entry.family, entry.difficulty, split)
