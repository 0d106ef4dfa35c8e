"""Every exposed causal variable of a TriFinger world, read and written by name.

Names follow CausalWorld: first level an object or a global (``gravity``, ``floor_friction``,
``stage_color``, ``joint_positions``, ``block0``, ``goal0``, ``finger_upper_link_0`` ...), second
level a property of an object (``cylindrical_position`` as (radius, angle, z), ``euler_orientation``
as (roll, pitch, yaw), ``size``, ``mass``, ``color``). Values are plain floats or lists of floats.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agentkit.envs.trifinger.causalworld_robot import TABLE_COLOUR, WALL_COLOUR
from agentkit.envs.trifinger.geometry import quat, quaternion_matrix, vec3
from agentkit.envs.trifinger.scene import BlockSpec, GoalSpec
from agentkit.envs.trifinger.sim_import import p
from agentkit.envs.trifinger.world import TriFingerWorld

GLOBALS = ("gravity", "floor_friction", "stage_friction", "floor_color", "stage_color", "joint_positions")
BLOCK_PROPERTIES = ("cylindrical_position", "euler_orientation", "size", "color", "mass")
GOAL_PROPERTIES = ("cylindrical_position", "euler_orientation", "size", "color")
LINK_PROPERTIES = ("color", "mass")
LINK_NAMES = tuple(
    f"finger_{part}_link_{angle}" for angle in (0, 120, 240) for part in ("upper", "middle", "lower")
)


def _euler(q) -> list[float]:
    m = quaternion_matrix(q)
    yaw = math.atan2(m[1, 0], m[0, 0])
    pitch = math.asin(max(-1.0, min(1.0, -m[2, 0])))
    roll = math.atan2(m[2, 1], m[2, 2])
    return [roll, pitch, yaw]


def _cylindrical(position) -> list[float]:
    x, y, z = (float(v) for v in position)
    return [math.hypot(x, y), math.atan2(y, x), z]


def _cartesian(cyl) -> tuple[float, float, float]:
    r, theta, z = (float(v) for v in cyl)
    return (r * math.cos(theta), r * math.sin(theta), z)


class WorldVariables:
    """Reads and writes the named variables of one world (see the module docstring)."""

    def __init__(self, world: TriFingerWorld) -> None:
        self.world = world
        self._links = {}
        client = world.client
        for j in range(p.getNumJoints(world.robot_id, physicsClientId=client)):
            self._links[p.getJointInfo(world.robot_id, j, physicsClientId=client)[12].decode()] = j
        self.floor_color = list(TABLE_COLOUR[:3])  # envs/causalworld.py _create_stage
        self.stage_color = list(WALL_COLOUR[:3])
        # the URDF's colours: finger 0 red, 120 green, 240 blue (0.6), as CausalWorld reads them back
        shapes = {d[1]: list(d[7][:3]) for d in p.getVisualShapeData(world.robot_id, physicsClientId=client)}
        self.link_colors = {name: [float(v) for v in shapes[self._links[name]]] for name in LINK_NAMES}

    # -- names ----------------------------------------------------------------------------------

    def objects(self) -> dict[str, tuple[str, ...]]:
        """First-level names holding properties, with their property names."""
        out: dict[str, tuple[str, ...]] = {}
        for spec in self.world.block_specs:
            out[spec.name] = BLOCK_PROPERTIES
        for goal in self.world.goal_specs:
            out[goal.name] = GOAL_PROPERTIES
        for name in LINK_NAMES:
            out[name] = LINK_PROPERTIES
        return out

    def read_all(self) -> dict[str, Any]:
        values: dict[str, Any] = {name: self.read(name) for name in GLOBALS}
        for obj, props in self.objects().items():
            values[obj] = {prop: self.read(obj, prop) for prop in props}
        return values

    # -- read -----------------------------------------------------------------------------------

    def read(self, name: str, prop: str | None = None) -> Any:
        w, client = self.world, self.world.client
        if prop is None:
            if name == "gravity":
                return list(w.gravity)
            if name in ("floor_friction", "stage_friction"):
                body = w.table_id if name == "floor_friction" else w.stage_id
                return float(p.getDynamicsInfo(body, -1, physicsClientId=client)[1])
            if name == "floor_color":
                return list(self.floor_color)
            if name == "stage_color":
                return list(self.stage_color)
            if name == "joint_positions":
                return [float(v) for v in w.joint_positions()]
            raise KeyError(name)
        block = self._block_index(name)
        if block is not None:
            spec = w.block_specs[block]
            pos, orn = w.block_pose(block)
            return {
                "cylindrical_position": _cylindrical(pos),
                "euler_orientation": _euler(orn),
                "size": list(spec.size),
                "color": list(spec.color),
                "mass": float(spec.mass),
            }[prop]
        goal = self._goal_index(name)
        if goal is not None:
            goal_spec = w.goal_specs[goal]
            return {
                "cylindrical_position": _cylindrical(goal_spec.position),
                "euler_orientation": _euler(goal_spec.orientation),
                "size": list(goal_spec.size),
                "color": list(goal_spec.color),
            }[prop]
        if name in self.link_colors:
            if prop == "color":
                return list(self.link_colors[name])
            return float(p.getDynamicsInfo(w.robot_id, self._links[name], physicsClientId=client)[0])
        raise KeyError(name)

    # -- write ----------------------------------------------------------------------------------

    def write(self, name: str, value: Any, prop: str | None = None) -> None:
        w, client = self.world, self.world.client
        if prop is None:
            if name == "gravity":
                w.set_gravity(value)
            elif name in ("floor_friction", "stage_friction"):
                body = w.table_id if name == "floor_friction" else w.stage_id
                p.changeDynamics(body, -1, lateralFriction=float(value), physicsClientId=client)
            elif name == "floor_color":
                self.floor_color = [float(v) for v in value]
                p.changeVisualShape(
                    w.table_id, -1, rgbaColor=[*self.floor_color, 1.0], physicsClientId=client
                )
            elif name == "stage_color":
                self.stage_color = [float(v) for v in value]
                p.changeVisualShape(
                    w.stage_id, -1, rgbaColor=[*self.stage_color, 1.0], physicsClientId=client
                )
            elif name == "joint_positions":
                w.reset_joints(np.asarray(value, dtype=float))
            else:
                raise KeyError(name)
            return
        block = self._block_index(name)
        if block is not None:
            self._write_block(block, prop, value)
            return
        goal = self._goal_index(name)
        if goal is not None:
            self._write_goal(goal, prop, value)
            return
        if name in self.link_colors:
            link = self._links[name]
            if prop == "color":
                self.link_colors[name] = [float(v) for v in value]
                p.changeVisualShape(
                    w.robot_id, link, rgbaColor=[*self.link_colors[name], 1.0], physicsClientId=client
                )
            else:
                p.changeDynamics(w.robot_id, link, mass=float(value), physicsClientId=client)
            return
        raise KeyError(name)

    def _write_block(self, index: int, prop: str, value: Any) -> None:
        w, client = self.world, self.world.client
        spec = w.block_specs[index]
        body = w.block_ids[index]
        pos, orn = w.block_pose(index)
        if prop == "cylindrical_position":
            p.resetBasePositionAndOrientation(body, _cartesian(value), orn, physicsClientId=client)
            p.resetBaseVelocity(body, [0, 0, 0], [0, 0, 0], physicsClientId=client)
        elif prop == "euler_orientation":
            turned = p.getQuaternionFromEuler([float(v) for v in value])
            p.resetBasePositionAndOrientation(body, pos, turned, physicsClientId=client)
        elif prop == "color":
            spec.color = vec3(value)
            p.changeVisualShape(body, -1, rgbaColor=[*spec.color, 1.0], physicsClientId=client)
        elif prop == "mass":
            spec.mass = float(value)
            p.changeDynamics(body, -1, mass=spec.mass, physicsClientId=client)
        elif prop == "size":
            new = BlockSpec(spec.name, vec3(value), vec3(pos), quat(orn), spec.mass, spec.color, spec.static)
            w.replace_block(index, new)
        else:
            raise KeyError(prop)

    def _write_goal(self, index: int, prop: str, value: Any) -> None:
        w = self.world
        spec = w.goal_specs[index]
        if prop == "cylindrical_position":
            spec.position = _cartesian(value)
        elif prop == "euler_orientation":
            spec.orientation = tuple(p.getQuaternionFromEuler([float(v) for v in value]))
        elif prop == "size":
            spec.size = vec3(value)
        elif prop == "color":
            spec.color = vec3(value)
        else:
            raise KeyError(prop)
        w.replace_goal(index, GoalSpec(spec.name, spec.size, spec.position, spec.orientation, spec.color))

    def _block_index(self, name: str) -> int | None:
        for i, spec in enumerate(self.world.block_specs):
            if spec.name == name:
                return i
        return None

    def _goal_index(self, name: str) -> int | None:
        for i, spec in enumerate(self.world.goal_specs):
            if spec.name == name:
                return i
        return None
