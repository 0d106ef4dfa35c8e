"""The ``animalai`` backend: Animal-AI's Unity builds (or agentkit's arena behind their protocol) via mlagents-envs.

Why a second Animal-AI backend beside ``aai-arena``: researchers with the official build must be
able to run agentkit on it unchanged. Everything an agent sees is the same as in the arena: the
Testbed tasks and suites, the ``Go``/``Turn``/``Think`` vocabulary and its compiler (one low-level
action ``[b0, b1]`` per environment step), the prompt templates, the status (health, velocity in
the agent's frame, position, time left, lights) and the pass criterion.

What differs is where the world runs. A build is launched with ``UnityEnvironment`` (path from the
``aai_build`` option or ``AAI_BUILD``; ``builtin`` is the ``agentkit-arena`` stand-in), the arena
YAML goes over Animal-AI's side channel, and each step is one gRPC exchange.

Seeds and the reference agent: a Unity build takes its seed once, at launch, and reports only what
an agent perceives. So with a Unity build each episode runs on a fresh launch seeded with the
episode's seed (``relaunch_each_episode``), and the reference agent, which plans on the arena's
privileged state, is not available. The ``builtin`` stand-in also speaks agentkit's episode
channel: it takes each episode's seed without a relaunch and sends the privileged state and the
reason an episode ended, so the reference agent plays through the protocol exactly as in the arena.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

from agentkit.actions import Command
from agentkit.envs.animalai.build import resolve_build
from agentkit.envs.animalai.connector import AnimalAIConnection, LaunchSettings, StepView
from agentkit.envs.animalai_common import episode_facts, motion
from agentkit.envs.animalai_common.lights import lights_on
from agentkit.envs.animalai_common.primitives import PRIMITIVES
from agentkit.envs.animalai_common.protocol import Generation
from agentkit.envs.animalai_common.suites import passed, suites
from agentkit.envs.animalai_common.tasks import TASK_ID, load_task, task_infos
from agentkit.envs.animalai_common.versions import DEFAULT_VERSION
from agentkit.envs.animalai_common.vocabulary import NOOP, VOCABULARY, compile_command, is_action
from agentkit.envs.base import (
    Backend,
    ClockRunOut,
    PrimitiveAction,
    ScriptPolicy,
    StepResult,
    StopCheck,
    TaskInfo,
    step_until_done,
)
from agentkit.observers import Pose, RawObservation, WorldMap
from agentkit.records import EndReason

logger = logging.getLogger(__name__)


class AnimalAIBackend(Backend):
    """Animal-AI through ML-Agents' gRPC protocol.

    ``aai_build``: the build's executable (or its folder), ``builtin`` for agentkit's arena, None
    for the ``AAI_BUILD`` variable. ``render_size``: camera pixels (Animal-AI's ``--resolution``).
    ``frames``: ask for the camera at all. ``worker_id``: port ``base_port + worker_id`` (None: any
    free port). ``timeout_s``: longest wait for the build to connect or answer. ``generation``: 3 or
    4 to override what the handshake says. ``build_args``: extra command-line arguments for the
    build. ``relaunch_each_episode``: None means yes for Unity builds, no for ``builtin``.
    """

    name: ClassVar[str] = "animalai"
    outcome_meaning: ClassVar[str] = "final reward >= the task's pass mark"
    template_set: ClassVar[str] = "aai-arena"
    frameless_options: ClassVar[dict[str, Any]] = {"frames": False}
    protocols: ClassVar[tuple[str, ...]] = ("agentkit", "llm-aai")  # Animal-AI's: docs/protocols.md
    velocity_per_step: ClassVar[float] = motion.STEP_SECONDS

    def __init__(
        self,
        aai_build: str | None = None,
        render_size: int = 512,
        frames: bool = True,
        worker_id: int | None = None,
        base_port: int = 5005,
        timeout_s: float = 60.0,
        generation: int | None = None,
        build_args: list[str] | None = None,
        relaunch_each_episode: bool | None = None,
        idle_action: list[int] | None = NOOP,
    ) -> None:
        if render_size < 16:
            raise ValueError(f"render_size must be at least 16 pixels, got {render_size}")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s}")
        if generation is not None and generation not in (3, 4):
            raise ValueError(f"generation must be 3 or 4 (Animal-AI 3.x or 4.x builds), got {generation!r}")
        if idle_action is not None and not is_action(idle_action):
            raise ValueError(
                f"idle_action must be an Animal-AI action [b0, b1], b0 and b1 in 0..2; got {idle_action!r}"
            )
        build = resolve_build(aai_build)
        self.vocabulary = VOCABULARY
        self.build = build
        self.settings = LaunchSettings(
            build=build,
            render_size=render_size,
            camera=frames,
            worker_id=worker_id,
            base_port=base_port,
            timeout_s=timeout_s,
            generation=Generation(generation) if generation else None,
            extra_args=tuple(build_args or ()),
        )
        self.frames = frames
        self.relaunch_each_episode = (
            (not build.builtin) if relaunch_each_episode is None else relaunch_each_episode
        )
        self.idle_action = None if idle_action is None else [int(b) for b in idle_action]
        self._connection: AnimalAIConnection | None = None
        self._episodes_on_connection = 0
        self._want_privileged = False
        self._files: Path | None = None  # copies of packaged arenas for 4.x builds, made on first use
        self._task: str | None = None
        self._t = 0
        self._pass_mark: float | None = None
        self._blackouts: tuple[int, ...] = ()
        self._arena_spec: Any = None  # the arena the current episode plays, and its seed (for world_map)
        self._seed = 0
        self._view: StepView | None = None
        self._steps = 0
        self._total = 0.0
        self._since_observe = 0.0
        self._done = False
        self._end_reason: EndReason | None = None
        self._episode = 0

    # -- Backend interface -------------------------------------------------------------------

    @classmethod
    def tasks(cls) -> list[TaskInfo]:
        return task_infos()

    @classmethod
    def suites(cls) -> dict[str, list[str]]:
        return suites()

    def check_task(self, task: str) -> None:
        load_task(task)  # parsing the YAML is enough; no need to launch a build

    @property
    def connection(self) -> AnimalAIConnection | None:
        """The live build (None before the first reset and after close)."""
        return self._connection

    @property
    def generation(self) -> Generation | None:
        """The connected build's generation (None before the first reset)."""
        return self._connection.generation if self._connection else None

    def reset(self, task: str, seed: int) -> RawObservation:
        arena = load_task(task).first()
        text, path = self._arena_file(task)
        connection = self._connect(seed)
        self._view = connection.reset(text, path, seed, self._want_privileged)
        self._episodes_on_connection += 1
        self._task, self._t, self._pass_mark, self._blackouts = (
            task,
            arena.t,
            arena.pass_mark,
            arena.blackouts,
        )
        self._arena_spec, self._seed = arena, seed
        self._steps, self._total, self._since_observe = 0, 0.0, 0.0
        self._done, self._end_reason = False, None
        self._episode += 1
        return self.observe()

    def compile(self, command: Command) -> list[list[int]]:
        return compile_command(command)

    def step(self, action: Any) -> StepResult:
        if self._connection is None or self._view is None:
            raise RuntimeError("reset() the Animal-AI backend before stepping it")
        if self._done:
            raise RuntimeError("the episode is over; reset() before stepping again")
        if not is_action(action):
            raise ValueError(f"Animal-AI actions are [b0, b1] with b0, b1 in 0..2, got {action!r}")
        self._view = self._connection.step([int(action[0]), int(action[1])])
        agent = self._view.agent
        self._steps += 1
        self._total += agent.reward
        self._since_observe += agent.reward
        if agent.done:
            self._done = True
            self._end_reason = self._why_ended()
        success = self._end_reason is EndReason.GOAL
        info: dict[str, Any] = {}
        if self._blackouts and lights_on(self._steps, self._blackouts) != lights_on(
            self._steps - 1, self._blackouts
        ):
            info["lights"] = "on" if lights_on(self._steps, self._blackouts) else "off"  # --observe events
        return StepResult(
            reward=agent.reward, done=agent.done, success=success, end_reason=self._end_reason, info=info
        )

    def observe(self) -> RawObservation:
        if self._view is None:
            raise RuntimeError("reset() the Animal-AI backend before observing it")
        agent = self._view.agent
        frames = {"camera": agent.camera} if self.frames and agent.camera is not None else {}
        observation = RawObservation(
            step=self._steps,
            frames=frames,
            reward=self._since_observe,
            total_reward=self._total,
            health=round(agent.health, 4) + 0.0,
            done=self._done,
            success=(self._end_reason is EndReason.GOAL) if self._done else None,
            status={
                "position": [round(v, 2) + 0.0 for v in agent.position],
                "velocity": [round(v, 2) + 0.0 for v in agent.velocity],
                "time_left": episode_facts.steps_left(self._t, self._steps),
                "lights": "on" if lights_on(self._steps, self._blackouts) else "off",
            },
            privileged=dict(self._view.episode.get("privileged") or {}),
            pose=_pose(agent.position),
        )
        self._since_observe = 0.0
        return observation

    def idle_actions(self) -> list[list[int]]:
        return [] if self.idle_action is None else [list(self.idle_action)]

    def primitive_actions(self) -> tuple[PrimitiveAction, ...]:
        return PRIMITIVES

    def frames_now(self) -> dict[str, Any]:
        agent = self._view.agent if self._view is not None else None
        return (
            {"camera": agent.camera} if self.frames and agent is not None and agent.camera is not None else {}
        )

    def run_out_clock(self, stop: StopCheck | None = None) -> ClockRunOut:
        """Step the no-op ``[0, 0]`` until the build ends the episode (Animal-AI's own clock drains
        health to 0), as the LLM-AAI code did at its script limit. An arena with no time limit
        (t = 0) has no clock: nothing is stepped. The bound only guards against a build that never
        ends the episode."""
        if self._view is None:
            raise RuntimeError("reset() the Animal-AI backend before running out its clock")
        if self._done:
            return ClockRunOut(ended=True)
        if self._t <= 0:
            return ClockRunOut()
        return step_until_done(self, list(NOOP), max_steps=max(10 * self._t, 1000), stop=stop)

    def reference_policy(self) -> ScriptPolicy:
        if not self.build.builtin:
            raise ValueError(
                "the reference agent plans on the arena's privileged state, which only the "
                "'builtin' build sends; name a model (--model) to play a Unity build"
            )
        from agentkit.envs.animalai_common.reference import ArenaReferencePolicy

        self._want_privileged = True
        return ArenaReferencePolicy(self)

    def episode_metrics(self, final: Any) -> dict[str, Any]:
        """The Testbed facts, and which Animal-AI played: the builtin stand-in plays v3.1.3 as a 3.x build
        and v4.1.0 as a 4.x one; a Unity build is known only by its generation (``3.x`` or ``4.x``)."""
        if self.build.builtin:
            version: str | None = "4.1.0" if self.generation == Generation.V4 else DEFAULT_VERSION
        else:
            version = f"{int(self.generation)}.x" if self.generation is not None else None
        return {**episode_facts.episode_metrics(self._task, self._pass_mark, final), "aai_version": version}

    def prompt_context(self) -> dict[str, Any]:
        return episode_facts.prompt_context(self._t, self._pass_mark)

    def world_map(self) -> WorldMap | None:
        """The arena's items from above, where they are known: the builtin build spawns them as the
        arena backend does (the same layout for the seed); a Unity build places random items its own
        way, so for it the map is drawn only when the file fixes what is drawn (the drawings of two
        seeds' layouts agree)."""
        from agentkit.envs.animalai_common.layout import build_layout
        from agentkit.envs.animalai_common.world_map import arena_world_map

        if self._arena_spec is None:
            return None
        if self.build.builtin:
            return arena_world_map(build_layout(self._arena_spec, self._seed))
        drawing = arena_world_map(
            build_layout(self._arena_spec, 0)
        )  # (a sphere's random turn draws the same)
        return drawing if drawing == arena_world_map(build_layout(self._arena_spec, 1)) else None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
        self._connection = None
        if self._files is not None:
            shutil.rmtree(self._files, ignore_errors=True)
            self._files = None

    # -- helpers -------------------------------------------------------------------------------

    @property
    def task(self) -> str | None:
        return self._task

    @property
    def episode(self) -> int:
        """A counter that changes with every reset (planners use it to tell episodes apart)."""
        return self._episode

    def _connect(self, seed: int) -> AnimalAIConnection:
        """The live build for an episode of ``seed``: relaunched (seeded) per episode for Unity builds."""
        if self._connection is not None and self.relaunch_each_episode and self._episodes_on_connection:
            self._connection.close()
            self._connection = None
        if self._connection is None or self._connection.closed:
            self._connection = AnimalAIConnection(self.settings, seed, episode_channel=self.build.builtin)
            self._episodes_on_connection = 0
        return self._connection

    def _arena_file(self, task: str) -> tuple[str, str]:
        """The task's YAML text and a file holding it (4.x builds read the file themselves)."""
        if TASK_ID.match(task):
            text = (resources.files("agentkit.envs.arena") / "data" / "testbed" / f"{task}.yaml").read_text(
                "utf-8"
            )
            if self._files is None:
                self._files = Path(tempfile.mkdtemp(prefix="agentkit-aai-"))
            path = self._files / f"{task}.yaml"
            if not path.exists():
                path.write_text(text, encoding="utf-8")
            return text, str(path)
        source = Path(task).expanduser().resolve()
        return source.read_text(encoding="utf-8"), str(source)

    def _why_ended(self) -> EndReason:
        """Why the episode ended: the stand-in says so; for a Unity build it is read off the last step."""
        assert self._view is not None
        said = self._view.episode.get("end_reason")
        if said:
            return EndReason(said)
        return infer_end_reason(
            self._view.agent.max_step_reached,
            self._view.agent.reward,
            self._view.agent.health,
            self._total,
            self._pass_mark,
        )


def infer_end_reason(
    max_step_reached: bool, last_reward: float, health: float, total: float, pass_mark: float | None
) -> EndReason:
    """Why a Unity build ended an episode, from what it reports (it does not say).

    Interrupted at the step limit: ``time_limit``; a goal that brought the reward to the pass mark:
    ``goal``; health exhausted: ``died``; otherwise (a bad goal, too little reward): ``failed``.
    A bad goal big enough to exhaust health reads as ``died``: the protocol cannot tell them apart.
    """
    if max_step_reached:
        return EndReason.TIME_LIMIT
    if last_reward > 0 and passed(total, pass_mark):
        return EndReason.GOAL
    if health <= 1e-6:
        return EndReason.DIED
    return EndReason.FAILED


def _pose(position: tuple[float, float, float]) -> Pose:
    """The agent's pose for the viewer's map: x and z on the floor, the height kept. The vector
    observation gives the position but no heading (its velocity is in the agent's own frame), so
    the heading stays unknown."""
    x, height, z = (round(v, 2) + 0.0 for v in position)
    return Pose(x, z, None, height=height)
