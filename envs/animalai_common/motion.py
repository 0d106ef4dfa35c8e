"""How the agent moves: Animal-AI's drive, turn, drag, friction and braking, one 0.02 s update at a time.

Why a model of its own: an LLM's ``Go(9)`` must carry the agent as far as a child's nine key-press
steps carried theirs, so the motion reproduces Animal-AI's ``TrainingAgent.MoveAgent`` and Unity's
PhysX integrator update by update, with every constant read from the Unity project (v3.1.3, commit
4cfeca1; v4.1.0 has the same values):

* One environment step is ``DECISION_PERIOD`` = 3 physics updates of ``PHYSICS_DT`` = 0.02 s.
  ML-Agents repeats the step's action on every update (``DecisionRequester.TakeActionsBetweenDecisions``).
* Each update, before PhysX runs (``MoveAgent``): branch 1 turns the agent by ``rotationSpeed x dt`` =
  2 degrees (6 per step, 60 steps per full turn); when the agent is grounded, branch 0 = 1/2 adds an
  acceleration of ``speed x 100 x dt`` = 50 units/s^2 along/against its heading (``ForceMode.Acceleration``:
  a velocity change of 1 unit/s per update), and branch 0 = 0 multiplies the whole velocity by
  ``quickStopRatio`` = 0.9. In the air the agent cannot drive or brake.
* PhysX then adds gravity (9.81) and multiplies the velocity by ``1 - drag x dt`` (drag 1.6, the arena
  prefab's override; ``DyBodyCoreIntegrator.h``: gravity first, then damping), and the contact solver
  applies Coulomb friction: each contact removes the velocity into its surface and slows the sliding
  by up to ``friction x`` that normal impulse. Unity's default material has friction 0.6 and combines
  two materials by averaging them, so the agent (default material) slides on the floor, walls and
  ramps (default material) with 0.6 and on the cardboard boxes (LowFriction, 0.25) with 0.425.

What follows: top speed on flat ground 26.7 units/s (1.6 units per step); from rest Go(1) covers
0.10 units, Go(5) 1.77, Go(9) 4.98, Go(10) 5.95, Go(20) 18.17, Go(35) 40.43, and the no-op steps after
them coast 0.16, 1.07, 1.73, 1.87, 2.68 and 3.05 units further (``flat_ground_run``); a ramp is
climbable from rest while ``a cos(theta) > g sin(theta) + mu (g cos(theta) + a sin(theta))``, up to
47.9 degrees. ``flat_ground_run`` computes these numbers from the equations alone, for the calibration
tests and the docs; ``world.py`` applies the same per-update rules to the pybullet body.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

PHYSICS_DT = 0.02  # ProjectSettings/TimeManager.asset: Fixed Timestep
DECISION_PERIOD = 3  # AAI3EnvironmentManager.cs: defaultDecisionPeriod (AAI3Arena.prefab: decisionPeriod 3)
STEP_SECONDS = PHYSICS_DT * DECISION_PERIOD
SPEED = 25.0  # TrainingAgent.cs: speed (AAI3Arena.prefab override: 25)
ACCELERATION = (
    SPEED * 100.0 * PHYSICS_DT
)  # TrainingAgent.MoveAgent: AddForce(dir * speed * 100 * dt, Acceleration)
ROTATION_SPEED = 100.0  # TrainingAgent.cs: rotationSpeed, degrees per second (AAI3Arena.prefab override: 100)
TURN_PER_UPDATE = ROTATION_SPEED * PHYSICS_DT  # transform.Rotate(up, fixedDeltaTime * rotationSpeed)
TURN_DEGREES = TURN_PER_UPDATE * DECISION_PERIOD  # 6 degrees per environment step
QUICK_STOP = 0.9  # TrainingAgent.cs: quickStopRatio
DRAG = 1.6  # AAI3Arena.prefab: the agent Rigidbody's m_Drag override (the agent prefab itself says 1.2)
DAMPING = 1.0 - DRAG * PHYSICS_DT  # PhysX: velocity *= 1 - linearDamping * dt, each update
GRAVITY = 9.81  # ProjectSettings/DynamicsManager.asset: m_Gravity y = -9.81
AGENT_MASS = 100.0  # AAI3Agent.prefab: Rigidbody m_Mass
DEFAULT_FRICTION = 0.6  # Unity's default PhysicMaterial (dynamic and static friction), combine = average
LOW_FRICTION = 0.25  # Assets/Materials/LowFriction.physicMaterial (Cardbox1, Cardbox2)


def combined_friction(a: float, b: float) -> float:
    """Unity's default friction combine (``frictionCombine: 0`` = Average) of two materials."""
    return (a + b) / 2


def facing(heading_deg: float) -> tuple[float, float]:
    """The (x, z) unit vector the agent faces; heading 0 faces +z, 90 faces +x."""
    r = math.radians(heading_deg)
    return math.sin(r), math.cos(r)


def turn(heading_deg: float, b1: int) -> float:
    """The heading after one physics update of branch 1 (1 = right, clockwise seen from above), in [0, 360)."""
    if b1 == 1:
        heading_deg += TURN_PER_UPDATE
    elif b1 == 2:
        heading_deg -= TURN_PER_UPDATE
    return heading_deg % 360.0


def drive(
    velocity: tuple[float, float, float], heading_deg: float, b0: int, grounded: bool
) -> tuple[float, float, float]:
    """``MoveAgent`` for one update: the velocity (x, y up, z; units/s) before PhysX runs."""
    vx, vy, vz = velocity
    if not grounded:
        return vx, vy, vz
    if b0 in (1, 2):
        fx, fz = facing(heading_deg)
        dv = ACCELERATION * PHYSICS_DT * (1.0 if b0 == 1 else -1.0)
        return vx + dv * fx, vy, vz + dv * fz
    return vx * QUICK_STOP, vy * QUICK_STOP, vz * QUICK_STOP


def integrate(velocity: tuple[float, float, float]) -> tuple[float, float, float]:
    """PhysX's unconstrained velocity for one update: gravity added, then linear damping."""
    vx, vy, vz = velocity
    vy -= GRAVITY * PHYSICS_DT
    return vx * DAMPING, vy * DAMPING, vz * DAMPING


@dataclass(frozen=True)
class FlatRun:
    """A run on open flat ground from rest: where the drive ended and where the agent came to rest."""

    driven: float  # units covered during the forward steps
    coasted: float  # units covered afterwards under no-op steps, until the agent stops
    top_speed: float  # units/s at the end of the drive


def _slide(speed: float, normal_impulse: float, friction: float) -> float:
    return max(0.0, speed - friction * normal_impulse)


def flat_ground_run(
    forward_steps: int, friction: float = DEFAULT_FRICTION, max_coast_steps: int = 200
) -> FlatRun:
    """Distance from the equations alone: ``forward_steps`` steps of branch 0 = 1, then no-op steps.

    On flat ground the contact cancels the vertical velocity, so its normal impulse per unit mass is
    the gravity velocity gained in the update (``g dt``, damped with the rest).
    """
    normal = GRAVITY * PHYSICS_DT * DAMPING
    speed = driven = coasted = 0.0
    for _ in range(forward_steps * DECISION_PERIOD):
        speed = _slide((speed + ACCELERATION * PHYSICS_DT) * DAMPING, normal, friction)
        driven += speed * PHYSICS_DT
    top = speed
    for _ in range(max_coast_steps * DECISION_PERIOD):
        if speed <= 0.0:
            break
        speed = _slide(speed * QUICK_STOP * DAMPING, normal, friction)
        coasted += speed * PHYSICS_DT
    return FlatRun(driven, coasted, top)


def free_distance(steps: int) -> float:
    """Units covered by ``steps`` forward steps from rest on open ground, before any coast."""
    return flat_ground_run(steps).driven


def steepest_climbable_slope(friction: float = DEFAULT_FRICTION) -> float:
    """The steepest ramp (degrees) the drive can start up from rest: where the net uphill push is zero."""
    a, g = ACCELERATION, GRAVITY
    # a cos t - g sin t - mu (g cos t + a sin t) = 0  =>  tan t = (a - mu g) / (g + mu a)
    return math.degrees(math.atan((a - friction * g) / (g + friction * a)))
