"""How fast the TriFinger backend runs, beside a bare pybullet loop driving the same robot.

Prints:
  (a) simulated 4-ms physics steps per second of the backend (CausalWorld's PD + safety torque
      control, a pushing scene with its block, CausalWorld's dense reward every 10 steps) and of a
      bare loop doing what CausalWorld's ``apply_action`` does on the same robot alone (read the
      joints, PD torques, safety check, one ``stepSimulation``), measured in alternating rounds, and
      simulated seconds per wall second; target backend >= 0.8x;
  (b) milliseconds per three-camera observation (270 px, pybullet's CPU renderer), with and without
      the goal images.

Usage: python bench/trifinger_speed.py [--steps N] [--rounds R] [--observations K]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from agentkit.envs.pybullet_support.bullet import connect, disconnect, p
from agentkit.envs.trifinger import causalworld_robot as robot
from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.world import TIME_STEP_MS, TIME_STEP_S


class BareLoop:
    """CausalWorld's robot alone in a server, stepped as its ``apply_action`` steps it."""

    def __init__(self) -> None:
        self.client = connect()
        p.setTimeStep(TIME_STEP_S, physicsClientId=self.client)
        p.setGravity(0, 0, -9.81, physicsClientId=self.client)
        self.bodies = robot.load(self.client)
        for joint, angle in zip(self.bodies.joints, robot.REST_JOINTS):
            p.resetJointState(self.bodies.robot, joint, angle, 0.0, physicsClientId=self.client)

    def step(self, target: np.ndarray) -> None:
        states = p.getJointStates(self.bodies.robot, self.bodies.joints, physicsClientId=self.client)
        q = np.array([s[0] for s in states])
        v = np.array([s[1] for s in states])
        torques = robot.safe_torques(robot.pd_torques(target, q, v), v)
        p.setJointMotorControlArray(
            self.bodies.robot,
            self.bodies.joints,
            p.TORQUE_CONTROL,
            forces=torques,
            physicsClientId=self.client,
        )
        p.stepSimulation(physicsClientId=self.client)


def bench_steps(steps: int, rounds: int) -> None:
    backend = TriFingerBackend(cameras=False)
    backend.reset("pushing", 0)
    q = backend.world.target.tolist()
    raw = BareLoop()
    target = np.asarray(q)
    ours, theirs = [], []
    chunk = 25  # physics steps per backend action (100 ms)
    for _ in range(rounds):
        backend.reset("pushing", 0)  # a round must fit in one 10 s episode (2500 steps)
        start = time.perf_counter()
        for _ in range(steps // chunk):
            backend.step({"q": q, "ms": chunk * TIME_STEP_MS})
        ours.append(steps / (time.perf_counter() - start))
        start = time.perf_counter()
        for _ in range(steps):
            raw.step(target)
        theirs.append(steps / (time.perf_counter() - start))
    backend.close()
    disconnect(raw.client)
    a, b = statistics.median(ours), statistics.median(theirs)
    print(
        f"(a) backend: {a:,.0f} sim steps/s ({a * TIME_STEP_S:.0f}x real time); bare loop: {b:,.0f} steps/s; "
        f"ratio {a / b:.2f}x "
        f"(target >= 0.8x: {'OK' if a / b >= 0.8 else 'MISSED'}); median of {rounds} rounds of {steps} steps"
    )


def bench_observations(count: int) -> None:
    for goal_images in (False, True):
        backend = TriFingerBackend(cameras=True, render_size=270, goal_images=goal_images)
        backend.reset("stacking2", 0)
        times = []
        for _ in range(count):
            start = time.perf_counter()
            raw = backend.observe()
            times.append((time.perf_counter() - start) * 1000)
        backend.close()
        label = "with goal images" if goal_images else "three cameras"
        print(
            f"(b) {label}: {statistics.median(times):.0f} ms per observation ({len(raw.frames)} frames of 270 px, "
            f"median of {count})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=2000, help="physics steps per round (at most 2500)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--observations", type=int, default=10)
    args = parser.parse_args()
    bench_steps(args.steps, args.rounds)
    bench_observations(args.observations)


if __name__ == "__main__":
    main()
