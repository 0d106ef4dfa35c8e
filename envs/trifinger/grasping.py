"""Where the three fingertips go to hold a block: one finger on one face, two on the opposite face.

Why this shape: two opposing contacts plus a third beside one of them is a force-closure grip
on a box that the TriFinger can reach from most sides. Candidates (both face pairs, either side
single, any finger single) are ranked by IK: unreachable ones are dropped and among the rest the
one closest to the robot's rest posture wins, which keeps the fingers from crossing. Candidates
whose fingertips would come down on a neighbouring block or obstacle are dropped too.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pinocchio

from agentkit.envs.trifinger.geometry import Cuboid
from agentkit.envs.trifinger.kinematics import TipKinematics
from agentkit.envs.trifinger.scene import REST_JOINTS

TIP_RADIUS = 0.01  # the Edu's fingertip: the rounded end of its lower link
SQUEEZE = 0.010  # how far inside the face the contact targets lie: the PD error is the grip force (with
#                  CausalWorld's kp 10 a block needs 10 mm to stay in a carry; much more saturates the torque limit)
APPROACH = 0.03  # stand-off outside the face before closing in


@dataclass(frozen=True)
class Grasp:
    contacts: np.ndarray  # (3, 3) tip targets while holding (inside the faces by SQUEEZE)
    approach: np.ndarray  # (3, 3) tip positions just outside the faces, same height
    normals: np.ndarray  # (3, 3) outward normal of the face each tip touches
    cost: float


def face_frame(block: Cuboid) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The block's horizontal axes (unit x, unit y in the world) and its half sizes along them."""
    rot = block.rotation
    ax = np.array([rot[0, 0], rot[1, 0], 0.0])
    ay = np.array([rot[0, 1], rot[1, 1], 0.0])
    ax /= np.linalg.norm(ax) or 1.0
    ay /= np.linalg.norm(ay) or 1.0
    return ax, ay, block.size[0] / 2, block.size[1] / 2


def candidates(block: Cuboid, height: float | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """(contact points, normals) for every face pair, side and single finger; not yet ranked."""
    ax, ay, hx, hy = face_frame(block)
    centre = np.asarray(block.position, dtype=float).copy()
    if height is not None:
        centre[2] = height
    out = []
    for axis, half, other_half in ((ax, hx, hy), (ay, hy, hx)):
        lateral = min(0.022, max(0.0, other_half - 0.012))
        side = np.cross([0.0, 0.0, 1.0], axis)
        for sign, single in itertools.product((1.0, -1.0), range(3)):
            m = sign * axis
            pair = [f for f in range(3) if f != single]
            for order in (pair, pair[::-1]):
                contacts = np.zeros((3, 3))
                normals = np.zeros((3, 3))
                depth = half + TIP_RADIUS - SQUEEZE
                contacts[single] = centre + m * depth
                normals[single] = m
                for f, offset in zip(order, (lateral, -lateral)):
                    contacts[f] = centre - m * depth + side * offset
                    normals[f] = -m
                out.append((contacts, normals))
    return out


def lean_penalty(kin: TipKinematics, joints: np.ndarray, contacts: np.ndarray, normals: np.ndarray) -> float:
    """How far the lower links lean over the faces they touch (0 when every link rises outward).

    A lower link leaning over its face touches the block above the tip, which tilts the block."""
    pinocchio.forwardKinematics(kin.model, kin.data, joints)
    total = 0.0
    for finger in range(3):
        knee = np.asarray(kin.data.oMi[3 * finger + 3].translation)
        link = knee - contacts[finger]
        lean = -float(np.dot(link, normals[finger])) / (float(np.linalg.norm(link)) or 1.0)
        total += max(0.0, lean + 0.15)
    return total


#: Block centres a grasp should still reach when carried: lifted in place, and high over the centre.
CARRY_CHECKS = ((None, 0.15), ((0.0, 0.0), 0.12))


def unreachable_carries(
    kin: TipKinematics, contacts: np.ndarray, centre: np.ndarray, joints: np.ndarray
) -> int:
    """How many of the typical carry poses (``CARRY_CHECKS``) this grip cannot follow the block to."""
    missed = 0
    for xy, z in CARRY_CHECKS:
        target = np.array([centre[0], centre[1], z]) if xy is None else np.array([xy[0], xy[1], z])
        if kin.solve(contacts + (target - centre), joints).worst > 0.004:
            missed += 1
    return missed


def blocked(points: np.ndarray, others: list[Cuboid], clearance: float = TIP_RADIUS + 0.003) -> bool:
    """Whether a fingertip coming straight down onto any of ``points`` (then across to the block)
    would touch one of ``others`` (neighbouring blocks, fixed obstacles) on its way."""
    for other in others:
        top = float(other.aabb()[1][2])
        for point in points:
            heights = np.arange(float(point[2]), top + clearance + 0.01, 0.01)
            column = np.column_stack(
                [np.full(len(heights), point[0]), np.full(len(heights), point[1]), heights]
            )
            if len(column) and bool(other.contains(column, margin=clearance).any()):
                return True
    return False


def plan_grasp(
    kin: TipKinematics,
    block: Cuboid,
    q_now: np.ndarray,
    height: float | None = None,
    others: list[Cuboid] | None = None,
) -> Grasp | None:
    """The best reachable grasp of ``block`` whose fingertips clear ``others`` (None when there is none)."""
    rest = np.asarray(REST_JOINTS)
    best: Grasp | None = None
    for contacts, normals in candidates(block, height):
        approach = contacts + normals * (SQUEEZE + APPROACH)
        if others and blocked(np.vstack([approach, (approach + contacts) / 2]), others):
            continue
        touching = kin.solve(contacts, q_now)
        if touching.worst > 0.004:
            continue
        outside = kin.solve(approach, touching.joints)
        if outside.worst > 0.004:
            continue
        cost = (
            float(np.linalg.norm(touching.joints - rest))
            + 0.5 * float(np.linalg.norm(outside.joints - rest))
            + 4.0 * lean_penalty(kin, touching.joints, contacts, normals)
            + 2.0 * unreachable_carries(kin, contacts, np.asarray(block.position), touching.joints)
        )
        if best is None or cost < best.cost:
            best = Grasp(contacts, approach, normals, cost)
    return best
