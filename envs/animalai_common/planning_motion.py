"""How the arena agent moves under Go and Turn, as the reference planner predicts it.

Why a model and not a fixed "units per Go": forward motion has momentum. Go(n) from rest covers
less than n times the cruising speed, the agent keeps sliding after the last Go step (also while
it turns on the spot), and a new leg starts with whatever velocity the last one left. The planner
therefore simulates a whole script with the arena's own equations (``motion.py``: Animal-AI's drive,
PhysX's drag, the floor's friction and the quick stop of an idle step, three 0.02 s updates a step),
on flat open ground. That is exact where the arena is flat and open, and the planner keeps margins
for the rest (walls, slopes, pushes).

Velocities in ``AgentState`` are in units per environment step (units/s x 0.06), positions in units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from agentkit.envs.animalai_common import motion

TURN_STEP_DEG = 6


@dataclass(frozen=True)
class AgentState:
    """Where the agent is, which way it faces (degrees, 0 = +z, clockwise) and its velocity (units/step)."""

    x: float
    z: float
    heading: float
    vx: float = 0.0
    vz: float = 0.0

    @property
    def speed(self) -> float:
        return math.hypot(self.vx, self.vz)


@dataclass(frozen=True)
class MotionModel:
    """Animal-AI's per-update motion on flat ground, stepped a whole Go or Turn at a time."""

    friction: float = motion.DEFAULT_FRICTION

    @property
    def cruise(self) -> float:
        """The speed (units per step) Go approaches after many steps."""
        return _cruise(self.friction)

    def _steps(
        self, state: AgentState, steps: int, b0: int, turn: int, trace: list[tuple[float, float]] | None
    ) -> AgentState:
        x, z, heading = state.x, state.z, state.heading
        vx, vz = state.vx / motion.STEP_SECONDS, state.vz / motion.STEP_SECONDS  # units/s
        normal = motion.GRAVITY * motion.PHYSICS_DT * motion.DAMPING  # the floor's impulse per update
        for _ in range(steps):
            for _ in range(motion.DECISION_PERIOD):
                heading = (heading + turn * motion.TURN_PER_UPDATE) % 360.0
                vx, _, vz = motion.drive((vx, 0.0, vz), heading, b0, grounded=True)
                vx, vz = vx * motion.DAMPING, vz * motion.DAMPING
                speed = math.hypot(vx, vz)
                if speed > 0.0:
                    keep = max(0.0, speed - self.friction * normal) / speed
                    vx, vz = vx * keep, vz * keep
                x, z = x + vx * motion.PHYSICS_DT, z + vz * motion.PHYSICS_DT
            if trace is not None:
                trace.append((x, z))
        return AgentState(x, z, heading, vx * motion.STEP_SECONDS, vz * motion.STEP_SECONDS)

    def go(self, state: AgentState, n: int, trace: list[tuple[float, float]] | None = None) -> AgentState:
        """The state after Go(n) (negative n: backwards), appending every position to ``trace``."""
        return self._steps(state, abs(n), 1 if n >= 0 else 2, 0, trace)

    def turn(
        self, state: AgentState, degrees: int, trace: list[tuple[float, float]] | None = None
    ) -> AgentState:
        """The state after Turn(degrees): the agent slides on (braking) while it rotates."""
        steps = abs(int(degrees / TURN_STEP_DEG))
        return self._steps(state, steps, 0, 1 if degrees > 0 else -1, trace)


@lru_cache(maxsize=8)
def _cruise(friction: float) -> float:
    """Top speed on flat ground, worked out once per friction (the planner asks for it often)."""
    return motion.flat_ground_run(200, friction=friction).top_speed * motion.STEP_SECONDS


DEFAULT_MODEL = MotionModel()


def turn_toward(state: AgentState, x: float, z: float) -> int:
    """The Turn argument (a multiple of 6, in -180..180) that best faces (x, z) from ``state``."""
    bearing = math.degrees(math.atan2(x - state.x, z - state.z))
    delta = (bearing - state.heading + 180.0) % 360.0 - 180.0
    return int(round(delta / TURN_STEP_DEG)) * TURN_STEP_DEG
