"""Scooping a goal out of a DeathZone with a U or L block: which face to push, which way, how far.

Why: level 10's tasks (10-07, 10-16) leave a goal inside a DeathZone, where touching it kills, with
a hollow block lying round it. A block part that lies beyond the goal (on the zone's side) sweeps the
goal along when the block is pushed out of the zone, and the agent can push the block that way only
on a face turned towards the zone's inside that it can reach from safe ground (a U's inner arm face,
when its mouth straddles the zone's edge). This module finds such a push from the privileged state
alone: the shapes come from ``planning_shapes`` (Animal-AI's prefabs), the zone from its footprint.

Measured on the arena (10-16-01, a U 10 long and 5 deep, mass 1.5): the agent in the U's mouth
pushing its inner arm face out of the zone with Go(5) to Go(12) moved the U 4-13 units, turning it
10-54 degrees, and the goal came out of the zone every time (3 to 21 units from where it lay).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agentkit.envs.animalai_common.items import ITEM_TYPES
from agentkit.envs.animalai_common.planning_grid import AGENT_RADIUS, POSITIVE_GOALS
from agentkit.envs.animalai_common.planning_shapes import Part, item_parts
from agentkit.envs.animalai_common.tool_use import STAND_GAP, Push

HOLLOW = ("u", "l_left", "l_right")
FACING = 0.85  # a face pushes along the way out when its normal is this close to the opposite way
FACE_STEP = 0.1  # spacing of the points tried along a face
ZONE_ROOM = 0.8  # the stand point keeps this far from a DeathZone's footprint (the agent dies at 0.5)
SHAPE_ROOM = 0.05  # and this much more than touching from the block's other parts
OUT_MARGIN = 1.5  # the goal is swept this far past the zone's edge


def scoop_pushes(privileged: dict[str, Any], goals: list[dict[str, Any]]) -> list[Push]:
    """Pushes of a U or L block that carry one of ``goals`` out of the DeathZone it lies in, shortest first."""
    items = [it for it in privileged["items"] if it.get("active", True)]
    zones = [part for it in items if it["name"] == "DeathZone" for part in item_parts(it)]
    blocks = [it for it in items if it.get("kind") == "movable" and _hollow(it["name"])]
    out: list[Push] = []
    for goal in goals:
        if goal["name"] not in POSITIVE_GOALS or not goal.get("active", True):
            continue
        gx, _, gz = (float(v) for v in goal["position"])
        radius = float(goal["size"][0]) / 2
        zone = next((z for z in zones if _distance(z, gx, gz) == 0.0), None)
        if zone is None:
            continue
        way, exit_distance = _way_out(zone, gx, gz)
        for block in blocks:
            parts = item_parts(block)
            sweep = _sweep_gap(parts, (gx, gz), radius, way)
            if sweep is None:
                continue
            contact = _contact(parts, way, zones)
            if contact is None:
                continue
            travel = sweep + exit_distance + radius + OUT_MARGIN
            why = (
                f"The {_colour(goal['name'])} sphere lies in the deadly zone, inside the "
                f"{_shape_word(block['name'])}. I push the block out of the zone from inside its mouth, "
                "so that it drags the sphere out with it."
            )
            out.append(Push(block, goal, contact, way, travel, why))
    out.sort(key=lambda push: push.travel)
    return out


def _hollow(name: str) -> bool:
    item = ITEM_TYPES.get(name)
    return bool(item and item.shape in HOLLOW)


def _shape_word(name: str) -> str:
    item = ITEM_TYPES.get(name)
    return "U-shaped block" if item is not None and item.shape == "u" else "L-shaped block"


def _colour(name: str) -> str:
    item = ITEM_TYPES.get(name)
    return "gold" if item is not None and item.multi else "green"


def _distance(part: Part, x: float, z: float) -> float:
    return float(part.distance(np.array([x]), np.array([z]))[0])


def _axes(part: Part) -> tuple[tuple[float, float], tuple[float, float]]:
    """The part's local x and z axes in the world (see ``planning_shapes``)."""
    r = math.radians(part.yaw_deg)
    return (math.cos(r), -math.sin(r)), (math.sin(r), math.cos(r))


def _way_out(zone: Part, x: float, z: float) -> tuple[tuple[float, float], float]:
    """The unit direction of the zone's nearest edge from (x, z), and how far that edge is."""
    ax, az = _axes(zone)
    lx, lz = zone.local(np.array([x]), np.array([z]))
    a, b = float(lx[0]), float(lz[0])
    options = [
        (zone.hx - a, ax),
        (zone.hx + a, (-ax[0], -ax[1])),
        (zone.hz - b, az),
        (zone.hz + b, (-az[0], -az[1])),
    ]
    distance, way = min(options, key=lambda o: o[0])
    return way, distance


def _span(part: Part, ux: float, uz: float) -> tuple[float, float]:
    """The part's footprint projected on the unit direction (ux, uz): (lowest, highest)."""
    ax, az = _axes(part)
    centre = part.cx * ux + part.cz * uz
    half = part.hx * abs(ax[0] * ux + ax[1] * uz) + part.hz * abs(az[0] * ux + az[1] * uz)
    return centre - half, centre + half


def _sweep_gap(
    parts: list[Part], goal: tuple[float, float], radius: float, way: tuple[float, float]
) -> float | None:
    """How far the block moves along ``way`` before one of its parts meets the goal from behind
    (None: no part lies behind the goal, across its width)."""
    ux, uz = way
    vx, vz = -uz, ux  # across the way
    g_along = goal[0] * ux + goal[1] * uz
    g_across = goal[0] * vx + goal[1] * vz
    gaps = []
    for part in parts:
        lo, hi = _span(part, ux, uz)
        clo, chi = _span(part, vx, vz)
        if hi <= g_along - radius and clo < g_across - radius * 0.5 and chi > g_across + radius * 0.5:
            gaps.append(g_along - radius - hi)
    return min(gaps) if gaps else None


def _contact(parts: list[Part], way: tuple[float, float], zones: list[Part]) -> tuple[float, float] | None:
    """The middle of the longest stretch of a face, turned against ``way``, that the agent can stand
    behind on safe ground (clear of the block's other parts and of every DeathZone)."""
    ux, uz = way
    best: list[tuple[float, float]] = []
    for part in parts:
        ax, az = _axes(part)
        for (nx, nz), half_normal, (tx, tz), half_face in (
            (ax, part.hx, az, part.hz),
            ((-ax[0], -ax[1]), part.hx, az, part.hz),
            (az, part.hz, ax, part.hx),
            ((-az[0], -az[1]), part.hz, ax, part.hx),
        ):
            if nx * ux + nz * uz > -FACING:
                continue
            fx, fz = part.cx + nx * half_normal, part.cz + nz * half_normal
            run: list[tuple[float, float]] = []
            steps = int(2 * half_face / FACE_STEP)
            for k in range(steps + 1):
                s = -half_face + k * FACE_STEP
                point = (fx + tx * s, fz + tz * s)
                back = AGENT_RADIUS + STAND_GAP
                stand = (point[0] + nx * back, point[1] + nz * back)
                clear = all(_distance(p, *stand) >= AGENT_RADIUS + SHAPE_ROOM for p in parts) and all(
                    _distance(z, *stand) >= ZONE_ROOM for z in zones
                )
                if clear:
                    run.append(point)
                else:
                    if len(run) > len(best):
                        best = run
                    run = []
            if len(run) > len(best):
                best = run
    if not best:
        return None
    return best[len(best) // 2]
