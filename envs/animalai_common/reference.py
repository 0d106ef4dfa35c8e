"""The arena's reference agent: a privileged planner that writes Go/Turn/Think scripts.

Why: it gives models a ceiling to be compared against on the same tasks, run through the same
loop, parser and compiler, and it exercises the whole arena pipeline without any API. It reads
only ``observation.privileged`` (the backend's JSON contract), never the simulator, so it is a
fair "perfect perception" player and could drive any backend that fills that contract.

Each turn it re-plans from the fresh state, so the errors of its motion model are corrected:

1. choose a goal: the quickest reachable gold (multi) goal while one is left and time allows,
   then the most rewarding reachable green goal (the one that ends the episode); goals it cannot
   reach are skipped, and a green goal that would end the episode below the pass mark is left
   alone while a better one may still come within reach (it falls or rolls);
2. plan a path on a 2.5-D height map (``planning_grid``: walls inflated by the agent's radius,
   DeathZones and red goals forbidden, HotZones and edges expensive, ramps the only way up onto
   platforms, drops allowed); if there is none, retry with smaller margins, then allowing
   pushable boxes to be pushed;
3. write a script of a few legs: ``Turn`` toward the next waypoint, ``Go`` as many steps as the
   momentum model (``planning_motion``, measured on the arena) says reach it, never along a
   predicted track that comes near anything lethal; the last leg drives into the goal, and on a
   field of gold goals several are chained in one script (the loop allows only 30 scripts).

If no goal can be reached it tries tool use (``tool_use``, ``tool_scoop``): a box pushed into the
pillar a goal sits on knocks it down, a U or L block pushed out of a DeathZone drags the goal lying in
it out; the push is driven with the same Turn and Go. Otherwise it waits: it turns on the spot while a
goal may still move into reach (or a pushed box still slides), and otherwise answers with a thought
alone (no step, so no reward is lost to the clock).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from agentkit.actions import Command, Script
from agentkit.actions.formatter import format_script
from agentkit.envs.animalai_common.items import ITEM_TYPES
from agentkit.envs.animalai_common.planning_grid import (
    POSITIVE_GOALS,
    ArenaMap,
    MapSettings,
    SearchResult,
    build_map,
    goal_targets,
    search,
    segment_clear,
    shorten,
)
from agentkit.envs.animalai_common.planning_motion import DEFAULT_MODEL, AgentState, MotionModel, turn_toward
from agentkit.envs.animalai_common.planning_shapes import item_parts
from agentkit.envs.animalai_common.tool_scoop import scoop_pushes
from agentkit.envs.animalai_common.tool_use import KICK_MIN_GO, Push, knock_pushes, push_length
from agentkit.envs.animalai_common.vocabulary import VOCABULARY
from agentkit.observers import Observation

logger = logging.getLogger(__name__)

# Margins tried in order until some goal is reachable: cautious first, then squeezing, then pushing.
# A DeathZone kills once the agent's centre comes within its radius (0.5) of the zone's footprint,
# so no relaxation goes below that.
RELAXATIONS: tuple[MapSettings, ...] = (
    MapSettings(),
    MapSettings(agent_radius=0.4, zone_margin=0.6, bad_margin=0.2),
    MapSettings(agent_radius=0.4, zone_margin=0.6, bad_margin=0.2, push_movables=True),
    MapSettings(agent_radius=0.3, zone_margin=0.55, bad_margin=0.1, step_up=0.3, push_movables=True),
)

MAX_LEGS = 3  # legs towards one goal per script: enough to round a wall, few enough that errors stay small
MAX_SCRIPT_STEPS = 60  # environment steps per script before re-planning
MAX_GOALS_PER_SCRIPT = 6  # gold goals chained in one script when nothing moves
MOVING_SCRIPT_STEPS = 14  # shorter scripts while goals move (their velocity is re-estimated each turn)
MAX_GO = 60
WAYPOINT_REACHED = 1.0  # an inner waypoint this close counts as reached
TRACE_MARGIN = 0.1  # predicted positions keep this much more than touching distance from hazards
CALM_CLEARANCE = 2.5  # chain past a goal only if nothing lethal is nearer to it than this
OVERSHOOT_MARGIN = 0.5  # and this much more while driving on through a goal (bumping it deflects the agent)
LEG_TOLERANCE = 0.8  # a leg predicted to end farther than this from its waypoint ends the script
DRIFT_PER_STEP = 0.02  # extra room per step already planned in this script, for prediction drift
UNSTICK_MIN_GO = 4  # a script with at least this many Go steps ...
UNSTICK_MOVED = 0.25  # ... that moved the agent less than this left it stuck
UNSTICK_BACK = 3  # Go steps backwards that start the next script
AGENT_RADIUS_STUCK = (0.75, 0.9)  # the planner's agent radius after one, two or more stuck scripts
FALL_TOLERANCE = 0.02  # a goal whose height changed more than this since the last turn is still falling
WAIT_TURNS = (36, 36, 60, 60, 90, 90, 120)  # degrees turned by successive scripts of waiting (6 a step)
PUSH_LATERAL = 0.5  # the agent this near the push line behind the box pushes (else it drives there first)
PUSH_GAP_MAX = 1.3  # ... with at most this much room between it and the box
PUSH_SLOW_GAP = 0.7  # from farther back than this it drives one step more
PUSH_STAND_SEARCH = (0.4, 0.8, 1.2)  # radii round the stand point searched for a free cell, in order
STEP_OFF_NEAR = 1.0  # an agent this near a block it cannot route away from steps off first ...
STEP_OFF_GO = 3  # ... with this Go
SHIFT_TOLERANCE = 0.05  # a box that moved more than this since the last turn is still moving
FINISH_STEPS = (
    3  # extra Go steps past the point where the goal should be touched (touches register a step late)
)


@dataclass
class Plan:
    """One turn's decision: the goals aimed at (empty: nothing reachable), the route, the script."""

    goals: list[dict[str, Any]]
    waypoints: list[tuple[float, float]]
    commands: list[tuple[str, Any]]
    settings: MapSettings | None = None

    @property
    def goal(self) -> dict[str, Any] | None:
        """The first goal aimed at this turn."""
        return self.goals[0] if self.goals else None


@dataclass
class _Choice:
    goal: dict[str, Any]
    at: tuple[float, float]
    cost: float
    result: SearchResult
    cell: int
    settings: MapSettings


@dataclass(frozen=True)
class _Score:
    """What the episode's final reward would be, to judge a goal against the pass mark."""

    collected: float  # goal rewards so far (including earlier goals of this script)
    step: int  # steps taken so far (including this script's)
    t: int
    pass_mark: float | None

    @classmethod
    def of(cls, privileged: dict[str, Any], script_steps: int, script_gain: float) -> _Score:
        arena = privileged["arena"]
        done = sum(
            _reward(g)
            for g in privileged["items"]
            if g.get("kind") == "goal" and not g.get("active", True) and g["name"] in POSITIVE_GOALS
        )
        return cls(
            done + script_gain,
            int(arena.get("step", 0)) + script_steps,
            int(arena.get("t") or 0),
            arena.get("pass_mark"),
        )

    def passes(self, reward: float, more_steps: float) -> bool:
        if self.pass_mark is None:
            return True
        cost = (self.step + more_steps) / self.t if self.t > 0 else 0.0
        return self.collected + reward - cost >= self.pass_mark


def typed_commands(commands: list[tuple[str, Any]]) -> list[Command]:
    """A plan's ``(name, argument)`` pairs as Commands: Think's text, Turn's and Go's whole numbers."""
    return [Command(name, (str(arg),) if name == "Think" else (int(arg),)) for name, arg in commands]


def _multi(name: str) -> bool:
    """A goal that does not end the episode by itself (GoodGoalMulti and the changing goals)."""
    item = ITEM_TYPES.get(name)
    return bool(item and item.multi)


def _colour(name: str) -> str:
    if _multi(name):
        return "gold"
    if name.startswith("GoodGoal"):
        return "green"
    return "red"


class ArenaReferencePolicy:
    """Bound to one backend for its lifetime; keeps a little memory across turns of an episode."""

    def __init__(self, backend: Any = None, model: MotionModel = DEFAULT_MODEL) -> None:
        self.backend = backend
        self.model = model
        self._seen: dict[int, tuple[int, float, float]] = {}  # goal id -> (step, x, z) last turn
        self._height: dict[int, float] = {}  # goal id -> y last turn
        self._falling: set[int] = set()  # goals whose height changed since the last turn
        self._velocity: dict[int, tuple[float, float]] = {}  # goal id -> (vx, vz) per step
        self._script_steps = 0  # steps already planned in the script being written
        self._waits = 0  # scripts in a row spent waiting for a goal to come within reach
        self._last: tuple[float, float, int] | None = None  # (x, z, Go steps) of the last script
        self._stuck = 0  # scripts in a row whose Go steps left the agent where it was
        self._movables: dict[int, tuple[float, float, float]] = {}  # movable id -> position last turn
        self._shifting = False  # a movable (a pushed box) moved since the last turn

    # ---- the ScriptPolicy face -------------------------------------------------------------

    def next_answer(self, observation: Observation) -> str:
        """The commands for the state in ``observation.privileged`` as script text (what transcripts store)."""
        return format_script(Script(tuple(self.next_commands(observation))), VOCABULARY)

    def next_commands(self, observation: Observation) -> list[Command]:
        """The commands for the state in ``observation.privileged``."""
        return typed_commands(self.plan(observation.privileged).commands)

    def plan(self, privileged: dict[str, Any]) -> Plan:
        """The goals chosen, the route and the script for this turn (remembers how goals move)."""
        step = int(privileged["arena"].get("step", 0))
        if step == 0 or any(step < seen[0] for seen in self._seen.values()):
            self._seen.clear()
            self._velocity.clear()
            self._height.clear()
            self._falling.clear()
            self._waits = 0
            self._last = None
            self._stuck = 0
            self._movables.clear()
        self._track_goals(privileged, step)
        self._track_movables(privileged)
        agent = self._agent_state(privileged)
        self._note_progress(agent)
        moving = self._moving(privileged)
        budget = MOVING_SCRIPT_STEPS if moving else MAX_SCRIPT_STEPS
        arena = privileged["arena"]
        remaining = (arena["t"] - arena["step"]) if arena.get("t") else math.inf
        agent_y = float(privileged["agent"]["position"][1])

        commands: list[tuple[str, Any]] = []
        goals: list[dict[str, Any]] = []
        route: list[tuple[float, float]] = []
        settings_used: MapSettings | None = None
        taken: set[int] = set()
        state, steps = agent, 0
        cache: dict[Any, ArenaMap] = {}
        if self._stuck:
            # Pressed against a rim or corner the map does not resolve: back off first, and plan
            # with a fatter agent so the route keeps clear of whatever held it.
            commands.append(("Go", -UNSTICK_BACK))
            state = self.model.go(agent, -UNSTICK_BACK)
            steps = UNSTICK_BACK
        for _ in range(MAX_GOALS_PER_SCRIPT if not moving else 1):
            gained = sum(_reward(g) for g in goals)
            choice = self._choose(
                privileged,
                state,
                agent_y if not goals else None,
                remaining - steps,
                taken,
                cache,
                _Score.of(privileged, steps, gained),
            )
            if choice is None or (goals and not _multi(choice.goal["name"])):
                break  # a green goal ends the episode: only after a fresh look at what is left
            waypoints = self._route(choice, state)
            # Bumping a goal deflects the agent a little, so the next goal is planned from a fresh
            # look when danger is near the one being collected.
            gx, gz = choice.at
            calm = float(choice.result.amap.clearance(np.array([gx]), np.array([gz]))[0]) > CALM_CLEARANCE
            if goals and not calm:
                break  # nor is a goal next to danger approached on predictions alone
            follows = (
                self._chainable(choice.goal, privileged, taken | {choice.goal["id"]}) and not moving and calm
            )
            self._script_steps = steps
            legs, state, used, reached = self._legs(
                choice, state, waypoints, budget - steps, 1 if follows else FINISH_STEPS
            )
            if not legs:
                break
            if not goals:
                commands.append(("Think", self._thought(choice, agent, waypoints)))
                settings_used = choice.settings
            commands.extend(legs)
            goals.append(choice.goal)
            route.extend(waypoints)
            steps += used
            taken.add(choice.goal["id"])
            if not reached or not follows or steps >= budget - 5:
                break
        if not goals:
            self._last = None
            tool = self._tool_use(privileged, agent, agent_y)
            if tool is not None:
                self._waits = 0
                return tool
            return Plan([], [], self._wait(privileged))
        self._waits = 0
        self._last = (agent.x, agent.z, sum(abs(int(arg)) for name, arg in commands if name == "Go"))
        if commands[0][0] != "Think":  # the back-off goes after the thought
            think = next(k for k, (name, _) in enumerate(commands) if name == "Think")
            commands.insert(0, commands.pop(think))
        if len(goals) > 1:
            commands[0] = ("Think", commands[0][1] + f" Then I pick up {len(goals) - 1} more on the way.")
        logger.debug(
            "step %d: %d goal(s) aimed at, %d legs, map %s",
            step,
            len(goals),
            len(commands) - 1,
            settings_used,
        )
        return Plan(goals, route, commands, settings_used)

    def _tool_use(self, privileged: dict[str, Any], agent: AgentState, agent_y: float) -> Plan | None:
        """A push that brings a goal within reach (``tool_use``), when no goal can be reached now.

        The agent first drives to the stand point behind the box (a script of its own, ending
        turned towards the target), then, from a fresh look, turns to face the target exactly and
        drives through the box. A goal still falling is waited for instead.
        """
        left = [
            g
            for g in privileged["items"]
            if g.get("kind") == "goal" and g.get("active", True) and g["name"] in POSITIVE_GOALS
        ]
        if self._shifting or any(g["id"] in self._falling for g in left):
            return None
        for push in [*knock_pushes(privileged, left), *scoop_pushes(privileged, left)]:
            commands = self._push_commands(privileged, agent, agent_y, push)
            if commands:
                return Plan([push.goal], [push.stand, push.target], [("Think", push.why), *commands])
        return None

    def _push_commands(
        self, privileged: dict[str, Any], agent: AgentState, agent_y: float, push: Push
    ) -> list[tuple[str, Any]]:
        """Push from where the agent stands if it is on the push line just behind the block, else
        drive to ``push.stand`` (or step off the block first; nothing if neither is possible)."""
        tx, tz = push.target
        sx, sz = push.stand
        gap, lateral = push.offset(agent.x, agent.z)
        if lateral <= PUSH_LATERAL and -PUSH_LATERAL <= gap <= PUSH_GAP_MAX:
            angle = self._aim(agent, tx, tz)
            # From farther back the agent meets the box slower: one more step makes up for it.
            n = push_length(push.travel) + (1 if gap > PUSH_SLOW_GAP else 0)
            amap = build_map(privileged, MapSettings(), self._hazard_motion())
            state = self.model.turn(agent, angle)
            while n > 0 and not self._rolls_safely(amap, state, n):
                n -= 1  # the agent follows the box: never into danger
            if n < KICK_MIN_GO:
                return []
            return [("Turn", angle), ("Go", n)] if angle else [("Go", n)]
        amap = build_map(privileged, MapSettings(), self._hazard_motion())
        result = search(amap, (agent.x, agent.z), self._start_height(amap, agent, agent_y))
        cost, cell = math.inf, -1
        for radius in PUSH_STAND_SEARCH:  # the map's margins may leave the exact spot blocked
            near = amap.free & (np.hypot(amap.xs - sx, amap.zs - sz) <= radius)
            cost, cell = result.cost_to(near)
            if math.isfinite(cost):
                break
        if not math.isfinite(cost):
            return self._step_off(agent, push.box)
        waypoints = shorten(amap, (agent.x, agent.z), result.path_to(cell))
        waypoints = [*waypoints[:-1], push.stand]
        out: list[tuple[str, Any]] = []
        state = agent
        for index, (wx, wz) in enumerate(waypoints[:MAX_LEGS]):
            final = index == len(waypoints) - 1
            if not final and math.hypot(wx - state.x, wz - state.z) < WAYPOINT_REACHED:
                continue
            angle = self._aim(state, wx, wz)
            if angle:
                out.append(("Turn", angle))
                state = self.model.turn(state, angle)
            nx, nz = push.target if final else waypoints[index + 1]
            bearing = math.degrees(math.atan2(nx - wx, nz - wz))
            next_angle = int(abs((bearing - state.heading + 180.0) % 360.0 - 180.0))
            n, _ = self._go_steps(amap, state, (wx, wz), False, 0.0, next_angle)
            if n <= 0:
                break
            out.append(("Go", n))
            state = self.model.go(state, n)
            if math.hypot(wx - state.x, wz - state.z) > LEG_TOLERANCE:
                break
        # Nothing to drive: already rolling onto the spot, or against the block beside it.
        return out or self._step_off(agent, push.box)

    def _step_off(self, agent: AgentState, box: dict[str, Any]) -> list[tuple[str, Any]]:
        """Pressed against the block (inside the map's margin round it, where no route starts):
        turn away from its centre and drive a few steps clear, then plan again (nothing if it is
        not near the block)."""
        near = min(
            float(part.distance(np.array([agent.x]), np.array([agent.z]))[0]) for part in item_parts(box)
        )
        if near > STEP_OFF_NEAR:
            return []
        bx, bz = float(box["position"][0]), float(box["position"][2])
        away = math.atan2(agent.x - bx, agent.z - bz)
        angle = self._aim(agent, agent.x + math.sin(away) * 5.0, agent.z + math.cos(away) * 5.0)
        return [("Turn", angle), ("Go", STEP_OFF_GO)] if angle else [("Go", STEP_OFF_GO)]

    def _note_progress(self, agent: AgentState) -> None:
        """Count scripts in a row whose Go steps did not move the agent (it is wedged somewhere)."""
        if self._last is not None and self._last[2] >= UNSTICK_MIN_GO:
            moved = math.hypot(agent.x - self._last[0], agent.z - self._last[1])
            self._stuck = self._stuck + 1 if moved < UNSTICK_MOVED else 0
        else:
            self._stuck = 0

    def _relaxations(self) -> tuple[MapSettings, ...]:
        """The map settings to try in order: a fatter agent first while it is stuck."""
        if not self._stuck:
            return RELAXATIONS
        fat = MapSettings(agent_radius=AGENT_RADIUS_STUCK[min(self._stuck, len(AGENT_RADIUS_STUCK)) - 1])
        return (fat, *RELAXATIONS)

    def _wait(self, privileged: dict[str, Any]) -> list[tuple[str, Any]]:
        """No good goal can be reached now. If one may still come within reach (it falls, rolls or
        bounces), let time pass by turning on the spot; if nothing can change, stand still: every
        step costs reward, and a script of thoughts alone takes no time."""
        left = [
            g
            for g in privileged["items"]
            if g.get("kind") == "goal" and g.get("active", True) and g["name"] in POSITIVE_GOALS
        ]
        if self._shifting or any(self._may_move(g) or g["name"].endswith("Bounce") for g in left):
            # Goals that roll off rails or fall may take a hundred steps or more to come within
            # reach, and an episode allows only so many scripts: the longer the wait already, the
            # longer each further look-round (a full turn at most).
            angle = WAIT_TURNS[min(self._waits, len(WAIT_TURNS) - 1)]
            self._waits += 1
            return [
                ("Think", "I cannot reach a good goal yet; I turn on the spot and watch."),
                ("Turn", angle),
            ]
        return [("Think", "No good goal that is left can be reached, so I stay where I am.")]

    # ---- state ---------------------------------------------------------------------------

    def _agent_state(self, privileged: dict[str, Any]) -> AgentState:
        a = privileged["agent"]
        vx, _, vz = (float(v) for v in a.get("velocity", (0.0, 0.0, 0.0)))
        scale = self._velocity_scale()
        return AgentState(
            float(a["position"][0]), float(a["position"][2]), float(a["heading_deg"]), vx * scale, vz * scale
        )

    def _velocity_scale(self) -> float:
        """Units moved per step per unit of reported velocity (the backend reports per second)."""
        return float(getattr(self.backend, "velocity_per_step", 1.0)) if self.backend is not None else 1.0

    def _track_goals(self, privileged: dict[str, Any], step: int) -> None:
        """Estimate each goal's velocity from its position at the previous turn (bouncing goals move)."""
        for item in privileged["items"]:
            if item.get("kind") != "goal":
                continue
            x, y, z = (float(v) for v in item["position"])
            old = self._seen.get(item["id"])
            if old is not None and step > old[0]:
                dt = step - old[0]
                self._velocity[item["id"]] = ((x - old[1]) / dt, (z - old[2]) / dt)
                # Items start 0.01 above their spawn point and fall from there: a goal dropping
                # straight down has no horizontal speed but is not settled either.
                if abs(y - self._height.get(item["id"], y)) > FALL_TOLERANCE:
                    self._falling.add(item["id"])
                else:
                    self._falling.discard(item["id"])
            self._seen[item["id"]] = (step, x, z)
            self._height[item["id"]] = y

    def _track_movables(self, privileged: dict[str, Any]) -> None:
        """Whether a box moved since the last turn: a pushed box slides and tumbles for a while,
        and a plan made while it moves (or a wait with no step, which stops the clock) goes wrong."""
        now = {
            int(it["id"]): (float(it["position"][0]), float(it["position"][1]), float(it["position"][2]))
            for it in privileged["items"]
            if it.get("kind") == "movable" and it.get("active", True)
        }
        self._shifting = any(
            k in self._movables and math.dist(self._movables[k], v) > SHIFT_TOLERANCE for k, v in now.items()
        )
        self._movables = now

    def _moving(self, privileged: dict[str, Any]) -> bool:
        """Whether any goal moves (or may: a bouncing one whose velocity is not known yet)."""
        for item in privileged["items"]:
            if item.get("kind") != "goal" or not item.get("active", True):
                continue
            v = self._velocity.get(item["id"])
            bounce = item["name"].endswith("Bounce")
            if (v is None and bounce) or (v is not None and math.hypot(*v) > (0.02 if bounce else 0.08)):
                return True
        return False

    def _may_move(self, goal: dict[str, Any]) -> bool:
        """Whether a goal is moving or not known to be still (falling, rolling down a ramp...)."""
        v = self._velocity.get(goal["id"])
        return v is None or math.hypot(*v) > 0.005 or goal["id"] in self._falling

    def _predicted(self, goal: dict[str, Any], agent: AgentState) -> tuple[float, float]:
        """Where a moving goal will be when the agent gets there (straight-line estimate)."""
        x, _, z = (float(v) for v in goal["position"])
        vx, vz = self._velocity.get(goal["id"], (0.0, 0.0))
        if abs(vx) + abs(vz) < 1e-3:
            return x, z
        speed = max(self.model.cruise * 0.8, 0.1)
        px, pz = x, z
        for _ in range(3):
            t = math.hypot(px - agent.x, pz - agent.z) / speed
            px = min(max(x + vx * t, 0.5), 39.5)
            pz = min(max(z + vz * t, 0.5), 39.5)
        return px, pz

    def _hazard_motion(self) -> dict[int, tuple[float, float]]:
        """How far each moving goal may travel during one script (to keep clear of moving red goals)."""
        horizon = MOVING_SCRIPT_STEPS + 4
        return {
            k: (vx * horizon, vz * horizon)
            for k, (vx, vz) in self._velocity.items()
            if math.hypot(vx, vz) > 0.02
        }

    # ---- choosing a goal -----------------------------------------------------------------

    def _choose(
        self,
        privileged: dict[str, Any],
        agent: AgentState,
        agent_y: float | None,
        remaining: float,
        taken: set[int],
        cache: dict[Any, ArenaMap],
        score: _Score | None = None,
    ) -> _Choice | None:
        goals = [
            g
            for g in privileged["items"]
            if g.get("kind") == "goal"
            and g.get("active", True)
            and g["name"] in POSITIVE_GOALS
            and g["id"] not in taken
        ]
        if not goals:
            return None
        # While gold goals are left, green ones (which end the episode) are steered round.
        greens = frozenset(g["id"] for g in goals if not _multi(g["name"]))
        has_gold = len(greens) < len(goals)
        if greens and has_gold:
            passes = [
                (greens, [g for g in goals if g["id"] not in greens]),
                (frozenset(), [g for g in goals if g["id"] in greens]),
            ]
        else:
            passes = [(frozenset(), goals)]
        for settings in self._relaxations():
            options = []
            for avoid, targets in passes:
                key = (settings, avoid)
                if key not in cache:
                    cache[key] = build_map(privileged, settings, self._hazard_motion(), avoid)
                amap = cache[key]
                result = search(amap, (agent.x, agent.z), self._start_height(amap, agent, agent_y))
                for goal in targets:
                    at = self._predicted(goal, agent)
                    cost, cell = result.cost_to(goal_targets(amap, goal, at))
                    here = (float(goal["position"][0]), float(goal["position"][2]))
                    if not math.isfinite(cost) and at != here:
                        # The straight-line guess lands it where it cannot be reached (against a
                        # green goal rolling ahead of it, at the fence); rolling goals slow down,
                        # so head for where it is now and guess again next turn.
                        at = here
                        cost, cell = result.cost_to(goal_targets(amap, goal, at))
                    if math.isfinite(cost):
                        options.append(_Choice(goal, at, cost, result, cell, settings))
            if options:
                return self._prefer(options, remaining, agent, score, goals)
            if agent_y is None:
                return None  # chaining from a predicted spot: only with the map that found the first goal
        return None

    def _start_height(self, amap: ArenaMap, agent: AgentState, agent_y: float | None) -> float | None:
        """The level the agent stands on: its base, clamped to the map's surfaces nearby."""
        if agent_y is None:
            return None
        i, j = amap.cell_of(agent.x, agent.z)
        under = float(amap.height[i, j])
        base = agent_y - (0.5 if _AGENT_Y_IS_CENTRE else 0.0)
        return under if abs(under - base) <= amap.settings.step_up else max(base, 0.0)

    def _prefer(
        self,
        options: list[_Choice],
        remaining: float,
        agent: AgentState,
        score: _Score | None = None,
        goals: list[dict[str, Any]] | None = None,
    ) -> _Choice | None:
        """Gold goals first (the quickest to reach), unless the time left only allows the best green one.

        "Quickest" counts steps, turning included (6 degrees a step), so a goal straight ahead
        beats a slightly nearer one behind the agent: on a field of gold goals this saves a good
        part of the time limit. A green goal that would end the episode below the pass mark is
        not taken while a goal worth enough is still there (out of reach for now, e.g. falling or
        rolling): the agent waits for it instead (None).
        """
        steps_per_unit = 1.0 / max(self.model.cruise, 0.1)

        def steps_to(o: _Choice) -> float:
            return o.cost * steps_per_unit + abs(turn_toward(agent, *o.at)) / 6

        finals = [o for o in options if not _multi(o.goal["name"])]
        multis = [o for o in options if _multi(o.goal["name"])]
        best_final = max(finals, key=lambda o: (_reward(o.goal), -o.cost)) if finals else None
        if best_final is not None and score is not None and not multis:
            if not score.passes(_reward(best_final.goal), steps_to(best_final)):
                # Everything still out there: the gold goals and the best green one.
                others = [g for g in goals or [] if _multi(g["name"])]
                greens = [_reward(g) for g in goals or [] if not _multi(g["name"])]
                potential = sum(_reward(g) for g in others) + max(greens, default=0.0)
                reachable = {id(o.goal) for o in options}
                settling = any(id(g) not in reachable and self._may_move(g) for g in goals or [])
                if (
                    potential > _reward(best_final.goal)
                    and settling
                    and score.passes(potential, steps_to(best_final))
                ):
                    return None

        for multi in sorted(multis, key=steps_to):
            need = multi.cost * steps_per_unit * 1.2 + 10
            if best_final is not None:
                gx, gz = best_final.at
                need += math.hypot(gx - multi.at[0], gz - multi.at[1]) * steps_per_unit * 1.4 + 10
            if need <= remaining or best_final is None:
                return multi
        return best_final if best_final is not None else min(options, key=lambda o: o.cost)

    @staticmethod
    def _chainable(goal: dict[str, Any], privileged: dict[str, Any], taken: set[int]) -> bool:
        """Another goal may follow in the same script: this one was gold and good goals remain."""
        if not _multi(goal["name"]):
            return False
        return any(
            g.get("kind") == "goal"
            and g.get("active", True)
            and g["name"] in POSITIVE_GOALS
            and g["id"] not in taken
            for g in privileged["items"]
        )

    # ---- writing the script ----------------------------------------------------------------

    def _route(self, choice: _Choice, agent: AgentState) -> list[tuple[float, float]]:
        """Waypoints to the goal, ending on the goal itself when it is in sight from the last one."""
        amap = choice.result.amap
        waypoints = shorten(amap, (agent.x, agent.z), choice.result.path_to(choice.cell))
        last = waypoints[-1] if waypoints else (agent.x, agent.z)
        if (
            segment_clear(amap, last, choice.at, max_cost=1e9, start_ok=0.0)
            or math.hypot(last[0] - choice.at[0], last[1] - choice.at[1]) < 1.0
        ):
            waypoints = [*waypoints[:-1], choice.at] if waypoints else [choice.at]
        return waypoints

    @staticmethod
    def _thought(choice: _Choice, agent: AgentState, waypoints: list[tuple[float, float]]) -> str:
        think = f"The {_colour(choice.goal['name'])} sphere is {_where(agent, choice.at)}"
        if len(waypoints) > 1:
            think += f"; I go round what is in the way in {len(waypoints)} legs."
        else:
            think += "; I turn to face it and go straight there."
        if choice.settings.push_movables:
            think += " I may have to push a box out of the way."
        return think

    def _legs(
        self,
        choice: _Choice,
        agent: AgentState,
        waypoints: list[tuple[float, float]],
        budget: int,
        finish: int = FINISH_STEPS,
    ) -> tuple[list[tuple[str, Any]], AgentState, int, bool]:
        """(commands, predicted state, steps used, whether the goal should be touched) for the route.

        ``finish``: Go steps past the predicted touch (fewer when another goal follows at once,
        since the next leg's steps register the touch just as well).
        """
        amap = choice.result.amap
        out: list[tuple[str, Any]] = []
        state = agent
        steps = 0
        reach = float(choice.goal["size"][0]) / 2 + 0.5 - 0.3
        legs = 0
        for index, (wx, wz) in enumerate(waypoints):
            final = index == len(waypoints) - 1
            if not final and math.hypot(wx - state.x, wz - state.z) < WAYPOINT_REACHED:
                continue
            if legs >= MAX_LEGS:
                break
            legs += 1
            if legs > 1 and _delicate(amap, (state.x, state.z), (wx, wz)):
                break  # climb or edge-hugging legs start a script, from a measured position
            brake = self._brake(amap, state)
            if brake:
                out.append(("Go", -brake))
                state = self.model.go(state, -brake)
                steps += brake
            angle = self._aim(state, wx, wz)
            if angle:
                out.append(("Turn", angle))
                state = self.model.turn(state, angle)
                steps += abs(angle) // 6
            next_angle = 0
            if not final:
                nx, nz = waypoints[index + 1]
                bearing = math.degrees(math.atan2(nx - wx, nz - wz))
                next_angle = int(abs((bearing - state.heading + 180.0) % 360.0 - 180.0))
            # Predictions drift with every step planned blind, so later legs keep more room.
            n, touches = self._go_steps(
                amap,
                state,
                (wx, wz),
                final,
                reach,
                next_angle,
                finish,
                DRIFT_PER_STEP * (steps + self._script_steps),
            )
            # Turning does not count against a short (moving-goal) budget on the first leg.
            n = min(n, max(budget - steps, budget // 2 if index == 0 else 1))
            if n <= 0:
                break
            out.append(("Go", n))
            state = self.model.go(state, n)
            steps += n
            if final:
                return out, state, steps, touches and steps <= budget
            if steps >= budget:
                break
            coast = self.model.turn(state, next_angle // 6 * 6)
            if math.hypot(wx - coast.x, wz - coast.z) > LEG_TOLERANCE:
                break  # this leg falls short (aim or safety): look again before the next one
        if not out:  # touching already, or cornered: nudge forward, back off, or turn
            for name, arg in (("Go", 2), ("Go", -2), ("Turn", 30)):
                if name == "Turn" or self._rolls_safely(amap, state, arg):
                    out.append((name, arg))
                    state = self.model.go(state, arg) if name == "Go" else self.model.turn(state, arg)
                    steps += abs(arg) if name == "Go" else arg // 6
                    break
        return out, state, steps, False

    def _brake(self, amap: ArenaMap, state: AgentState) -> int:
        """Backward steps needed first so that rolling on while turning stays clear of danger (0: none).

        A turn does not stop the agent at once; if its roll would carry it too close to a red
        goal or a DeathZone, pushing backwards a step or two kills the speed.
        """
        if state.speed < 0.05:
            return 0
        for n in range(0, 4):
            trace: list[tuple[float, float]] = []
            braked = self.model.go(state, -n, trace) if n else state
            if _along(braked, state) <= 0.05:
                return n  # stopped (pushing on would only reverse)
            self.model.turn(braked, 60, trace)
            if _first_unsafe(amap, trace, (state.x, state.z)) >= len(trace):
                return n
        return 3

    def _aim(self, state: AgentState, x: float, z: float) -> int:
        """The Turn that faces (x, z) from where the agent will be once it has turned.

        A moving agent keeps rolling while it turns, so the bearing is taken again from the
        predicted end of the turn (twice, which settles it).
        """
        angle = turn_toward(state, x, z)
        for _ in range(2):
            after = self.model.turn(state, angle)
            angle = turn_toward(replace(after, heading=state.heading), x, z)
        return angle

    def _go_steps(
        self,
        amap: ArenaMap,
        state: AgentState,
        target: tuple[float, float],
        final: bool,
        reach: float,
        next_angle: int,
        finish: int = FINISH_STEPS,
        drift: float = 0.0,
    ) -> tuple[int, bool]:
        """(Go length, touches) for one leg, never rolling into danger.

        An inner leg takes the length whose predicted end (plus the roll during the next turn)
        lands nearest ``target``. The last leg takes the shortest length whose predicted track
        passes within ``reach`` of the goal, plus a couple of steps to spare if they are safe.
        """
        trace: list[tuple[float, float]] = []
        self.model.go(state, MAX_GO, trace)
        limit = _first_unsafe(amap, trace, (state.x, state.z), drift)
        if final:
            closest_k, closest = 1, math.inf
            for k, (x, z) in enumerate(trace[:limit], start=1):
                d = math.hypot(target[0] - x, target[1] - z)
                if d <= reach:
                    extra = finish
                    while extra and not self._rolls_safely(amap, state, k + extra, OVERSHOOT_MARGIN + drift):
                        extra -= 1
                    return k + extra, True
                if d < closest:
                    closest_k, closest = k, d
            while closest_k > 0 and not self._rolls_safely(amap, state, closest_k, drift):
                closest_k -= 1
            return closest_k, False
        best_n, best_err = 0, math.hypot(target[0] - state.x, target[1] - state.z)
        coast = next_angle // 6 * 6
        for n in range(1, limit + 1):
            end = self.model.turn(self.model.go(state, n), coast)
            err = math.hypot(target[0] - end.x, target[1] - end.z)
            if err < best_err:
                best_n, best_err = n, err
        while best_n > 0 and not self._rolls_safely(amap, state, best_n, drift):
            best_n -= 1
        return best_n, False

    def _rolls_safely(self, amap: ArenaMap, state: AgentState, n: int, margin: float = 0.0) -> bool:
        """Go(n) and the roll that follows it stay on safe ground (as far as the model predicts)."""
        trace: list[tuple[float, float]] = []
        self.model.turn(self.model.go(state, n, trace), 60, trace)
        return _first_unsafe(amap, trace, (state.x, state.z), margin) >= len(trace)


def _along(state: AgentState, reference: AgentState) -> float:
    """The speed of ``state`` in the direction ``reference`` was moving (negative: reversed)."""
    speed = reference.speed
    if speed < 1e-9:
        return 0.0
    return (state.vx * reference.vx + state.vz * reference.vz) / speed


def _delicate(amap: ArenaMap, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """A leg that climbs, runs along a drop or crosses a HotZone: worth starting from a fresh look."""
    res = amap.settings.resolution
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    samples = max(int(length / res), 1)
    for k in range(samples + 1):
        t = k / samples
        i, j = amap.cell_of(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
        if amap.cost[i, j] > 1.0 or amap.height[i, j] > amap.settings.step_up:
            return True
    return False


def _first_unsafe(
    amap: ArenaMap, trace: list[tuple[float, float]], start: tuple[float, float], margin: float = 0.0
) -> int:
    """Index of the first predicted position too close to something lethal (DeathZone, red goal).

    "Too close" is within ``TRACE_MARGIN`` of dying; an agent already that close may still move
    as long as it does not get any closer (it must be able to back away).
    """
    if not trace or not amap.hazards:
        return len(trace)
    xs = np.array([start[0]] + [p[0] for p in trace])
    zs = np.array([start[1]] + [p[1] for p in trace])
    clear = amap.clearance(xs, zs)
    floor = min(TRACE_MARGIN + margin, float(clear[0]) - 0.01)
    bad = np.flatnonzero((clear[1:] < floor) | (clear[1:] <= 0.02))
    return int(bad[0]) if bad.size else len(trace)


def _where(agent: AgentState, at: tuple[float, float]) -> str:
    """Distance and direction from the agent's point of view, e.g. "12 units away, 40 degrees to my right"."""
    distance = math.hypot(at[0] - agent.x, at[1] - agent.z)
    angle = turn_toward(agent, *at)
    if abs(angle) < 6:
        side = "straight ahead"
    elif abs(angle) >= 174:
        side = "behind me"
    else:
        side = f"{abs(angle)} degrees to my {'right' if angle > 0 else 'left'}"
    return f"{distance:.0f} units away, {side}"


def _reward(goal: dict[str, Any]) -> float:
    reward = goal.get("reward")
    return float(reward) if reward is not None else float(goal["size"][0])


# Whether the agent's reported y is the centre of its sphere (True) or its base (the contract: base).
_AGENT_Y_IS_CENTRE = False
