"""A gymnasium interface to the same TriFinger tasks, so RL agents train on exactly what LLMs face.

``TriFingerGymEnv(task="pushing", action_mode=...)`` with three action modes, each applied for
``frame_skip`` 4-ms physics steps (default 10, CausalWorld's 25 Hz policy):

* ``joint_positions``: 9 joint targets (rad) for the PD controller with gravity compensation;
* ``joint_torques``: 9 torques (N m), clipped by the robot to +-0.396;
* ``end_effector_positions``: 3 fingertip targets (x, y, z per finger, m), solved by IK.

Observations are one flat float32 vector: joint positions, velocities, fingertips, then for each
block and goal cuboid its position, orientation quaternion and size, zero-padded to the family's
maximum count (``MAX_CUBOIDS``), then the fingertip targets (reaching). Reward is the change of the
fractional overlap (so an episode's return is its final overlap); ``info`` carries ``overlap`` and
``success``. Episodes are truncated at the task's time limit and never terminated early.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from agentkit.envs.trifinger.backend import SUCCESS_THRESHOLD, TriFingerBackend
from agentkit.envs.trifinger.kinematics import JOINT_HIGH, JOINT_LOW
from agentkit.envs.trifinger.tasks import family

ACTION_MODES = ("joint_positions", "joint_torques", "end_effector_positions")
MAX_TORQUE = 0.396
MAX_CUBOIDS = {"towers": 27, "general": 5, "stacked_blocks": 3, "creative_stacked_blocks": 4}
_PER_CUBOID = 10  # position 3, quaternion 4, size 3


class TriFingerGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 25}  # the default 10-step, 25 Hz policy

    def __init__(self, task: str = "pushing", action_mode: str = "joint_positions", frame_skip: int = 10,
                 render_mode: str | None = None, overlap_mode: str = "volumetric") -> None:
        if action_mode not in ACTION_MODES:
            raise ValueError(f"action_mode must be one of {', '.join(ACTION_MODES)}, got {action_mode!r}")
        if frame_skip < 1:
            raise ValueError(f"frame_skip must be at least 1, got {frame_skip}")
        family(task.partition("@")[0])  # unknown task: a clear error now
        self.task = task
        self.action_mode = action_mode
        self.frame_skip = frame_skip
        self.render_mode = render_mode
        self.backend = TriFingerBackend(cameras=render_mode == "rgb_array", overlap_mode=overlap_mode,
                                        end_on_success=False)
        self.max_cuboids = MAX_CUBOIDS.get(task.partition("@")[0], 2)
        size = 27 + 2 * self.max_cuboids * _PER_CUBOID + 9
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        if action_mode == "joint_positions":
            self.action_space = spaces.Box(JOINT_LOW.astype(np.float32), JOINT_HIGH.astype(np.float32), dtype=np.float32)
        elif action_mode == "joint_torques":
            self.action_space = spaces.Box(-MAX_TORQUE, MAX_TORQUE, shape=(9,), dtype=np.float32)
        else:
            low = np.array([-0.2, -0.2, 0.0] * 3, dtype=np.float32)
            high = np.array([0.2, 0.2, 0.3] * 3, dtype=np.float32)
            self.action_space = spaces.Box(low, high, dtype=np.float32)
        self._overlap = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        episode_seed = int(self.np_random.integers(0, 2**31 - 1)) if seed is None else seed
        self.backend.reset(self.task, episode_seed)
        self._overlap = self.backend.current_overlap()
        return self._observation(), self._info()

    def step(self, action):
        world = self.backend.world
        action = np.asarray(action, dtype=float).reshape(9)
        if self.action_mode == "joint_positions":
            world.hold_steps(np.clip(action, JOINT_LOW, JOINT_HIGH), self.frame_skip)
        elif self.action_mode == "joint_torques":
            world.apply_torques(np.clip(action, -MAX_TORQUE, MAX_TORQUE), self.frame_skip)
        else:
            solution = world.kinematics.solve(action.reshape(3, 3), world.target)
            world.hold_steps(solution.joints, self.frame_skip)
        now = self.backend.current_overlap()
        reward, self._overlap = now - self._overlap, now
        truncated = world.steps >= self.backend.time_limit_steps
        return self._observation(), float(reward), False, truncated, self._info()

    def render(self):
        if self.render_mode != "rgb_array" or self.backend._camera is None:
            return None
        return self.backend._camera.render()["camera180"]

    def close(self) -> None:
        self.backend.close()

    def _info(self) -> dict[str, Any]:
        return {"overlap": self._overlap, "success": self._overlap > SUCCESS_THRESHOLD}

    def _observation(self) -> np.ndarray:
        world = self.backend.world
        parts = [world.joint_positions(), world.joint_velocities(), world.tips().ravel()]
        for cuboids in (world.block_cuboids(), world.goal_cuboids()):
            block = np.zeros((self.max_cuboids, _PER_CUBOID))
            for i, c in enumerate(cuboids[: self.max_cuboids]):
                block[i] = [*c.position, *c.orientation, *c.size]
            parts.append(block.ravel())
        tips = np.zeros(9)
        if world.scene is not None and world.scene.tip_goals:
            tips[:] = np.asarray(world.scene.tip_goals).ravel()
        parts.append(tips)
        return np.concatenate(parts).astype(np.float32)
