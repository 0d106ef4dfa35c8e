"""The ``aai-arena`` backend: Animal-AI's arenas, rules and action space, rebuilt on pybullet.

Why a rebuild: Animal-AI needs a Unity binary and a display; this arena runs headless on a CPU, in
several instances per process, and reads the same YAML files (the 900 Testbed tasks are packaged).

A task is a Testbed id (``"01-04-03"``) or a path to any arena YAML file. A file with several arenas
plays them as Animal-AI does, one per episode in the order of their numbers: successive resets of the
same task cycle through them (with the file's ``randomizeArenas``, a random other one each time);
``"file.yaml#2"`` plays arena 2 at every reset. The arena played is in the privileged state
(``arena.index``) and, for files of several arenas, in the episode's metrics (``arena``). Frames are rendered only when ``frames=True`` (the observer wants images), at
``render_size`` pixels square. The observation carries what Animal-AI reports to an agent
(health, velocity in the agent's frame, position) in ``status``, and the full state in
``privileged`` (see ``privileged_state``), the contract with the reference agent; ``pose``
(position and heading in degrees, clockwise from +z) lets the viewer draw the trajectory on a map.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from agentkit.actions import Command
from agentkit.envs.animalai_common import episode_facts, motion
from agentkit.envs.animalai_common.config import ArenaSpec
from agentkit.envs.animalai_common.layout import ARENA_SIZE, Layout, build_layout
from agentkit.envs.animalai_common.lights import lights_on
from agentkit.envs.animalai_common.primitives import PRIMITIVES
from agentkit.envs.animalai_common.rules import EpisodeRules, GoalTouch, UpdateEvents
from agentkit.envs.animalai_common.suites import suites
from agentkit.envs.animalai_common.tasks import arena_file_text, load_task, split_arena, task_infos
from agentkit.envs.animalai_common.vocabulary import NOOP, VOCABULARY, compile_command, is_action
from agentkit.envs.arena.camera import Camera
from agentkit.envs.arena.item_runtime import freeze_seconds
from agentkit.envs.arena.materials import DEFAULT_VERSION, check_version
from agentkit.envs.arena.world import ArenaWorld
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

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class AgentReading:
    """The agent's state in arena coordinates: position (x, y up, z), velocity on the arena axes
    (units per second), heading in [0, 360) (0 faces +z, clockwise seen from above)."""

    step: int
    health: float
    position: tuple[float, float, float]
    velocity: tuple[float, float, float]
    heading_deg: float


_DIGITS = 4  # rounding of the privileged state (1e-4 units is far below anything that matters)


class ArenaBackend(Backend):
    """Animal-AI arenas in pybullet.

    ``render_size``: side of the square first-person frames (the LLM-AAI paper used 512).
    ``frames``: render frames at all (off for text-only runs and fast batch evaluation).
    ``physics_substeps``: pybullet steps per 0.02 s physics update (Animal-AI makes three updates a step;
    1, the default, uses Unity's own time step).
    ``aai_version``: the Animal-AI version whose items and masses the arena reproduces, ``"3.1.3"`` (the
    LLM-AAI paper's and the children's, default) or ``"4.1.0"``; recorded with the run's options.
    ``idle_action``: what one unusable model answer costs: one step of this ``[b0, b1]`` action
    (default ``[0, 0]``, a no-op step, as the LLM-AAI paper lets the environment advance), or
    ``None`` to let time stand still.
    """

    name: ClassVar[str] = "aai-arena"
    outcome_meaning: ClassVar[str] = "final reward >= the task's pass mark"
    template_set: ClassVar[str] = "aai-arena"
    frameless_options: ClassVar[dict[str, Any]] = {"frames": False}
    replays_in_viewer: ClassVar[bool] = True  # pybullet in-process; a task's file text comes from the store
    protocols: ClassVar[tuple[str, ...]] = ("agentkit", "llm-aai")  # Animal-AI's: docs/protocols.md
    #: Units moved per step per unit of reported velocity (velocities are in units per second).
    velocity_per_step: ClassVar[float] = motion.STEP_SECONDS

    def __init__(
        self,
        render_size: int = 512,
        frames: bool = True,
        physics_substeps: int = 1,
        idle_action: list[int] | None = NOOP,
        aai_version: str = DEFAULT_VERSION,
    ) -> None:
        if render_size < 16:
            raise ValueError(f"render_size must be at least 16 pixels, got {render_size}")
        if physics_substeps < 1:
            raise ValueError(f"physics_substeps must be at least 1, got {physics_substeps}")
        if idle_action is not None and not is_action(idle_action):
            raise ValueError(
                f"idle_action must be an Animal-AI action [b0, b1], b0 and b1 in 0..2; got {idle_action!r}"
            )
        self.vocabulary = VOCABULARY
        self.render_size = render_size
        self.frames = frames
        self.physics_substeps = physics_substeps
        self.aai_version = check_version(aai_version)
        self.idle_action = None if idle_action is None else [int(b) for b in idle_action]
        self._world: ArenaWorld | None = None
        self._camera: Camera | None = None
        self._task: str | None = None
        self._layout: Layout | None = None
        self._rules: EpisodeRules | None = None
        self._blackouts: tuple[int, ...] = ()
        self._pass_mark: float | None = None
        self._t = 0
        self._reward_since_observe = 0.0
        self._last_poses: dict[int, tuple[tuple[float, float, float], float]] = {}
        self._episode = 0
        self._arena_index = 0
        self._arena_count = 1
        self._arena_named = False
        self._last_arena: dict[str, int] = {}  # per file: the arena its last reset played
        self._camera_revision = -1
        self._pinned_text: dict[str, str] = {}  # per file: the stored text replay plays (use_task_source)
        self._source: dict[str, str] | None = None  # the current episode's file and its text
        self._goals_in_view: set[int] = set()  # goal bodies the camera showed when last asked (sight_events)

    # -- Backend interface -------------------------------------------------------------------

    @classmethod
    def tasks(cls) -> list[TaskInfo]:
        return task_infos()

    @classmethod
    def suites(cls) -> dict[str, list[str]]:
        return suites()

    def reset(self, task: str, seed: int) -> RawObservation:
        arena = self._choose_arena(task, seed)
        layout = build_layout(arena, seed, self.aai_version)
        if self._world is None:
            self._world = ArenaWorld(self.physics_substeps, self.aai_version)
        self._world.build(layout, freeze_seconds(arena.items))
        if self.frames and (self._camera is None or self._camera.client != self._world.client):
            self._camera = Camera(self._world.client, self.render_size)
        self._camera_revision = -1
        self._refresh_camera()
        good_goals = sum(1 for item in layout.items if item.type.is_goal and item.type.reward_sign > 0)
        self._rules = EpisodeRules(arena.t, arena.pass_mark, good_goals)
        self._task, self._layout = task, layout
        self._blackouts, self._pass_mark, self._t = arena.blackouts, arena.pass_mark, arena.t
        self._reward_since_observe = 0.0
        self._last_poses = {}
        self._episode += 1
        logger.debug(
            "reset %s seed=%d: %d items (%d not spawned)", task, seed, len(layout.items), layout.skipped
        )
        return self.observe()

    def _choose_arena(self, task: str, seed: int) -> ArenaSpec:
        """The arena this reset plays (``TrainingArena.ResetArena``): the one named by ``#n``, else the
        file's next in number order after the one its last reset played (the first at first), or, when
        the file says ``randomizeArenas``, one drawn from the episode seed (never the last one again)."""
        base, named = split_arena(task)
        text = self._pinned_text.get(base)
        if text is None:
            text = arena_file_text(task)  # None for a Testbed id
        config = load_task(task, text)  # checks that a named arena is in the file
        self._source = (
            None
            if text is None
            else {"name": base, "text": text, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
        )
        previous = self._last_arena.get(base)
        if named is not None:
            index = named
        elif config.randomize_arenas and len(config.arenas) > 1:
            choices = [i for i in config.arena_order if i != previous]
            index = random.Random(seed).choice(choices)
        else:
            index = config.next_index(previous)
        self._last_arena[base] = index
        self._arena_index, self._arena_count, self._arena_named = index, len(config.arenas), named is not None
        return config.arena(index)

    @property
    def arena_index(self) -> int:
        """The number (in its file) of the arena the current episode plays."""
        return self._arena_index

    def _refresh_camera(self) -> None:
        """Hand the camera the bodies to draw when items appeared, vanished or changed colour."""
        if self._camera is None or self._world is None or self._camera_revision == self._world.items.revision:
            return
        self._camera.set_items(self._world.render_bodies())
        self._camera_revision = self._world.items.revision

    def compile(self, command: Command) -> list[list[int]]:
        return compile_command(command)

    def step(self, action: Any) -> StepResult:
        rules, world = self._require()
        if rules.done:
            raise RuntimeError("the episode is over; reset() before stepping again")
        if not is_action(action):
            raise ValueError(f"arena actions are [b0, b1] with b0, b1 in 0..2, got {action!r}")
        events = world.step(int(action[0]), int(action[1]))
        rules.add_good_goals(world.items.take_new_good_goals())
        exact = self.aai_version == "3.1.3"
        outcome = rules.advance(
            [
                UpdateEvents(
                    [_goal_touch(world, item, exact) for item in update.touched],
                    update.in_death_zone,
                    update.hot_zone_charges,
                    update.frozen,
                )
                for update in events.updates
            ]
        )
        self._reward_since_observe += outcome.reward
        info: dict[str, Any] = {"touched": [item.name for item in events.touched]} if events.touched else {}
        if self._blackouts and lights_on(rules.steps, self._blackouts) != lights_on(
            rules.steps - 1, self._blackouts
        ):
            info["lights"] = "on" if lights_on(rules.steps, self._blackouts) else "off"  # --observe events
        return StepResult(
            reward=outcome.reward,
            done=outcome.done,
            success=outcome.success,
            end_reason=outcome.end_reason,
            info=info,
        )

    def observe(self) -> RawObservation:
        rules, world = self._require()
        frames: dict[str, np.ndarray] = {}
        frame = self.frame()
        if frame is not None:
            frames["camera"] = frame
        velocity = world.agent_velocity()
        position = world.agent_position
        observation = RawObservation(
            step=rules.steps,
            frames=frames,
            reward=self._reward_since_observe,
            total_reward=rules.total_reward,
            health=rules.health,
            done=rules.done,
            success=rules.success,
            status={
                "position": [round(v, 2) + 0.0 for v in position],
                "velocity": [round(v, 2) + 0.0 for v in _local_velocity(velocity, world.heading)],
                "time_left": episode_facts.steps_left(self._t, rules.steps),
                "lights": "on" if lights_on(rules.steps, self._blackouts) else "off",
            },
            privileged=self.privileged_state(),
            pose=_pose(position, world.heading),
        )
        self._reward_since_observe = 0.0
        return observation

    def frame(self) -> np.ndarray | None:
        """The agent's camera now (black during a blackout); None when frames are off."""
        rules, world = self._require()
        if not self.frames or self._camera is None:
            return None
        if not lights_on(rules.steps, self._blackouts):
            return self._camera.black()
        self._refresh_camera()
        eye, heading = world.eye()
        return self._camera.render(eye, heading)

    def agent_reading(self) -> AgentReading:
        """The agent's own state, unrounded: what a body senses each step. Why beside ``observe``:
        the ``agentkit-arena`` stand-in needs only this and the frame every step, and the full
        privileged state costs as much again as the physics step."""
        rules, world = self._require()
        return AgentReading(
            step=rules.steps,
            health=float(rules.health),
            position=world.agent_position,
            velocity=world.agent_velocity(),
            heading_deg=world.heading % 360.0,
        )

    def idle_actions(self) -> list[list[int]]:
        return [] if self.idle_action is None else [list(self.idle_action)]

    def primitive_actions(self) -> tuple[PrimitiveAction, ...]:
        return PRIMITIVES

    def sight_events(self) -> list[str]:
        """Goals the camera shows now that it did not show when last asked (none in a blackout)."""
        rules, world = self._require()
        goals = {b.body: b.item.type.name for b in world.render_bodies() if b.item.type.kind == "goal"}
        seen: set[int] = set()
        if self.frames and self._camera is not None and lights_on(rules.steps, self._blackouts):
            self._refresh_camera()
            eye, heading = world.eye()
            seen = {body for body in self._camera.bodies_in_view(eye, heading) if body in goals}
        new = sorted({goals[body] for body in seen - self._goals_in_view})
        self._goals_in_view = seen
        return [f"{name} in view" for name in new]

    def frames_now(self) -> dict[str, Any]:
        frame = self.frame()
        return {} if frame is None else {"camera": frame}

    def run_out_clock(self, stop: StopCheck | None = None) -> ClockRunOut:
        """Step Animal-AI's no-op ``[0, 0]`` until the episode ends (the arena's clock drains health to
        0, or the world ends it first, e.g. a bouncing goal reaching the agent). An arena with no time
        limit (t = 0) has no clock: nothing is stepped. The bound only guards against a world that
        never ends; the clock always ends an episode long before it."""
        rules, _ = self._require()
        if rules.done:
            return ClockRunOut(ended=True)
        if self._t <= 0:
            return ClockRunOut()
        return step_until_done(self, list(NOOP), max_steps=max(10 * self._t, 1000), stop=stop)

    def reference_policy(self) -> ScriptPolicy:
        from agentkit.envs.animalai_common.reference import ArenaReferencePolicy

        return ArenaReferencePolicy(self)

    def episode_metrics(self, final: Any) -> dict[str, Any]:
        metrics = {
            **episode_facts.episode_metrics(self._task, self._pass_mark, final),
            "aai_version": self.aai_version,
        }
        if self._arena_count > 1 or self._arena_named:
            metrics["arena"] = self._arena_index
        if (
            self._world is not None and self._world.items.data_zones.zones
        ):  # DataZone visits, by triggerZoneID
            visits: dict[str, int] = {}
            for event in self._world.items.data_zones.events:
                if event.event == "enter":
                    visits[str(event.zone_id)] = visits.get(str(event.zone_id), 0) + 1
            metrics["data_zone_visits"] = visits
        return metrics

    def prompt_context(self) -> dict[str, Any]:
        return episode_facts.prompt_context(self._t, self._pass_mark)

    def task_source(self) -> dict[str, str] | None:
        return dict(self._source) if self._source is not None else None

    def use_task_source(self, task: str, text: str) -> None:
        base, _ = split_arena(task)
        load_task(task, text)  # a clear error now rather than at reset
        self._pinned_text[base] = text

    def world_map(self) -> WorldMap | None:
        from agentkit.envs.animalai_common.world_map import arena_world_map

        return arena_world_map(self._layout) if self._layout is not None else None

    def close(self) -> None:
        if self._world is not None:
            self._world.close()
        self._world = None
        self._camera = None
        self._rules = None

    # -- state ---------------------------------------------------------------------------------

    def privileged_state(self) -> dict[str, Any]:
        """The full state, JSON-able, in Animal-AI coordinates (x, z horizontal in [0, 40], y up).

        ``agent.heading_deg``: 0 faces +z, growing when turning right (clockwise seen from above),
        in [0, 360). ``agent.velocity``: units per second on the arena axes. ``items[i].position``:
        centre of the item's base; ``size``: as built (clamped to Animal-AI's ranges; goals are
        spheres of diameter ``size[0]``; a zone's ``size[1]`` is how high its trigger reaches above
        the floor, ``items.zone_height``); ``rotation_deg``: clockwise seen from above; ``reward``:
        sign x size for goals, -1 for a DeathZone, the per-step reward inside a HotZone, None for
        the rest; ``active``: False once a goal is collected. Ramps rise towards their local -z.
        Goals that appeared during the episode (dropped by a spawner, spawned by a button) follow the
        arena's items; a changing goal's ``reward`` and ``size`` are its current ones. ``arena.index``:
        the arena of the file being played; ``records``: button presses, data zone visits and the like.
        """
        rules, world = self._require()
        assert self._layout is not None
        self._last_poses.update(world.item_poses())
        r = lambda v: round(float(v), _DIGITS) + 0.0  # + 0.0 turns -0.0 into 0.0
        items = []
        for placed in (*self._layout.items, *world.items.spawned_items()):
            item = world.items.current(placed)
            t = item.type
            position, rotation = self._last_poses.get(item.id, (item.position, item.rotation))
            if t.is_goal:
                reward: float | None = r(world.items.touch(item).reward)
            elif t.kind == "zone" and t.behaviour == "data_zone":
                reward = None
            elif t.kind == "zone":
                reward = r(rules.zone_reward(t.name))
            else:
                reward = None
            items.append(
                {
                    "id": item.id,
                    "name": t.name,
                    "kind": t.kind,
                    "position": [r(v) for v in position],
                    "size": [r(v) for v in item.size],
                    "rotation_deg": r(rotation % 360.0),
                    "reward": reward,
                    "active": world.is_active(item.id),
                    "solid": t.solid,
                    "transparent": t.transparent,
                }
            )
        return {
            "arena": {
                "size": ARENA_SIZE,
                "pass_mark": self._pass_mark,
                "t": self._t,
                "step": rules.steps,
                "index": self._arena_index,
            },
            "agent": {
                "position": [r(v) for v in world.agent_position],
                "heading_deg": r(world.heading % 360.0),
                "velocity": [r(v) for v in world.agent_velocity()],
                "health": r(rules.health),
            },
            "items": items,
            "records": world.items.records(),
        }

    # -- helpers -------------------------------------------------------------------------------

    @property
    def task(self) -> str | None:
        return self._task

    @property
    def episode(self) -> int:
        """A counter that changes with every reset (planners use it to tell episodes apart)."""
        return self._episode

    def _require(self) -> tuple[EpisodeRules, ArenaWorld]:
        if self._rules is None or self._world is None:
            raise RuntimeError("reset() the arena before using it")
        return self._rules, self._world


def _goal_touch(world: ArenaWorld, item, exact_count: bool) -> GoalTouch:
    """A touched goal's reward and count (``item_runtime.ItemRuntime.touch``): for most goals their
    sign x their size as built (``layout`` applies Animal-AI's 0.999); changing, spawned and decoy
    goals as their scripts say."""
    value = world.items.touch(item)
    return GoalTouch(value.reward, value.good, value.multi, value.own_count, exact_count)


def _local_velocity(velocity: tuple[float, float, float], heading_deg: float) -> tuple[float, float, float]:
    """A world velocity in the agent's frame (right, up, forward), as Animal-AI reports it."""
    vx, vy, vz = velocity
    fx, fz = math.sin(math.radians(heading_deg)), math.cos(math.radians(heading_deg))
    return (vx * fz - vz * fx, vy, vx * fx + vz * fz)


def _pose(position: tuple[float, float, float], heading_deg: float) -> Pose:
    """The agent's pose for the viewer's map: x and z on the floor (to the centimetre, as the status
    shows it), the height kept, and the heading in compass degrees (0 faces +z, clockwise)."""
    x, height, z = (round(v, 2) + 0.0 for v in position)
    return Pose(x, z, round(heading_deg % 360.0, 1), height=height)
