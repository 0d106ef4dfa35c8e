"""Oriented cuboids and the few rotations the TriFinger backend needs (quaternions are x, y, z, w).

Why own helpers: blocks and goals are compared thousands of times per episode (overlap, grasp
planning), so the maths is plain numpy on arrays, without a pybullet round trip.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import SupportsFloat

import numpy as np

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]

IDENTITY: Quat = (0.0, 0.0, 0.0, 1.0)


def vec3(values: Iterable[SupportsFloat]) -> Vec3:
    """Three plain floats from any three numbers (a numpy row, a list, pybullet's tuple); the type
    checker then knows the length, which ``tuple(float(v) for v in values)`` does not tell it."""
    x, y, z = (float(v) for v in values)
    return (x, y, z)


def quat(values: Iterable[SupportsFloat]) -> Quat:
    """Four plain floats (a quaternion x, y, z, w, or an RGBA colour), as ``vec3`` does for three."""
    x, y, z, w = (float(v) for v in values)
    return (x, y, z, w)


def yaw_quaternion(yaw: float) -> tuple[float, float, float, float]:
    """Rotation by ``yaw`` radians about the world z axis."""
    return (0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))


def euler_quaternion(euler: Iterable[SupportsFloat]) -> tuple[float, float, float, float]:
    """Roll, pitch, yaw (radians) as an (x, y, z, w) quaternion, as pybullet's getQuaternionFromEuler
    gives it (roll about x, then pitch about y, then yaw about z), without a pybullet import."""
    roll, pitch, yaw = (float(v) / 2 for v in euler)
    cr, sr, cp, sp, cy, sy = (
        math.cos(roll),
        math.sin(roll),
        math.cos(pitch),
        math.sin(pitch),
        math.cos(yaw),
        math.sin(yaw),
    )
    return (
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
        cr * cp * cy + sr * sp * sy,
    )


def quaternion_matrix(q: tuple[float, float, float, float] | np.ndarray) -> np.ndarray:
    """The 3x3 rotation matrix of a unit quaternion (x, y, z, w); columns are the body axes."""
    x, y, z, w = (float(v) for v in q)
    n = math.sqrt(x * x + y * y + z * z + w * w) or 1.0
    x, y, z, w = x / n, y / n, z / n, w / n
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def yaw_of(q: tuple[float, float, float, float] | np.ndarray) -> float:
    """The heading of the body x axis projected on the floor, in radians."""
    m = quaternion_matrix(q)
    return math.atan2(m[1, 0], m[0, 0])


def cube_yaw_error(yaw: float, target: float) -> float:
    """The smallest rotation taking a square footprint at ``yaw`` onto one at ``target`` (mod 90 deg)."""
    return (target - yaw + math.pi / 4) % (math.pi / 2) - math.pi / 4


@dataclass(frozen=True)
class Cuboid:
    """A box in the world: centre, full edge lengths (x, y, z in its own frame) and orientation."""

    position: tuple[float, float, float]
    size: tuple[float, float, float]
    orientation: tuple[float, float, float, float] = IDENTITY
    _rotation: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_rotation", quaternion_matrix(self.orientation))

    @property
    def rotation(self) -> np.ndarray:
        return self._rotation

    @property
    def volume(self) -> float:
        return float(np.prod(self.size))

    def contains(self, points: np.ndarray, margin: float = 0.0) -> np.ndarray:
        """Which of the (N, 3) world points lie inside (boundary included), as a bool array."""
        local = (np.asarray(points) - np.asarray(self.position)) @ self._rotation
        half = np.asarray(self.size) / 2.0 + margin
        return np.all(np.abs(local) <= half + 1e-12, axis=1)

    def corners(self) -> np.ndarray:
        """The eight corners in world coordinates, shape (8, 3)."""
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
        return np.asarray(self.position) + (signs * np.asarray(self.size) / 2.0) @ self._rotation.T

    def aabb(self) -> tuple[np.ndarray, np.ndarray]:
        """Axis-aligned bounding box (low, high) of the rotated cuboid."""
        c = self.corners()
        return c.min(axis=0), c.max(axis=0)

    def fill(self, unit_points: np.ndarray) -> np.ndarray:
        """Points given in the unit cube [-0.5, 0.5]^3, mapped into this cuboid (world coordinates)."""
        return np.asarray(self.position) + (unit_points * np.asarray(self.size)) @ self._rotation.T
