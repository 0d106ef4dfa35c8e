"""Fingertip kinematics of CausalWorld's TriFinger Edu on pinocchio: damped least squares, per finger.

Why not CausalWorld's own IK (``envs/robot/trifinger.py`` ``inverse_kinematics``: pybullet's
``calculateInverseKinematics2`` from the rest pose, three calls): it is millimetres off and block
grasps need sub-millimetre tips. Full damped steps from the previous waypoint converge in 2-4
iterations. The model is read from the same URDF the world loads; positions are in the world's frame
(table top at z = 0, ``causalworld_robot``), so the URDF's frame is shifted down by the floor height.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio

from agentkit.envs.trifinger.causalworld_robot import (
    FLOOR_HEIGHT,
    JOINT_HIGH,
    JOINT_LOW,
    TIP_LINKS,
    urdf_path,
)

__all__ = ["JOINT_HIGH", "JOINT_LOW", "IKResult", "TipKinematics"]
_BASE = np.array([0.0, 0.0, -FLOOR_HEIGHT])


@dataclass(frozen=True)
class IKResult:
    joints: np.ndarray  # (9,)
    errors: np.ndarray  # (3,) distance of each tip from its target, metres

    @property
    def worst(self) -> float:
        return float(self.errors.max())


class TipKinematics:
    """Forward and inverse kinematics of the three fingertips; also the gravity torques."""

    def __init__(self) -> None:
        self.model = pinocchio.buildModelFromUrdf(str(urdf_path()))
        self.data = self.model.createData()
        self.frames = [self.model.getFrameId(name) for name in TIP_LINKS]

    def tips(self, joints: np.ndarray) -> np.ndarray:
        """Fingertip positions (3, 3) for joint angles (9,)."""
        pinocchio.framesForwardKinematics(self.model, self.data, np.asarray(joints, dtype=float))
        return np.array([self.data.oMf[f].translation for f in self.frames]) + _BASE

    def gravity(self, joints: np.ndarray) -> np.ndarray:
        """Joint torques (9,) that hold the fingers against gravity at ``joints``."""
        return np.asarray(
            pinocchio.computeGeneralizedGravity(self.model, self.data, np.asarray(joints, dtype=float))
        )

    def set_gravity(self, gravity: tuple[float, float, float]) -> None:
        self.model.gravity.linear = np.asarray(gravity, dtype=float)

    def solve(
        self,
        targets: np.ndarray,
        guess: np.ndarray,
        tolerance: float = 2e-4,
        iterations: int = 40,
        damping: float = 1e-3,
    ) -> IKResult:
        """Joint angles putting each tip on its target, within the joint limits, from ``guess``."""
        q = np.clip(np.asarray(guess, dtype=float).copy(), JOINT_LOW, JOINT_HIGH)
        targets = np.asarray(targets, dtype=float).reshape(3, 3)
        errors = np.full(3, np.inf)
        for _ in range(iterations):
            pinocchio.computeJointJacobians(self.model, self.data, q)
            pinocchio.updateFramePlacements(self.model, self.data)
            residual = targets - _BASE - np.array([self.data.oMf[f].translation for f in self.frames])
            errors = np.linalg.norm(residual, axis=1)
            if errors.max() < tolerance:
                break
            for i, frame in enumerate(self.frames):
                if errors[i] < tolerance:
                    continue
                jac = pinocchio.getFrameJacobian(
                    self.model, self.data, frame, pinocchio.ReferenceFrame.LOCAL_WORLD_ALIGNED
                )[:3, 3 * i : 3 * i + 3]
                step = jac.T @ np.linalg.solve(jac @ jac.T + damping**2 * np.eye(3), residual[i])
                norm = np.linalg.norm(step)
                if norm > 0.5:  # keep each step in the linear region
                    step *= 0.5 / norm
                q[3 * i : 3 * i + 3] += step
            q = np.clip(q, JOINT_LOW, JOINT_HIGH)
        else:
            errors = np.linalg.norm(targets - self.tips(q), axis=1)
        return IKResult(q, errors)
