"""The gridworld backend: MiniGrid and BabyAI tasks driven by gridworld scripts.

The model sees the whole grid only as far as the agent has seen it (a ``seen`` mask accumulated
from MiniGrid's egocentric views), while ``privileged`` keeps the full state for scoring and for
the reference agent.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar, Literal

import gymnasium
import minigrid  # noqa: F401  (registers the MiniGrid-* and BabyAI-* environments)
import numpy as np
from minigrid.core.constants import IDX_TO_COLOR, IDX_TO_OBJECT
from PIL import Image

from agentkit.actions import Command, CompileError
from agentkit.envs.base import Backend, PrimitiveAction, ScriptPolicy, StepResult, TaskInfo
from agentkit.envs.gridworld.api_calls import API_CALLS
from agentkit.envs.gridworld.api_vocabulary import API_VOCABULARY
from agentkit.envs.gridworld.catalogue import CATALOGUE, CATEGORIES, DIFFICULTIES
from agentkit.envs.gridworld.placement_bound import bound_agent_placement
from agentkit.envs.gridworld.primitives import PRIMITIVES
from agentkit.envs.gridworld.quiet import quiet_stdout
from agentkit.envs.gridworld.state import SeenMap, grid_view, privileged_state, to_cell
from agentkit.envs.gridworld.tasks import TASKS
from agentkit.envs.gridworld.valid_commands import valid_commands
from agentkit.envs.gridworld.vocabulary import MAX_GO, VOCABULARY, Act, turn_actions
from agentkit.observers import Pose, RawObservation
from agentkit.records import EndReason

logger = logging.getLogger(__name__)

FrameMode = Literal["agent", "full", "none"]
CommandSet = Literal["primitives", "api"]
_ACTIONS = frozenset(int(a) for a in Act)
_SIMPLE = {"pickup": Act.PICKUP, "drop": Act.DROP, "toggle": Act.TOGGLE}
_NAMED_OBJECTS = frozenset({"key", "ball", "box", "goal"})  # what --observe events reports coming into view


class GridworldBackend(Backend):
    """MiniGrid/BabyAI through gymnasium.

    ``frame``: "agent" renders the top-down map with the agent's field of view highlighted,
    "full" the same map without the highlight, "none" no image at all (text views only; note that
    images always show the whole map, unlike the text views which respect the seen mask).
    ``idle_action``: a MiniGrid action to spend while the model's answer was unusable (e.g. 6,
    "done", which only costs a step); ``None`` lets time stand still.
    ``commands``: "primitives" (Go/Turn/Pickup/Drop/Toggle/Think) or "api", which adds the calls
    ``go_to``, ``pickup("red key")``, ``open``, ``put_next_to`` and ``explore``, planned over the
    cells the agent has seen (see ``api_calls``).
    ``egocentric``: also render the agent's own view square as the frame "egocentric".
    Tasks are raw MiniGrid/BabyAI ids or catalogue names such as ``gridworld/door-key-hard``.
    """

    name: ClassVar[str] = "gridworld"
    outcome_meaning: ClassVar[str] = "the mission was completed before the step limit"
    template_set: ClassVar[str] = "gridworld"
    frameless_options: ClassVar[dict[str, Any]] = {"frame": "none"}

    def __init__(
        self,
        render_size: int = 512,
        frame: FrameMode = "agent",
        idle_action: int | None = None,
        commands: CommandSet = "primitives",
        egocentric: bool = False,
    ) -> None:
        if commands not in ("primitives", "api"):
            raise ValueError(f"commands must be 'primitives' or 'api', got {commands!r}")
        if frame not in ("agent", "full", "none"):
            raise ValueError(f"frame must be 'agent', 'full' or 'none', got {frame!r}")
        if idle_action is not None and idle_action not in range(len(Act)):
            raise ValueError(f"idle_action must be a MiniGrid action 0..{len(Act) - 1}, got {idle_action}")
        if render_size < 16:
            raise ValueError(f"render_size must be at least 16 pixels, got {render_size}")
        self.vocabulary = API_VOCABULARY if commands == "api" else VOCABULARY
        self.commands = commands
        self.egocentric = egocentric
        self.render_size = render_size
        self.frame = frame
        self.idle_action = idle_action
        self._env: gymnasium.Env | None = None
        self._raw_env: Any = None  # the unwrapped MiniGridEnv, kept to spare a wrapper walk per step
        self._quiet = quiet_stdout()
        self._task: str | None = None
        self._episode = 0  # bumped by every reset, so planners can tell episodes apart
        self._seen: SeenMap | None = None
        self._in_view: set[tuple[str, str]] = (
            set()
        )  # (colour, object) the agent's view showed when last asked
        self._reward_since_observe = 0.0
        self._total_reward = 0.0
        self._done = False
        self._success: bool | None = None

    # -- Backend interface -------------------------------------------------------------------

    @classmethod
    def tasks(cls) -> list[TaskInfo]:
        """The evaluation catalogue (``gridworld/<family>-<difficulty>``), then the raw levels it grew from."""
        return [*CATALOGUE, *TASKS]

    @classmethod
    def suites(cls) -> dict[str, list[str]]:
        """The whole catalogue, one suite per capability category and one per difficulty."""
        suites = {"gridworld-all": [t.name for t in CATALOGUE]}
        for category in CATEGORIES:
            suites[f"gridworld-{category}"] = [t.name for t in CATALOGUE if t.category == category]
        for difficulty in DIFFICULTIES:
            suites[f"gridworld-{difficulty}"] = [t.name for t in CATALOGUE if t.difficulty == difficulty]
        return suites

    def reset(self, task: str, seed: int) -> RawObservation:
        if self._env is None or task != self._task:
            self.close()
            if task not in gymnasium.registry:
                raise ValueError(f"unknown gridworld task {task!r}; see `agentkit tasks gridworld`")
            render_mode = None if self.frame == "none" else "rgb_array"
            with quiet_stdout():
                self._env = gymnasium.make(task, render_mode=render_mode)
            bound_agent_placement(self._env.unwrapped)  # no seed may hang reset (placement_bound.py)
            self._task = task
        with quiet_stdout():
            obs, _ = self._env.reset(seed=seed)
        env: Any = self._env.unwrapped  # a MiniGridEnv (minigrid ships no type information)
        self._raw_env = env
        env.highlight = self.frame == "agent"
        env.tile_size = max(1, self.render_size // max(env.width, env.height))
        self._episode += 1
        self._seen = SeenMap(env)
        self._seen.add(env, obs["image"])
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
        if name in API_CALLS and (name != "pickup" or command.args and command.args[0]):
            if self._env is None:
                raise RuntimeError("reset() the gridworld before compiling API calls")
            return API_CALLS[name](grid_view(self.unwrapped, self._seen_map().current()), command)
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
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or action not in _ACTIONS:
            raise ValueError(f"gridworld actions are MiniGrid ints 0..{len(Act) - 1}, got {action!r}")
        with self._quiet:
            obs, reward, terminated, truncated, info = self._env.step(int(action))
        self._seen_map().add(self._raw_env, obs["image"])
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
        frames = self.frames_now()
        carrying = to_cell(env.carrying)
        grid = grid_view(env, self._seen_map().current())
        observation = RawObservation(
            step=int(env.step_count),
            frames=frames,
            grid=grid,
            mission=str(env.mission),
            reward=self._reward_since_observe,
            total_reward=self._total_reward,
            done=self._done,
            success=self._success,
            status={
                "carrying": "nothing" if carrying is None else f"{carrying.color} {carrying.kind}",
                "steps_left": int(env.max_steps - env.step_count),
                "commands_useful_now": ", ".join(valid_commands(grid, self.vocabulary)),
            },
            privileged=privileged_state(env, grid.cells),
            # for the viewer's map whatever views the prompt uses (cell, compass word)
            pose=Pose(int(grid.agent_pos[0]), int(grid.agent_pos[1]), grid.agent_dir),
        )
        self._reward_since_observe = 0.0
        return observation

    def idle_actions(self) -> list[int]:
        return [] if self.idle_action is None else [self.idle_action]

    def primitive_actions(self) -> tuple[PrimitiveAction, ...]:
        return PRIMITIVES

    def sight_events(self) -> list[str]:
        """Objects a mission can name (keys, balls, boxes, goals) that the agent's own partial view
        shows now and did not when last asked: MiniGrid's observation of the agent (``gen_obs``),
        walls and closed doors hiding what is behind them, as the agent itself is shown."""
        if self._env is None:
            raise RuntimeError("reset() the gridworld before asking what is in view")
        image = np.asarray(self.unwrapped.gen_obs()["image"])
        now = {
            (IDX_TO_COLOR[int(c)], IDX_TO_OBJECT[int(o)])
            for o, c in image[:, :, :2].reshape(-1, 2)
            if IDX_TO_OBJECT.get(int(o)) in _NAMED_OBJECTS
        }
        new, self._in_view = sorted(now - self._in_view), now
        return [f"{colour} {kind} in view" for colour, kind in new]

    def frames_now(self) -> dict[str, Any]:
        if self._env is None:
            raise RuntimeError("reset() the gridworld before rendering it")
        frames = {} if self.frame == "none" else {"view": self._render()}
        if self.egocentric:
            frames["egocentric"] = self._render_egocentric()
        return frames

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
        self._raw_env = None
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

    def _render_egocentric(self) -> np.ndarray:
        """What the agent sees: its view square, agent at the bottom middle facing up."""
        env = self.unwrapped
        tile = max(1, self.render_size // env.agent_view_size)
        return self._scaled(env.get_pov_render(tile_size=tile))

    def _render(self) -> np.ndarray:
        """The top-down map, scaled so its longer side is ``render_size`` pixels."""
        if self._env is None:
            raise RuntimeError("reset() the gridworld before rendering it")
        return self._scaled(np.asarray(self._env.render()))  # an rgb_array render: already an array

    def _seen_map(self) -> SeenMap:
        """The cells seen so far this episode (made by reset())."""
        if self._seen is None:
            raise RuntimeError("reset() the gridworld before reading it")
        return self._seen

    def _scaled(self, frame: np.ndarray) -> np.ndarray:
        height, width = frame.shape[:2]
        scale = self.render_size / max(height, width)
        if scale != 1:
            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            frame = np.asarray(Image.fromarray(frame).resize(size, Image.Resampling.BILINEAR))
        return np.ascontiguousarray(frame, dtype=np.uint8)
