"""Smooth fingertip trajectories compiled into low-level joint actions.

A low-level action is ``{"q": [9 joint targets, rad], "ms": n}``: the world moves the PD set-point
linearly to ``q`` over n 1-ms physics steps. A trajectory is sampled every ``WAYPOINT_MS`` along a
minimum-jerk time law, each sample solved by IK warm-started from the previous one, so commands
start exactly from the last *commanded* tip targets (inside a grasped block, keeping the squeeze)
rather than from the measured tips.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from agentkit.envs.trifinger.kinematics import TipKinematics

WAYPOINT_MS = 20
TIP_SPEED = 0.3  # m/s of the fastest tip along straight segments
MIN_SEGMENT_S = 0.08
REACH_TOLERANCE = 0.008  # a target farther than this from what IK reaches is unreachable
CARRY_TOLERANCE = (
    0.004  # while holding a block: a tip missing by the grip's squeeze (7 mm) lets the block drop
)
_DIGITS = 4


class UnreachableError(ValueError):
    """A tip target the fingers cannot reach; the message names the finger and the point."""


def min_jerk(tau: float) -> float:
    return tau * tau * tau * (10 - 15 * tau + 6 * tau * tau)


def joint_action(q: np.ndarray, ms: int) -> dict:
    return {"q": [round(float(v), _DIGITS) + 0.0 for v in q], "ms": int(ms)}


class TrajectoryBuilder:
    """Accumulates actions for one command, starting from the commanded joints ``q_start``."""

    def __init__(self, kinematics: TipKinematics, q_start: np.ndarray) -> None:
        self.kin = kinematics
        self.q = np.asarray(q_start, dtype=float).copy()
        self.tips = kinematics.tips(self.q)
        self.actions: list[dict] = []

    def path(
        self, at: Callable[[float], np.ndarray], duration_s: float, tolerance: float = REACH_TOLERANCE
    ) -> None:
        """Follow ``at(s)`` (tips (3, 3) for s in [0, 1]) over ``duration_s`` with min-jerk timing; a
        waypoint IK misses by more than ``tolerance`` is unreachable."""
        count = max(1, math.ceil(duration_s * 1000 / WAYPOINT_MS))
        for k in range(1, count + 1):
            targets = at(min_jerk(k / count))
            result = self.kin.solve(targets, self.q)
            if result.worst > tolerance:
                finger = int(np.argmax(result.errors))
                x, y, z = (round(float(v), 3) for v in targets[finger])
                raise UnreachableError(
                    f"finger {finger} would have to pass ({x}, {y}, {z}) and stops "
                    f"{result.worst * 100:.1f} cm short"
                )
            self.q = result.joints
            self.actions.append(joint_action(self.q, WAYPOINT_MS))
        self.tips = np.asarray(at(1.0), dtype=float)

    def move(self, targets: np.ndarray, speed: float = TIP_SPEED, tolerance: float = REACH_TOLERANCE) -> None:
        """Straight lines from the current commanded tips to ``targets`` (3, 3)."""
        start, end = self.tips.copy(), np.asarray(targets, dtype=float)
        distance = float(np.linalg.norm(end - start, axis=1).max())
        if distance < 1e-5:
            return
        self.path(
            lambda s: start + (end - start) * s, max(MIN_SEGMENT_S, 1.875 * distance / speed), tolerance
        )

    def turn(self, centre: np.ndarray, rotation: np.ndarray, angular_speed: float = 1.5) -> None:
        """Turn the tips rigidly about ``centre`` by the 3x3 ``rotation`` (any axis), at a steady rate."""
        start = self.tips.copy()
        c = np.asarray(centre, dtype=float)
        angle = math.acos(max(-1.0, min(1.0, (float(np.trace(rotation)) - 1) / 2)))
        if angle < 1e-6:
            return
        axis = np.array(
            [
                rotation[2, 1] - rotation[1, 2],
                rotation[0, 2] - rotation[2, 0],
                rotation[1, 0] - rotation[0, 1],
            ]
        )
        norm = float(np.linalg.norm(axis))
        if norm < 1e-9:  # a half turn: the axis is any column of (R + I) that is not zero
            columns = rotation + np.eye(3)
            axis = columns[:, int(np.argmax(np.linalg.norm(columns, axis=0)))]
            norm = float(np.linalg.norm(axis))
        axis = axis / norm
        k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])

        def at(s: float) -> np.ndarray:
            a = angle * s
            rot = np.eye(3) + math.sin(a) * k + (1 - math.cos(a)) * k @ k
            return c + (start - c) @ rot.T

        self.path(at, max(MIN_SEGMENT_S, 1.875 * angle / angular_speed))

    def joints(self, q_goal: np.ndarray, duration_s: float) -> None:
        """Interpolate straight in joint space (used to go home)."""
        start, goal = self.q.copy(), np.asarray(q_goal, dtype=float)
        count = max(1, math.ceil(duration_s * 1000 / WAYPOINT_MS))
        for k in range(1, count + 1):
            self.q = start + (goal - start) * min_jerk(k / count)
            self.actions.append(joint_action(self.q, WAYPOINT_MS))
        self.tips = self.kin.tips(self.q)

    def hold(self, seconds: float) -> None:
        remaining = int(round(seconds * 1000))
        while remaining > 0:
            ms = min(100, remaining)
            self.actions.append(joint_action(self.q, ms))
            remaining -= ms
