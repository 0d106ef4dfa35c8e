"""How the arena agent moves under Go and Turn, as the reference planner predicts it.

Why a model and not a fixed "units per Go": forward motion has momentum. Go(n) from rest covers
less than n times the cruising speed, the agent keeps rolling after the last Go step (also while
it turns on the spot), and a new leg starts with whatever velocity the last one left. The planner
therefore simulates a whole script with a small linear model fitted to the real backend:

    Go step:   v <- go_decay * v + go_push * facing     (facing = unit vector of the heading)
    Turn step: v <- idle_decay * v, heading += 6 degrees (or -6)
    every step: position += v * step_time

``DEFAULT_MODEL`` holds the values measured on the pybullet arena (Go(n) from rest on an empty
arena, then turning while rolling); a test re-measures the backend and checks they still match.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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
    """Per-step velocity update for Go, Turn and backwards steps (units per step)."""

    go_decay: float
    go_push: float
    idle_decay: float
    back_push: float
    stop_speed: float = 0.0  # an idle agent slower than this stops dead

    @property
    def cruise(self) -> float:
        """The speed Go approaches after many steps."""
        return self.go_push / (1.0 - self.go_decay)

    def go(self, state: AgentState, n: int, trace: list[tuple[float, float]] | None = None) -> AgentState:
        """The state after Go(n) (negative n: backwards), appending every position to ``trace``."""
        rad = math.radians(state.heading)
        fx, fz = math.sin(rad), math.cos(rad)
        push = self.go_push if n >= 0 else -self.back_push
        x, z, vx, vz = state.x, state.z, state.vx, state.vz
        for _ in range(abs(n)):
            vx, vz = self.go_decay * vx + push * fx, self.go_decay * vz + push * fz
            x, z = x + vx, z + vz
            if trace is not None:
                trace.append((x, z))
        return AgentState(x, z, state.heading, vx, vz)

    def turn(self, state: AgentState, degrees: int, trace: list[tuple[float, float]] | None = None) -> AgentState:
        """The state after Turn(degrees): the agent rolls on (slowing) while it rotates."""
        steps = abs(int(degrees / TURN_STEP_DEG))
        sign = 1 if degrees > 0 else -1
        x, z, vx, vz, heading = state.x, state.z, state.vx, state.vz, state.heading
        for _ in range(steps):
            vx, vz = self.idle_decay * vx, self.idle_decay * vz
            if math.hypot(vx, vz) < self.stop_speed:
                vx = vz = 0.0
            x, z = x + vx, z + vz
            heading = (heading + sign * TURN_STEP_DEG) % 360.0
            if trace is not None:
                trace.append((x, z))
        return AgentState(x, z, heading, vx, vz)

    def coast_distance(self, speed: float) -> float:
        """How far the agent rolls from ``speed`` if nothing pushes it any more."""
        return speed * self.idle_decay / (1.0 - self.idle_decay) if self.idle_decay < 1 else math.inf


# Measured on the pybullet arena (Go(n) from rest on an empty arena, then Turn while rolling):
# speed builds towards 1.226 units per step, Go(10) covers 7.9 units, Go(35) 38.0, and a turning
# (idle) step halves the speed. tests/test_arena_reference.py re-measures and compares.
DEFAULT_MODEL = MotionModel(go_decay=0.8, go_push=0.24516, idle_decay=0.5, back_push=0.24516, stop_speed=0.02)


def turn_toward(state: AgentState, x: float, z: float) -> int:
    """The Turn argument (a multiple of 6, in -180..180) that best faces (x, z) from ``state``."""
    bearing = math.degrees(math.atan2(x - state.x, z - state.z))
    delta = (bearing - state.heading + 180.0) % 360.0 - 180.0
    return int(round(delta / TURN_STEP_DEG)) * TURN_STEP_DEG
