"""How the agent moves: Animal-AI's two action branches turned into a velocity, one step at a time.

Why a model of its own: the script language promises "Go(35) crosses the arena" and "Turn(90)
turns 90 degrees" (the LLM-AAI paper's calibration), so the motion must be simple enough to
reason about, and tested alone, before physics resolves collisions.

An action is ``[b0, b1]``: branch 0 is 0 none / 1 forward / 2 backward, branch 1 is 0 none /
1 right / 2 left. Each step turns the heading by 6 degrees (right = clockwise seen from above) and
updates the horizontal velocity, in arena units per step:

* driving (b0 = 1 or 2) while grounded: ``v = DRAG * v + ACCEL * facing`` (or ``- ACCEL``), so speed
  builds up towards ``ACCEL / (1 - DRAG)`` = 1.226 units per step and a turn while moving curves;
* no drive while grounded: ``v = BRAKE * v`` (Animal-AI's "quick stop"), and a speed below
  ``STOP_SPEED`` becomes 0, so an idle agent stands still (also on a slope);
* in the air: the velocity is kept (gravity and collisions belong to the physics).

Calibration: from rest, 35 forward steps cover 31.0 x 1.226 = 38.0 units (the paper's "Go(35)
crosses the arena"), Go(10) 7.9 units, Go(5) 2.8 units, Go(1) 0.25 units; after a Go the agent
coasts about one more unit while braking. Velocities given to pybullet are these per-step values
divided by the step's duration, ``STEP_SECONDS`` (Animal-AI's 3 physics updates of 0.02 s).
"""

from __future__ import annotations

import math

STEP_SECONDS = 0.06
TURN_DEGREES = 6.0
ACCEL = 38.0 / 31.0 * (1 - 0.8)  # units per step gained per driving step
DRAG = 0.8  # fraction of the speed kept per driving step
BRAKE = 0.5  # fraction kept per idle step on the ground
STOP_SPEED = 0.02  # units per step


def facing(heading_deg: float) -> tuple[float, float]:
    """The (x, z) unit vector the agent faces; heading 0 faces +z, 90 faces +x."""
    r = math.radians(heading_deg)
    return math.sin(r), math.cos(r)


def turn(heading_deg: float, b1: int) -> float:
    """The heading after one step of branch 1, in [0, 360)."""
    if b1 == 1:
        heading_deg += TURN_DEGREES
    elif b1 == 2:
        heading_deg -= TURN_DEGREES
    return heading_deg % 360.0


def drive(vx: float, vz: float, heading_deg: float, b0: int, grounded: bool) -> tuple[float, float]:
    """The horizontal velocity (units per step) after one step of branch 0."""
    if not grounded:
        return vx, vz
    if b0 in (1, 2):
        fx, fz = facing(heading_deg)
        sign = 1.0 if b0 == 1 else -1.0
        return DRAG * vx + sign * ACCEL * fx, DRAG * vz + sign * ACCEL * fz
    vx, vz = BRAKE * vx, BRAKE * vz
    if vx * vx + vz * vz < STOP_SPEED * STOP_SPEED:
        return 0.0, 0.0
    return vx, vz


def free_distance(steps: int) -> float:
    """Distance covered by ``steps`` forward steps from rest on open ground (for docs and tests)."""
    v = travelled = 0.0
    for _ in range(steps):
        v = DRAG * v + ACCEL
        travelled += v
    return travelled
