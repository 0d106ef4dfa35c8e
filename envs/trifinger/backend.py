"""The ``trifinger`` backend: CausalWorld's block tasks on trifinger-simulation, driven by API calls.

A task is a family name (``pushing``, ``stacking2``, ... see ``tasks``) or ``family@Pn`` for one of
CausalWorld's evaluation protocols P0-P11 (the default configuration with that protocol's
interventions, sampled from the seed). Scripts are API calls (``grasp(block=0)``, ``lift(0.08)``,
...) compiled into ``{"q": [...9 joint targets...], "ms": n}`` actions (n milliseconds); the physics
runs at CausalWorld's 4 ms (``world.TIME_STEP_S``).

Profiles (``profile`` option, ``causalworld_profile``): ``causalworld`` (the default) runs each task
for CausalWorld's episode length and judges success as CausalWorld does (axis-aligned overlap > 0.9;
reaching: mean tip error < 1 cm); ``agentkit`` keeps the task's own time limit and the run's
``overlap_mode`` > 0.9. Either way every episode reports ``overlap`` (exact oriented),
``overlap_causalworld``, ``success`` with ``success_measure``, and ``dense_reward``, CausalWorld's
dense reward summed over the episode's 40 ms control steps (``dense_reward``).

Reward per step: the change of the fractional overlap (the run's ``overlap_mode``), so the total
reward is the current overlap. The episode ends on success (``end_on_success``) or when the
simulated time runs out. Every step's ``info`` and the episode's metrics carry CausalWorld's
``fractional_success`` now; the metrics also the series of it at every control step
(``success_series``).

Besides scripts, the backend runs CausalWorld's trained actors (``controllers()``,
``causalworld:<actor>``): a controller participant's ``run_controller(name, seconds)`` compiles to
``{"controller": name, "ms": n}``, during which the actor acts closed-loop every 12 ms
(``causalworld_controller``). That command is in no model's vocabulary.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from agentkit.actions import Command, CompileError
from agentkit.actions.controller_command import MAX_SPAN_S, RUN_CONTROLLER
from agentkit.envs.base import (
    Backend,
    ClockRunOut,
    ScriptPolicy,
    StepResult,
    StopCheck,
    TaskInfo,
    step_until_done,
)
from agentkit.envs.trifinger.causalworld_controller import (
    STEP_MS,
    ActorController,
    controller_names,
    fits,
    is_controller,
)
from agentkit.envs.trifinger.causalworld_profile import (
    DEFAULT_PROFILE,
    Verdict,
    check_profile,
    episode_length_s,
    fractional_success,
    judge,
)
from agentkit.envs.trifinger.compiler import ScriptCompiler
from agentkit.envs.trifinger.curriculum import Curriculum, parse_curriculum
from agentkit.envs.trifinger.dense_reward import DenseReward
from agentkit.envs.trifinger.describe import status_lines, structured_state
from agentkit.envs.trifinger.fractional_success_series import episode_fractional_success
from agentkit.envs.trifinger.obstacles import OBSTACLE_STREAM, check_count, with_obstacles
from agentkit.envs.trifinger.overlap import OVERLAP_MODES, OverlapMode, aabb_overlap, is_overlap_mode, overlap
from agentkit.envs.trifinger.protocol_carry_over import CARRY_OVER_MODES
from agentkit.envs.trifinger.protocols import apply_selection, protocol_suites, scene_for
from agentkit.envs.trifinger.state_snapshot import read_state
from agentkit.envs.trifinger.success_series import SuccessSeries
from agentkit.envs.trifinger.tasks import task_infos
from agentkit.envs.trifinger.top_down import top_down_map, top_down_pose
from agentkit.envs.trifinger.vocabulary import VOCABULARY
from agentkit.envs.trifinger.world import CONTROL_STEP_S, TIME_STEP_S, TriFingerWorld
from agentkit.observers import RawObservation, WorldMap
from agentkit.records import EndReason

if TYPE_CHECKING:
    from agentkit.envs.trifinger.cameras import PlatformCameras

logger = logging.getLogger(__name__)

SUCCESS_THRESHOLD = 0.9
MAX_ACTION_MS = 5000
REACH_SCALE = 0.05  # a tip this far (m) from its target scores 0 on reaching


class TriFingerBackend(Backend):
    """CausalWorld's TriFinger Edu in pybullet with CausalWorld's tasks.

    ``cameras``: render the three platform cameras into each observation (off for text-only runs).
    ``render_size``: their side in pixels. ``goal_images``: also render the goal shape alone.
    ``overlap_mode``: "volumetric" (exact, on oriented cuboids) or "causalworld_aabb".
    ``end_on_success``: end the episode as soon as the profile counts it solved.
    ``curriculum``: intervention actors and when they act (see ``curriculum.Curriculum``).
    ``profile``: "causalworld" (default) or "agentkit" (see the module docstring).
    ``number_of_obstacles``: reaching and creative_stacked_blocks only, CausalWorld's task variable
    (0-5): that many 1 cm fixed black cubes at random places of the arena (``obstacles``).
    ``carry_over``: what a protocol episode inherits from earlier ones (``protocol_carry_over``:
    "benchmark", the paper's P0-P11 sequence, "protocol", one protocol on a fresh env, "none");
    None: the profile's default (benchmark under causalworld, none under agentkit).
    """

    name: ClassVar[str] = "trifinger"
    outcome_meaning: ClassVar[str] = (
        "the blocks filled the goal shape by more than 90% (by default CausalWorld's axis-aligned "
        "measure; reaching: fingertips within 1 cm on average)"
    )
    template_set: ClassVar[str] = "trifinger"
    #: Runs nobody looks at frames in (the reference agent, a CausalWorld actor, --no-images) render none.
    frameless_options: ClassVar[dict[str, Any]] = {"cameras": False}

    def __init__(
        self,
        cameras: bool = True,
        render_size: int = 270,
        goal_images: bool = False,
        overlap_mode: str = "volumetric",
        end_on_success: bool = True,
        curriculum: dict[str, Any] | Curriculum | None = None,
        profile: str = DEFAULT_PROFILE,
        number_of_obstacles: int = 0,
        carry_over: str | None = None,
    ) -> None:
        check_profile(profile)
        if carry_over is not None and carry_over not in CARRY_OVER_MODES:
            raise ValueError(f"carry_over must be one of {', '.join(CARRY_OVER_MODES)}, got {carry_over!r}")
        if not is_overlap_mode(overlap_mode):
            raise ValueError(f"overlap_mode must be one of {', '.join(OVERLAP_MODES)}, got {overlap_mode!r}")
        if render_size < 16:
            raise ValueError(f"render_size must be at least 16 pixels, got {render_size}")
        self.vocabulary = VOCABULARY
        self.cameras = cameras
        self.render_size = render_size
        self.goal_images = goal_images
        self.overlap_mode: OverlapMode = overlap_mode
        self.end_on_success = end_on_success
        self.curriculum = parse_curriculum(curriculum)
        self.profile = profile
        self.number_of_obstacles = check_count(number_of_obstacles)
        self.carry_over = carry_over
        self._dense: DenseReward | None = None
        self._time_limit_s = 20.0
        self._world: TriFingerWorld | None = None
        self._compiler: ScriptCompiler | None = None
        self._camera: PlatformCameras | None = None
        self._task: str | None = None
        self._protocol: str | None = None
        self._interventions: list[dict[str, Any]] = []
        self._overlap = 0.0
        self._reward_since_observe = 0.0
        self._done = False
        self._success: bool | None = None
        self._episode = 0
        self._seed = 0
        self._series = SuccessSeries()
        self._controllers: dict[str, ActorController] = {}  # this episode's, by name
        self._controlling = False  # a controller drives: it records the series at its own step

    # -- Backend interface -------------------------------------------------------------------

    @classmethod
    def tasks(cls) -> list[TaskInfo]:
        return task_infos()

    @classmethod
    def suites(cls) -> dict[str, list[str]]:
        return protocol_suites()

    @classmethod
    def controllers(cls) -> tuple[str, ...]:
        return controller_names()

    def accepts_controller(self, name: str) -> bool:
        return is_controller(name)

    def check_controller(self, name: str, task: str) -> None:
        super().check_controller(name, task)
        try:
            fits(name, task.partition("@")[0], self.number_of_obstacles)
        except ValueError as exc:
            raise ValueError(f"--model {exc}") from None

    def reset(self, task: str, seed: int) -> RawObservation:
        scene, protocol, report = scene_for(task, seed, self.profile, self.carry_over)
        if self.number_of_obstacles:
            scene = with_obstacles(
                scene, self.number_of_obstacles, np.random.default_rng([seed, OBSTACLE_STREAM])
            )
        if self._world is None:
            self._world = TriFingerWorld()
            self._compiler = ScriptCompiler(self._world)
        self._world.build(scene)
        self._require_compiler().reset()
        self._interventions = []
        if self.number_of_obstacles:
            self.record_intervention(
                {
                    "by": "number_of_obstacles",
                    "applied": True,
                    "changed": {"number_of_obstacles": int(self.number_of_obstacles)},
                }
            )
        if report is not None:
            report.apply(self)
        self._seed = seed
        self._curriculum_step(self._episode, -1, 0)
        if self.cameras and self._camera is None:
            from agentkit.envs.trifinger.cameras import PlatformCameras

            self._camera = PlatformCameras(self._world, self.render_size)
        self._task, self._protocol = task, protocol
        family = task.partition("@")[0]
        world = self._world
        if self.profile == "causalworld":
            self._time_limit_s = episode_length_s(
                family, len(world.block_specs) + len(world.built_scene().obstacles)
            )
        else:
            self._time_limit_s = world.built_scene().time_limit_s
        self._dense = DenseReward(family)
        self._dense.reset(read_state(world))
        world.control_hook = self._control_step
        self._overlap = self.current_overlap()
        self._reward_since_observe = 0.0
        self._done, self._success = False, None
        self._series.clear()
        self._controllers = {}
        self._episode += 1
        logger.debug("reset %s seed=%d: %d blocks, %d goals", task, seed, len(scene.blocks), len(scene.goals))
        return self.observe()

    def compile(self, command: Command) -> list[dict]:
        self._require()
        if command.name == RUN_CONTROLLER.name:  # a controller participant's turn (no model's command)
            return [self._controller_action(command)]
        return self._require_compiler().compile(command)

    def step(self, action: Any) -> StepResult:
        world = self._require()
        if self._done:
            raise RuntimeError("the episode is over; reset() before stepping again")
        before = world.steps
        if isinstance(action, dict) and "controller" in action:
            name, ms = _check_controller_action(action, self.controllers(), self.accepts_controller)
            self._run_controller(name, ms)
        else:
            q, ms = _check_action(action)
            world.hold(q, ms)
        self._curriculum_step(self._episode - 1, before, world.steps)
        now = self.current_overlap()
        reward = now - self._overlap
        self._overlap = now
        self._reward_since_observe += reward
        verdict = self.verdict()
        result = StepResult(reward=reward, done=False, info={"fractional_success": self._fraction(verdict)})
        solved = verdict.success
        if solved and self.end_on_success:
            result.done, result.success, result.end_reason = True, True, EndReason.GOAL
        elif world.steps >= self.time_limit_steps:
            result.done, result.success = True, solved
            result.end_reason = EndReason.TIME_LIMIT
        if result.done:
            self._done, self._success = True, result.success
        return result

    def observe(self) -> RawObservation:
        world = self._require()
        frames: dict[str, np.ndarray] = {}
        if self._camera is not None:
            frames.update(self._camera.render())
            if self.goal_images:
                frames.update(self._camera.render_goal())
        time_left = max(0.0, (self.time_limit_steps - world.steps) / 1000.0)
        observation = RawObservation(
            step=world.steps,
            frames=frames,
            mission=world.scene.description if world.scene else None,
            reward=self._reward_since_observe,
            total_reward=self._overlap,
            done=self._done,
            success=self._success,
            status=status_lines(
                world,
                self.held_block,
                self._overlap,
                time_left,
                self.verdict() if self.profile == "causalworld" else None,
            ),
            privileged=structured_state(world, self.held_block, self._overlap),
            pose=top_down_pose(world),  # block 0 on the floor, for the viewer's trajectory map
        )
        self._reward_since_observe = 0.0
        return observation

    def reference_policy(self) -> ScriptPolicy:
        from agentkit.envs.trifinger.reference import TriFingerReference

        return TriFingerReference(self)

    def episode_metrics(self, final: Any) -> dict[str, Any]:
        """``overlap``: the final fractional overlap (the run's overlap mode, exact oriented by default);
        ``overlap_causalworld``: CausalWorld's axis-aligned measure; ``overlap_exact``: ours, exact on
        oriented boxes, whatever the overlap mode (reaching: the tips' closeness); ``success`` by the profile's
        ``success_measure``; ``dense_reward``: CausalWorld's dense reward summed over the episode;
        ``profile``; ``protocol``; ``sim_time_s``; applied ``interventions``."""
        if self._world is None:
            return {"overlap": None}
        world = self._world
        verdict = self.verdict()
        return {
            "overlap": round(self.current_overlap(), 4),
            "overlap_causalworld": round(aabb_overlap(world.block_cuboids(), world.goal_cuboids()), 4),
            "overlap_exact": round(self.current_overlap("volumetric"), 4),
            "success": verdict.success,
            "success_measure": verdict.measure,
            "dense_reward": round(self._dense.total, 4) if self._dense is not None else None,
            "profile": self.profile,
            "protocol": self._protocol,
            "sim_time_s": round(self._world.elapsed_s, 3),
            "interventions": self._interventions,
            "fractional_success": round(self._fraction(verdict), 4),
            **self._fractional_metrics(),
        }

    def run_out_clock(self, stop: StopCheck | None = None) -> ClockRunOut:
        """With ``end_on_success`` off (CausalWorld's evaluation: every episode runs its full length),
        hold the current joint targets until the time limit when our limits stopped asking the model,
        so the fractional-success series covers the whole episode as CausalWorld's does; ``stop``
        (the run's wall limit) is asked before every step. Otherwise
        nothing is stepped and the episode is judged as it stands (as before)."""
        if self.end_on_success or self._done or self._world is None or self._world.scene is None:
            return ClockRunOut()
        # one 40-ms control step at a time: the episode ends within a control step of its limit
        step_ms = round(CONTROL_STEP_S * 1000)
        hold = {"q": [float(v) for v in self._world.target], "ms": step_ms}
        return step_until_done(self, hold, max_steps=self.time_limit_steps // step_ms + 2, stop=stop)

    def prompt_context(self) -> dict[str, Any]:
        world = self._world
        return {
            "time_limit_s": self._time_limit_s if world and world.scene else None,
            "success_threshold": SUCCESS_THRESHOLD,
            "success_measure": "causalworld" if self.profile == "causalworld" else "exact",
            "arena_radius_m": 0.19,
            "physics_step_ms": round(TIME_STEP_S * 1000),
            "camera_names": ["camera60", "camera180", "camera300"] if self.cameras else [],
            "goal_images": self.goal_images and self.cameras,
        }

    def world_map(self) -> WorldMap | None:
        """The platform from above as the episode began (``top_down.top_down_map``)."""
        if self._world is None or self._world.scene is None:
            return None
        return top_down_map(self._world)

    def close(self) -> None:
        if self._world is not None:
            self._world.close()
        self._world = None
        self._compiler = None
        self._camera = None

    # -- state ----------------------------------------------------------------------------------

    @property
    def world(self) -> TriFingerWorld:
        return self._require()

    @property
    def held_block(self) -> int | None:
        return self._compiler.held if self._compiler is not None else None

    @property
    def episode(self) -> int:
        return self._episode

    @property
    def task(self) -> str | None:
        return self._task

    @property
    def time_limit_steps(self) -> int:
        """The episode's length in milliseconds (the unit of ``world.steps``)."""
        world = self._require()
        return int(round((self._time_limit_s if world.scene else 20.0) * 1000))

    def current_overlap(self, mode: OverlapMode | None = None) -> float:
        """The task's score now: block/goal overlap, or for reaching the fingertips' closeness."""
        world = self._require()
        if world.scene is not None and world.scene.tip_goals:
            distances = np.linalg.norm(world.tips() - np.asarray(world.scene.tip_goals), axis=1)
            return float(np.clip(1.0 - distances / REACH_SCALE, 0.0, 1.0).mean())
        return overlap(world.block_cuboids(), world.goal_cuboids(), mode or self.overlap_mode)

    def verdict(self, profile: str | None = None) -> Verdict:
        """Whether the current state counts as solved under the run's profile (or ``profile``), and by
        which measure."""
        world = self._require()
        tip_goals = np.asarray(world.built_scene().tip_goals, dtype=float).reshape(-1, 3)
        return judge(
            profile or self.profile,
            world.block_cuboids(),
            world.goal_cuboids(),
            world.tips(),
            tip_goals,
            self.overlap_mode,
        )

    def _control_step(self) -> None:
        """The end of a 40-ms control step: add CausalWorld's dense reward of that step; under a
        script, record the fractional success (a controller records at its own step)."""
        if self._dense is not None and self._world is not None:
            self._dense.step(read_state(self._world))
        if not self._controlling and self._world is not None:
            dense = self._dense
            goal = dense.last_goal_reward if dense is not None else None
            value = (
                fractional_success(dense.family, goal)
                if dense is not None and goal is not None
                else self._fraction()
            )
            self._series.record(value, round(CONTROL_STEP_S * 1000))

    def _fraction(self, verdict: Verdict | None = None) -> float:
        """CausalWorld's ``info['fractional_success']`` now, whatever the run's profile (0 where
        undefined); ``verdict``: the run's, when it already is CausalWorld's."""
        if verdict is None or self.profile != "causalworld":
            verdict = self.verdict("causalworld")
        value = 0.0 if math.isnan(verdict.value) else verdict.value
        return fractional_success((self._task or "").partition("@")[0], value)

    def _controller_action(self, command: Command) -> dict[str, Any]:
        """``run_controller(name, seconds)`` as one action; a CompileError (one line) for a name this
        backend does not run or an actor that cannot read this task's observation."""
        args = command.args
        name, seconds = args if len(args) == 2 else (None, None)
        if not isinstance(name, str) or isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise CompileError("run_controller takes (name, seconds)", command)
        if not 0 < seconds <= MAX_SPAN_S:
            raise CompileError(
                f"run_controller: seconds must be in (0, {MAX_SPAN_S:g}], got {seconds!r}", command
            )
        try:
            self._controller(name)
        except ValueError as exc:
            raise CompileError(f"run_controller: {exc}", command) from None
        return {"controller": name, "ms": max(1, round(float(seconds) * 1000))}

    def _controller(self, name: str) -> ActorController:
        if name not in self._controllers:
            family = (self._task or "").partition("@")[0]
            self._controllers[name] = ActorController.for_task(
                name, self._require(), family, self._time_limit_s
            )
        return self._controllers[name]

    def _run_controller(self, name: str, ms: int) -> None:
        """Let controller ``name`` act for ``ms`` (to the episode's end at most), recording the
        fractional success after each of its steps."""
        controller = self._controller(name)
        self._controlling = True
        try:
            controller.run(
                self._require(),
                ms,
                self.time_limit_steps,
                after_step=lambda: self._series.record(self._fraction(), STEP_MS),
            )
        finally:
            self._controlling = False

    def _fractional_metrics(self) -> dict[str, Any]:
        """The episode's CausalWorld fractional-success figures (``fractional_success_series``) from
        the series of its control steps up to the episode's length (at the driver's step: 40 ms under
        scripts, 12 ms under an actor), and that step."""
        step = self._series.step_ms
        if not step:
            return {}
        # CausalWorld is done when its step count exceeds int(T / dt): int(T / dt) + 1 steps at most
        scores = episode_fractional_success(self._series.values[: self.time_limit_steps // step + 1])
        return {**scores.to_metrics(), "control_step_ms": step} if scores is not None else {}

    def _curriculum_step(self, episode: int, before_ms: int, after_ms: int) -> None:
        """Let the curriculum's actors intervene if this window of ``episode`` is theirs."""
        if self.curriculum is None or not self.curriculum.due(episode, before_ms, after_ms):
            return
        generator = self.curriculum.generator(episode * 1_000_003 + self._seed + after_ms)
        for name, selection in zip(self.curriculum.actors, self.curriculum.selections()):
            apply_selection(self, selection, generator, f"actor:{name}")
        self._overlap = self.current_overlap()

    def record_intervention(self, entry: dict[str, Any]) -> None:
        self._interventions.append(entry)

    def _require(self) -> TriFingerWorld:
        if self._world is None or self._world.scene is None:
            raise RuntimeError("reset() the trifinger backend before using it")
        return self._world

    def _require_compiler(self) -> ScriptCompiler:
        if self._compiler is None:
            raise RuntimeError("reset() the trifinger backend before using it")
        return self._compiler


def _check_controller_action(
    action: dict, names: tuple[str, ...], accepts: Callable[[str], bool]
) -> tuple[str, int]:
    """A controller action ``{"controller": name, "ms": 1..60000}``; anything else is a clear error."""
    name, ms = action.get("controller"), action.get("ms")
    if set(action) != {"controller", "ms"} or not isinstance(name, str) or not accepts(name):
        raise ValueError(
            f'trifinger controller actions are {{"controller": one of {list(names)}, "ms": n}}, got {action!r}'
        )
    if isinstance(ms, bool) or not isinstance(ms, int) or not 1 <= ms <= MAX_SPAN_S * 1000:
        raise ValueError(
            f"trifinger controller action ms must be an integer 1..{MAX_SPAN_S * 1000:g}, got {ms!r}"
        )
    return name, ms


def _check_action(action: Any) -> tuple[list[float], int]:
    """A low-level action ``{"q": [9 floats], "ms": 1..5000}``; anything else is a clear error."""
    if not isinstance(action, dict) or set(action) != {"q", "ms"}:
        raise ValueError(f'trifinger actions are {{"q": [9 joint targets], "ms": steps}}, got {action!r}')
    q, ms = action["q"], action["ms"]
    if (
        not isinstance(q, (list, tuple))
        or len(q) != 9
        or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in q)
    ):
        raise ValueError(f"trifinger action q must be 9 finite joint angles, got {q!r}")
    if isinstance(ms, bool) or not isinstance(ms, int) or not 1 <= ms <= MAX_ACTION_MS:
        raise ValueError(f"trifinger action ms must be an integer 1..{MAX_ACTION_MS}, got {ms!r}")
    return [float(v) for v in q], ms
