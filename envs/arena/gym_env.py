"""The pybullet arena as a Gymnasium environment, so RL agents train on the arenas LLMs are measured on.

Why: Animal-AI's own agents (the 2019 Olympics entrants, PPO baselines) see the world through
Animal-AI's gym wrapper (``animalai.envs.gym.environment.AnimalAIGymEnv``), not through scripts. This
env gives them the same interface on the headless arena, so an RL row and an LLM row of a report
play identical episodes:

* actions: Animal-AI's two branches, ``MultiDiscrete([3, 3])`` (forward/back, right/left; ``[0, 0]``
  does nothing), or with ``flatten_actions=True`` the wrapper's ``Discrete(9)`` (``3 * b0 + b1``);
* observations: the agent's camera, ``Box(0, 255, (render_size, render_size, 3), uint8)``, 84 pixels
  square by default as in Animal-AI's gym wrapper;
* reward per step; ``terminated`` when the arena ends the episode (a goal, death, or the arena's clock
  draining health: Animal-AI's time limit is part of the task, not a truncation). An untimed arena
  (``t: 0``) never ends by itself: pass ``max_episode_steps`` to ``gymnasium.make``.

Options: ``task`` (a Testbed id such as ``"01-04-03"`` or a path to an arena YAML, ``file.yaml#2`` for
one of its arenas), ``aai_version`` (``"3.1.3"`` or ``"4.1.0"``), ``render_size``. ``reset(seed=...)``
is the episode seed; the same (task, seed) always gives the same episode. Registered as
``agentkit/AnimalAI-v0`` (see ``agentkit.envs.gym_registration``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from agentkit.envs.animalai_common.tasks import load_task
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.envs.arena.materials import DEFAULT_VERSION

DEFAULT_TASK = "01-04-03"
DEFAULT_RENDER_SIZE = 84  # Animal-AI's gym wrapper's default resolution


class ArenaGymEnv(gymnasium.Env):
    """One Animal-AI arena task as a gymnasium env (see the module docstring)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 50}

    def __init__(
        self,
        task: str = DEFAULT_TASK,
        aai_version: str = DEFAULT_VERSION,
        render_size: int = DEFAULT_RENDER_SIZE,
        flatten_actions: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        load_task(task)  # an unknown task or a bad YAML: a clear error now, not at the first reset
        self.task = task
        self.render_mode = render_mode
        self.flatten_actions = flatten_actions
        self.backend = ArenaBackend(render_size=render_size, frames=True, aai_version=aai_version)
        self.observation_space = spaces.Box(0, 255, (render_size, render_size, 3), np.uint8)
        self.action_space = spaces.Discrete(9) if flatten_actions else spaces.MultiDiscrete([3, 3])
        self._done = True
        self._frame: np.ndarray | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        episode_seed = int(self.np_random.integers(0, 2**31 - 1)) if seed is None else int(seed)
        raw = self.backend.reset(self.task, episode_seed)
        self._done = False
        self._frame = raw.frames["camera"]
        assert raw.health is not None  # the arena reports health in every observation
        return self._frame.copy(), self._info(raw.health, episode_seed)

    def step(self, action):
        if self._done:
            raise RuntimeError("the episode is over; call reset() before stepping again")
        result = self.backend.step(self._branches(action))
        self._done = result.done
        frame = self.backend.frame()
        assert frame is not None  # the backend was made with frames=True
        self._frame = frame
        reading = self.backend.agent_reading()
        info = self._info(reading.health)
        if result.done:
            info["success"] = result.success
            info["end_reason"] = None if result.end_reason is None else str(result.end_reason.value)
        return frame.copy(), float(result.reward), bool(result.done), False, info

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array" or self._frame is None:
            return None
        return self._frame.copy()

    def close(self) -> None:
        self.backend.close()

    def _branches(self, action: Any) -> list[int]:
        if self.flatten_actions:
            index = int(np.asarray(action).reshape(()))
            if not 0 <= index < 9:
                raise ValueError(f"a flattened Animal-AI action is 0..8, got {action!r}")
            return [index // 3, index % 3]
        branches = np.asarray(action).reshape(-1)
        if branches.shape != (2,):
            raise ValueError(f"an Animal-AI action is [b0, b1] with b0, b1 in 0..2, got {action!r}")
        return [int(branches[0]), int(branches[1])]

    def _info(self, health: float, seed: int | None = None) -> dict[str, Any]:
        info: dict[str, Any] = {"health": float(health), "arena": self.backend.arena_index}
        if seed is not None:
            info["seed"] = seed
        return info
