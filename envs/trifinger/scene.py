"""What one TriFinger episode starts from: blocks, fixed obstacles, goal shapes and the robot pose.

A Scene is plain data (JSON-able through ``to_json``), produced by a task generator and turned into
pybullet bodies by the world. Units are metres, kilograms and radians; colours are RGB in [0, 1].
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agentkit.envs.trifinger.causalworld_robot import REST_JOINTS
from agentkit.envs.trifinger.geometry import IDENTITY, Cuboid, Quat, Vec3

__all__ = ["REST_JOINTS", "ARENA_RADIUS", "ARENA_HEIGHT", "BlockSpec", "GoalSpec", "Scene"]
#: Radius of the area blocks and goals must stay inside (the arena wall is farther).
ARENA_RADIUS = 0.18
ARENA_HEIGHT = 0.3


@dataclass
class BlockSpec:
    """A cuboid block; ``static`` ones are fixed obstacles (e.g. pick_and_place's wall)."""

    name: str
    size: Vec3
    position: Vec3
    orientation: Quat = IDENTITY
    mass: float = 0.02
    color: Vec3 = (1.0, 0.0, 0.0)
    static: bool = False

    def cuboid(self) -> Cuboid:
        return Cuboid(self.position, self.size, self.orientation)


@dataclass
class GoalSpec:
    """One translucent goal cuboid of the goal shape (no collision)."""

    name: str
    size: Vec3
    position: Vec3
    orientation: Quat = IDENTITY
    color: Vec3 = (0.0, 1.0, 0.0)

    def cuboid(self) -> Cuboid:
        return Cuboid(self.position, self.size, self.orientation)


@dataclass
class Scene:
    """A task instance. ``tip_goals`` (reaching only) are target fingertip positions, one per finger."""

    task: str
    description: str
    blocks: list[BlockSpec] = field(default_factory=list)
    goals: list[GoalSpec] = field(default_factory=list)
    obstacles: list[BlockSpec] = field(default_factory=list)
    tip_goals: list[Vec3] = field(default_factory=list)
    joint_positions: tuple[float, ...] = REST_JOINTS
    time_limit_s: float = 20.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
