"""CausalWorld's tasks as gymnasium environments, so an RL user trains here as on CausalWorld.

Why: the same simulated tasks an LLM faces, offered with CausalWorld's RL interface
(``causal_world/envs/causalworld.py``): one control step is ``skip_frame`` physics steps of 4 ms
(10 by default; the paper's baselines use 3), actions and observations are scaled to [-1, 1], the
reward is the task's dense reward computed at every step and scaled by that step's length
(``reward *= self.dt``, dt = ``skip_frame`` x 4 ms), and the episode is truncated as CausalWorld's:
``max_episode_length = int(episode length / dt)`` and done when the step count exceeds it (so 10 s at
``skip_frame=3`` is 834 steps, at 10 it is 251; reaching's 5 s at 10 is 126).

``TriFingerGymEnv(task="pushing", observation_mode=..., action_mode=...)``; registered as
``agentkit/trifinger-<task>-v0`` for each task family (``envs/gym_registry.py``).

* ``action_mode`` (``envs/robot/action.py``): ``joint_positions`` (PD set-points, bounds
  [-1.57, -1.2, -3.0]..[1.0, 1.57, 3.0] per finger), ``joint_torques`` (+-0.36 N m, no gravity
  compensation, as CausalWorld sends them), ``end_effector_positions`` (fingertip targets in
  [-0.5, -0.5, 0]..[0.5, 0.5, 0.5] m, solved by IK). Actions are given in [-1, 1] and scaled to
  those bounds (``normalize_actions=True``, CausalWorld's default), or in those units (False).
* ``observation_mode``: ``structured``, CausalWorld's named vector (``observation_vector``), or
  ``pixel``: three camera images then three goal images, (6, 128, 128, 3) in [0, 1]
  (``cameras.CausalWorldCameras``); ``normalize_observations=False``: the vector in its units,
  the images as uint8. ``clip_observations=False``: the vector exactly as CausalWorld computes it,
  never clipped to its bounds (what its trained actors read, ``causalworld_actors``; e.g.
  pick_and_place's wall size scales to 12.43); the Box is then unbounded on those slots.
* ``number_of_obstacles`` (reaching, creative_stacked_blocks; 0-5): CausalWorld's task variable,
  that many 1 cm fixed cubes at random places (``obstacles``), observed as ``obstacle_<i>_*``.
* training set-up (``training_setup.py``): ``dense_reward_weights`` and ``fractional_reward_weight``
  (the task generator's arguments), ``variables_space`` (``space_a``, ``space_b``, ``space_a_b``),
  ``curriculum`` (``none``, ``goal``: a goal actor at every reset, ``random``: the random actor on
  all variables at every reset), and ``settings="reproduce_experiments"`` for the paper's baselines'
  task configs and world parameters (``skip_frame`` 3 ...).
* ``carry_over`` (``pushing@P10`` and the like): what a protocol episode inherits from earlier ones
  of CausalWorld's evaluation sequence (``protocol_carry_over``: ``benchmark`` by default, as the
  paper's numbers were made; ``protocol``: a fresh env; ``none``: independent draws).
* ``task``: a family (``pushing``) starts each episode from a configuration sampled from the seed;
  ``pushing@P0`` from CausalWorld's default one (as its ``reset`` does), ``pushing@P4`` from that
  protocol's draw.

``info``: ``success`` (CausalWorld's measure), ``goal_reward`` (its goal reward: the axis-aligned
overlap, or for reaching the mean absolute tip error in m), ``fractional_success`` (as CausalWorld's
``get_info``: the goal reward, or for reaching ``1 - (clip(error, 0.01, 0.03) - 0.01) / 0.02``),
``overlap`` (our exact oriented overlap), ``dense_reward`` (the episode's return so far).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces

from agentkit.envs.trifinger import causalworld_robot as robot
from agentkit.envs.trifinger import observation_vector as ov
from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.causalworld_profile import episode_length_s, fractional_success
from agentkit.envs.trifinger.obstacles import count_of
from agentkit.envs.trifinger.state_snapshot import read_state
from agentkit.envs.trifinger.tasks import default_scene, family
from agentkit.envs.trifinger.training_setup import SETTINGS, baseline_settings, make_setup
from agentkit.envs.trifinger.world import SKIP_FRAME, TIME_STEP_S

if TYPE_CHECKING:
    from agentkit.envs.trifinger.cameras import CausalWorldCameras

ACTION_MODES = ("joint_positions", "joint_torques", "end_effector_positions")
OBSERVATION_MODES = ("structured", "pixel")
#: envs/robot/action.py ``TriFingerAction``: the unscaled bounds of each action mode.
ACTION_BOUNDS: dict[str, tuple[np.ndarray, np.ndarray]] = {
    "joint_positions": (robot.JOINT_LOW, robot.JOINT_HIGH),
    "joint_torques": (np.full(9, -0.36), np.full(9, 0.36)),  # ``self.max_motor_torque = 0.36``
    "end_effector_positions": (np.array([-0.5, -0.5, 0.0] * 3), np.array([0.5, 0.5, 0.5] * 3)),
}
#: Families whose object count varies between sampled scenes: room for this many in the vector.
MAX_OBJECTS = {"towers": 27, "general": 5, "stacked_blocks": 35, "creative_stacked_blocks": 24}
PIXEL_SHAPE = (6, 128, 128, 3)


class TriFingerGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 25}  # 1 / (10 x 4 ms)

    def __init__(
        self,
        task: str = "pushing",
        observation_mode: str = "structured",
        action_mode: str = "joint_positions",
        skip_frame: int = SKIP_FRAME,
        render_mode: str | None = None,
        max_objects: int | None = None,
        normalize_actions: bool = True,
        normalize_observations: bool = True,
        number_of_obstacles: int = 0,
        dense_reward_weights: list[float] | tuple[float, ...] | None = None,
        fractional_reward_weight: float | None = None,
        variables_space: str = "space_a",
        curriculum: str = "none",
        settings: str | None = None,
        clip_observations: bool = True,
        carry_over: str | None = None,
    ) -> None:
        if settings is not None:  # a named set-up replaces the options it names (training_setup.py)
            if settings not in SETTINGS:
                raise ValueError(f"settings must be one of {', '.join(SETTINGS)}, got {settings!r}")
            preset = baseline_settings(task.partition("@")[0])
            dense_reward_weights, fractional_reward_weight = (
                preset.dense_reward_weights,
                preset.fractional_reward_weight,
            )
            variables_space, skip_frame = preset.variables_space, preset.skip_frame
            observation_mode, action_mode = preset.observation_mode, preset.action_mode
            normalize_observations = preset.normalize_observations
        if action_mode not in ACTION_MODES:
            raise ValueError(f"action_mode must be one of {', '.join(ACTION_MODES)}, got {action_mode!r}")
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(
                f"observation_mode must be one of {', '.join(OBSERVATION_MODES)}, got {observation_mode!r}"
            )
        if skip_frame < 1:
            raise ValueError(f"skip_frame must be at least 1, got {skip_frame}")
        self.family = task.partition("@")[0]
        family(self.family)  # unknown task: a clear error now
        self.task = task
        self.observation_mode = observation_mode
        self.action_mode = action_mode
        self.skip_frame = skip_frame
        self._dt = TIME_STEP_S * skip_frame  # causalworld.py: ``self.dt = simulation_time x skip_frame``
        self.metadata = {**self.metadata, "render_fps": 1.0 / self._dt}  # its video.frames_per_second
        self.render_mode = render_mode
        self.normalize_actions = normalize_actions
        self.normalize_observations = normalize_observations
        self.clip_observations = clip_observations
        obstacles = count_of(number_of_obstacles, self.family) if number_of_obstacles else 0
        self.setup = make_setup(
            self.family, dense_reward_weights, fractional_reward_weight, variables_space, curriculum
        )
        self.backend = TriFingerBackend(
            cameras=render_mode == "rgb_array",
            end_on_success=False,
            profile="causalworld",
            number_of_obstacles=obstacles,
            curriculum=self.setup.curriculum,
            carry_over=carry_over,
        )
        self._pixels: CausalWorldCameras | None = None
        scene = default_scene(self.family)
        blocks = max(len(scene.blocks), max_objects or MAX_OBJECTS.get(self.family, 0))
        goals = max(len(scene.goals), max_objects or MAX_OBJECTS.get(self.family, 0))
        self.entries = ov.layout(
            self.family,
            blocks,
            goals,
            len(scene.obstacles) + obstacles,
            episode_length_s(self.family, blocks + len(scene.obstacles) + obstacles),
        )
        self.observation_names = ov.names(self.entries)
        if observation_mode == "structured":
            low, high = ov.bounds(self.entries, scaled=normalize_observations)
            if not clip_observations:  # CausalWorld's unclipped values may lie anywhere but the type slots
                free = np.array([e.source[-1] != "type" for e in self.entries for _ in range(e.width)])
                low[free], high[free] = -np.inf, np.inf
            self.observation_space = spaces.Box(low, high, dtype=np.float32)
        elif normalize_observations:
            self.observation_space = spaces.Box(0.0, 1.0, shape=PIXEL_SHAPE, dtype=np.float32)
        else:
            self.observation_space = spaces.Box(0, 255, shape=PIXEL_SHAPE, dtype=np.uint8)
        self._low, self._high = ACTION_BOUNDS[action_mode]
        if normalize_actions:
            self.action_space = spaces.Box(-1.0, 1.0, shape=(9,), dtype=np.float32)
        else:
            self.action_space = spaces.Box(
                self._low.astype(np.float32), self._high.astype(np.float32), dtype=np.float32
            )
        self._steps = 0
        self._max_steps = 0
        self._last_return = 0.0

    # -- gymnasium API ----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        episode_seed = int(self.np_random.integers(0, 2**31 - 1)) if seed is None else seed
        self.backend.reset(self.task, episode_seed)
        world = self.backend.world
        self._check_room()
        # The gym env sums the dense reward itself, once per step of its own length: the world's
        # 40-ms control hook (the LLM loop's clock) would reward only some steps at other skip frames.
        world.control_hook = None
        dense = self.backend._dense
        assert dense is not None  # the backend's reset() made it
        dense.spec = self.setup.reward  # the task generator's weights as configured
        self._steps = 0
        # causalworld.py __init__: ``int(task.get_default_max_episode_length() / self.dt)``
        self._max_steps = int((self.backend.time_limit_steps / 1000.0) / self._dt)
        self._last_return = 0.0
        if self.observation_mode == "pixel" and (self._pixels is None or self._pixels.world is not world):
            from agentkit.envs.trifinger.cameras import CausalWorldCameras

            self._pixels = CausalWorldCameras(world)
        return self._observation(), self._info()

    def step(self, action):
        world = self.backend.world
        action = np.asarray(action, dtype=float).reshape(9)
        if self.normalize_actions:
            command = robot.denormalize_action(action, self._low, self._high)
        else:
            command = np.clip(action, self._low, self._high)  # action.py ``clip_action``
        if self.action_mode == "joint_positions":
            world.hold_steps(command, self.skip_frame)
        elif self.action_mode == "joint_torques":
            world.apply_torques(command, self.skip_frame)
        else:
            solution = world.kinematics.solve(command.reshape(3, 3), world.target)
            world.hold_steps(solution.joints, self.skip_frame)
        self._steps += 1
        dense = self.backend._dense
        assert dense is not None  # the backend's reset() made it
        reward = dense.step(read_state(world), self._dt)  # task.get_reward() x dt, every step
        self._last_return = dense.total
        truncated = self._steps > self._max_steps  # causalworld.py _is_done: count > maximum
        return self._observation(), float(reward), False, truncated, self._info()

    def render(self):
        if self.render_mode != "rgb_array" or self.backend._camera is None:
            return None
        return self.backend._camera.render()["camera180"]

    def close(self) -> None:
        self.backend.close()
        self._pixels = None

    # -- helpers ----------------------------------------------------------------------------------

    def _check_room(self) -> None:
        world = self.backend.world
        room_blocks = sum(1 for e in self.entries if e.source[:1] == ("block",) and e.source[-1] == "type")
        room_goals = sum(1 for e in self.entries if e.source[:1] == ("goal",) and e.source[-1] == "type")
        if self.family != "reaching" and (
            len(world.block_specs) > room_blocks or len(world.goal_specs) > room_goals
        ):
            raise ValueError(
                f"task {self.task!r} drew {len(world.block_specs)} blocks and {len(world.goal_specs)} goals, "
                f"more than the observation's {room_blocks}/{room_goals} slots; pass max_objects="
            )

    def _time_left(self) -> float:
        return max(0.0, self.backend.time_limit_steps / 1000.0 - self.backend.world.elapsed_s)

    def _observation(self) -> np.ndarray:
        if self.observation_mode == "pixel":
            pixels = self._pixels
            assert pixels is not None  # reset() made the cameras for pixel observations
            images = np.concatenate([pixels.scene_images(), pixels.goal_images()], axis=0)
            return images.astype(np.float32) / 255.0 if self.normalize_observations else images
        return ov.vector(
            self.entries,
            read_state(self.backend.world),
            self._time_left(),
            self.normalize_observations,
            self.clip_observations,
        )

    def _info(self) -> dict[str, Any]:
        verdict = self.backend.verdict()
        value = verdict.value if not math.isnan(verdict.value) else 0.0
        return {
            "success": verdict.success,
            "goal_reward": value,
            "fractional_success": fractional_success(self.family, value),
            "overlap": self.backend.current_overlap("volumetric"),
            "dense_reward": self._last_return,
        }
