"""The gridworld backend: MiniGrid and BabyAI tasks driven by gridworld scripts.

The model sees the whole grid only as far as the agent has seen it (a ``seen`` mask accumulated
from MiniGrid's egocentric views), while ``privileged`` keeps the full state for scoring and for
the reference agent.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar, Literal

import gymnasium
import numpy as np
from PIL import Image

import minigrid  # noqa: F401  (registers the MiniGrid-* and BabyAI-* environments)
from agentkit.actions import Command, CompileError
from agentkit.envs.base import Backend, ScriptPolicy, StepResult, TaskInfo
from agentkit.envs.gridworld.quiet import quiet_stdout
from agentkit.envs.gridworld.state import grid_view, mark_seen, new_seen_mask, privileged_state, to_cell
from agentkit.envs.gridworld.tasks import TASKS
from agentkit.envs.gridworld.vocabulary import MAX_GO, VOCABULARY, Act, turn_actions
from agentkit.observers import RawObservation
from agentkit.records import EndReason

logger = logging.getLogger(__name__)

FrameMode = Literal["agent", "full", "none"]
_SIMPLE = {"pickup": Act.PICKUP, "drop": Act.DROP, "toggle": Act.TOGGLE}


class GridworldBackend(Backend):
    """MiniGrid/BabyAI through gymnasium.

    ``frame``: "agent" renders the top-down map with the agent's field of view highlighted,
    "full" the same map without the highlight, "none" no image at all (text views only; note that
    images always show the whole map, unlike the text views which respect the seen mask).
    ``idle_action``: a MiniGrid action to spend while the model's answer was unusable (e.g. 6,
    "done", which only costs a step); ``None`` lets time stand still.
    """

    name: ClassVar[str] = "gridworld"
    template_set: ClassVar[str] = "gridworld"

    def __init__(self, render_size: int = 512, frame: FrameMode = "agent", idle_action: int | None = None) -> None:
        if frame not in ("agent", "full", "none"):
            raise ValueError(f"frame must be 'agent', 'full' or 'none', got {frame!r}")
        if idle_action is not None and idle_action not in range(len(Act)):
            raise ValueError(f"idle_action must be a MiniGrid action 0..{len(Act) - 1}, got {idle_action}")
        if render_size < 16:
            raise ValueError(f"render_size must be at least 16 pixels, got {render_size}")
        self.vocabulary = VOCABULARY
        self.render_size = render_size
        self.frame = frame
        self.idle_action = idle_action
        self._env: gymnasium.Env | None = None
        self._task: str | None = None
        self._episode = 0  # bumped by every reset, so planners can tell episodes apart
        self._seen: np.ndarray | None = None
        self._reward_since_observe = 0.0
        self._total_reward = 0.0
        self._done = False
        self._success: bool | None = None

    # -- Backend interface -------------------------------------------------------------------

    @classmethod
    def tasks(cls) -> list[TaskInfo]:
        return list(TASKS)

    def reset(self, task: str, seed: int) -> RawObservation:
        if self._env is None or task != self._task:
            self.close()
            if task not in gymnasium.registry:
                raise ValueError(f"unknown gridworld task {task!r}; see `agentkit tasks gridworld`")
            render_mode = None if self.frame == "none" else "rgb_array"
            with quiet_stdout():
                self._env = gymnasium.make(task, render_mode=render_mode)
            self._task = task
        with quiet_stdout():
            obs, _ = self._env.reset(seed=seed)
        env = self.unwrapped
        env.highlight = self.frame == "agent"
        env.tile_size = max(1, self.render_size // max(env.width, env.height))
        self._episode += 1
        self._seen = new_seen_mask(env)
        mark_seen(self._seen, env, obs["image"])
        self._reward_since_observe = 0.0
        self._total_reward = 0.0
        self._done = False
        self._success = None
        logger.debug("reset %s seed=%d: %s", task, seed, env.mission)
        return self.observe()

    def compile(self, command: Command) -> list[int]:
        spec = self.vocabulary.lookup(command.name)
        if spec is None:
            raise CompileError(f"unknown gridworld command {command.name}()", command)
        name = spec.name.lower()
        if name == "think":
            return []
        if name in _SIMPLE:
            return [int(_SIMPLE[name])]
        value = command.args[0] if command.args else None
        if not isinstance(value, int) or isinstance(value, bool):
            raise CompileError(f"{spec.name}() needs an integer, got {value!r}", command)
        if name == "go":
            if not 1 <= value <= MAX_GO:
                raise CompileError(f"Go(n) takes 1..{MAX_GO} cells, got {value}", command)
            return [int(Act.FORWARD)] * value
        if name == "turn":
            if value % 90 or not -270 <= value <= 270:
                raise CompileError(f"Turn(degrees) takes multiples of 90 in -270..270, got {value}", command)
            return turn_actions(value)
        raise CompileError(f"gridworld cannot compile {spec.name}()", command)  # a vocabulary without a rule

    def step(self, action: Any) -> StepResult:
        if self._env is None:
            raise RuntimeError("reset() the gridworld before stepping it")
        if self._done:
            raise RuntimeError("the episode is over; reset() before stepping again")
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or action not in range(len(Act)):
            raise ValueError(f"gridworld actions are MiniGrid ints 0..{len(Act) - 1}, got {action!r}")
        with quiet_stdout():
            obs, reward, terminated, truncated, info = self._env.step(int(action))
        env = self.unwrapped
        mark_seen(self._seen, env, obs["image"])
        reward = float(reward)
        self._reward_since_observe += reward
        self._total_reward += reward
        result = StepResult(reward=reward, done=bool(terminated or truncated), info=dict(info))
        if terminated:
            result.success = reward > 0
            if result.success:
                result.end_reason = EndReason.GOAL
            elif self._standing_on("lava"):
                result.end_reason = EndReason.DIED
            else:
                result.end_reason = EndReason.FAILED
        elif truncated:
            result.end_reason = EndReason.TIME_LIMIT
        if result.done:
            self._done = True
            self._success = result.success
        return result

    def observe(self) -> RawObservation:
        if self._env is None:
            raise RuntimeError("reset() the gridworld before observing it")
        env = self.unwrapped
        frames = {} if self.frame == "none" else {"view": self._render()}
        carrying = to_cell(env.carrying)
        observation = RawObservation(
            step=int(env.step_count),
            frames=frames,
            grid=grid_view(env, self._seen),
            mission=str(env.mission),
            reward=self._reward_since_observe,
            total_reward=self._total_reward,
            done=self._done,
            success=self._success,
            status={
                "carrying": "nothing" if carrying is None else f"{carrying.color} {carrying.kind}",
                "steps_left": int(env.max_steps - env.step_count),
            },
            privileged=privileged_state(env),
        )
        self._reward_since_observe = 0.0
        return observation

    def idle_actions(self) -> list[int]:
        return [] if self.idle_action is None else [self.idle_action]

    def reference_policy(self) -> ScriptPolicy:
        from agentkit.envs.gridworld.reference import GridworldReference

        return GridworldReference(self)

    def prompt_context(self) -> dict[str, Any]:
        return {
            "directions": "east is right, south is down, west is left, north is up on the map",
            "coordinates": "x counts columns from the left edge, y counts rows from the top edge, both from 0",
            "turning": "Turn(90) turns right (clockwise), Turn(-90) turns left, Turn(180) turns around",
        }

    def close(self) -> None:
        if self._env is not None:
            self._env.close()
        self._env = None
        self._task = None

    # -- helpers ----------------------------------------------------------------------------

    @property
    def unwrapped(self) -> Any:
        """The live ``MiniGridEnv`` (for privileged planners; never hand it to a model)."""
        if self._env is None:
            raise RuntimeError("no episode: reset() first")
        return self._env.unwrapped

    @property
    def episode(self) -> int:
        """A counter that changes with every reset."""
        return self._episode

    @property
    def task(self) -> str | None:
        return self._task

    def _standing_on(self, kind: str) -> bool:
        env = self.unwrapped
        cell = env.grid.get(*env.agent_pos)
        return cell is not None and cell.type == kind

    def _render(self) -> np.ndarray:
        """The top-down map, scaled so its longer side is ``render_size`` pixels."""
        frame = self._env.render()
        height, width = frame.shape[:2]
        scale = self.render_size / max(height, width)
        if scale != 1:
            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            frame = np.asarray(Image.fromarray(frame).resize(size, Image.BILINEAR))
        return np.ascontiguousarray(frame, dtype=np.uint8)
