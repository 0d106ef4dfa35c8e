"""Tool use for the reference planner: which box to push where, when no good goal can be reached.

Why: some Testbed tasks (level 5's and level 10's tool use) put the goal where the agent cannot
reach it, on a pillar too high to touch, with a movable box that can knock it down. The planner's
search only finds routes for the agent; this module recognises, from the privileged state alone,
a goal that a push can bring within reach, and says which box to push along which straight line.
It knows no task: only the shapes, heights and kinds the privileged state gives.

A push is "stand behind box B on the line from B's centre to point P, face P, Go through": the
agent (mass 100) kicks a 1-2 kg cardboard box ahead of it, so the box slides on along the line
after the agent brakes, about as far again as the agent drove (measured on the arena: from 0.3
behind a 3-unit Cardbox2, Go(2) moved it 1.7, Go(4) 7.7, Go(8) 16 units, within 5 degrees of the
push line even when the box stood turned 20 degrees to it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from agentkit.envs.animalai_common.items import ITEM_TYPES
from agentkit.envs.animalai_common.planning_grid import AGENT_RADIUS, POSITIVE_GOALS
from agentkit.envs.animalai_common.planning_shapes import Part, item_parts

STAND_GAP = 0.3  # room between the agent and the box where a push starts (the kicks below are from there)
SUPPORT_FIT = 0.15  # a goal's bottom within this of a part's top rests on that part
NARROW_SUPPORT = 0.5  # a support with no half side wider than this lets a pushed goal fall off
REACH_ABOVE = 0.2  # a box must stand this much higher than the goal's bottom to push the sphere
ON_TOP = 0.3  # a goal whose centre is within this of a part's top footprint still rests on it
ARENA = 40.0  # the arena's side (its fence)
LINE_STEP = 0.25  # spacing of the samples that check a box's path
LOW_ENOUGH = 0.3  # parts whose top is at most this above the box's bottom do not stop it (it slides over)


# From 0.3 behind a box at rest, Go(n) kicks it this far (a 3-unit Cardbox2: Go(2) 1.7, Go(3) 4.9,
# Go(4) 8.0, Go(5) 11.1 units; a 1.5-unit one a little farther: 2.0, 5.7, 9.4, 13.1).
KICK_MIN_GO = 2
KICK_FIRST = 1.7
KICK_PER_GO = 3.1
STAGE = 7.0  # a box farther than this from its target is pushed in stages ...
STAGE_SHORT = 3.0  # ... each leaving it at least this far short
OVERSHOOT = 1.0  # the last push kicks the box this much past the target (the pillar stops it)


@dataclass(frozen=True)
class Push:
    """Drive along the line through ``contact`` in ``direction``, from ``stand`` behind it.

    ``contact``: where the agent meets the block (on the face it pushes); ``travel``: how far the
    block must move, which sets the length of the Go; ``goal``: the goal the push is for.
    """

    box: dict[str, Any]
    goal: dict[str, Any]
    contact: tuple[float, float]
    direction: tuple[float, float]
    travel: float
    why: str

    @property
    def stand(self) -> tuple[float, float]:
        """Where the agent starts the push: ``STAND_GAP`` behind the contact point."""
        back = AGENT_RADIUS + STAND_GAP
        return self.contact[0] - self.direction[0] * back, self.contact[1] - self.direction[1] * back

    @property
    def target(self) -> tuple[float, float]:
        """A point ahead on the push line, to face."""
        return self.contact[0] + self.direction[0] * 10.0, self.contact[1] + self.direction[1] * 10.0

    def offset(self, x: float, z: float) -> tuple[float, float]:
        """(gap, lateral) of an agent at (x, z): the room between it and the contact point along the
        push line, and how far it stands off that line."""
        ux, uz = self.direction
        dx, dz = self.contact[0] - x, self.contact[1] - z
        return dx * ux + dz * uz - AGENT_RADIUS, abs(dx * uz - dz * ux)


def knock_pushes(privileged: dict[str, Any], goals: list[dict[str, Any]]) -> list[Push]:
    """Pushes that knock one of ``goals`` off a narrow support too high to reach, best first.

    A goal rests on a narrow support (a pillar) when its bottom lies on the support's top and the
    support is no wider than the goal; a box pushed into the pillar hits the sphere above it and
    it falls. The box must be taller than the goal's bottom stands above the pillar's foot, and
    its way to the pillar clear of anything that would stop it (it may drop off a ledge).
    """
    items = [it for it in privileged["items"] if it.get("active", True)]
    boxes = [it for it in items if it.get("kind") == "movable" and _is_box(it["name"])]
    supports = [
        (item, part)
        for item in items
        if item.get("kind") == "obstacle" and item.get("solid", True)
        for part in item_parts(item)
    ]
    out: list[tuple[float, Push]] = []
    for goal in goals:
        if goal["name"] not in POSITIVE_GOALS or not goal.get("active", True):
            continue
        gx, gy, gz = (float(v) for v in goal["position"])
        held = _support(supports, gx, gy, gz)
        if held is None:
            continue
        pillar, part = held
        foot = part.bottom
        for box in boxes:
            bx, by, bz = (float(v) for v in box["position"])
            if float(box["size"][1]) < gy - foot + REACH_ABOVE:
                continue
            length = math.hypot(gx - bx, gz - bz)
            if length < 1e-6:
                continue
            ux, uz = (gx - bx) / length, (gz - bz) / length
            extent = _extent(item_parts(box)[0], ux, uz)
            if not _line_clear(items, box, pillar, (bx, bz), (gx, gz), extent, by):
                continue
            why = (
                f"The {_colour(goal['name'])} sphere sits on a pillar too high to reach. I push the box "
                "into the pillar to knock it down."
            )
            push = Push(box, goal, (bx - ux * extent, bz - uz * extent), (ux, uz), length - extent, why)
            if _inside_arena(push.stand):
                out.append((length, push))
    out.sort(key=lambda pair: pair[0])
    return [push for _, push in out]


def _inside_arena(point: tuple[float, float]) -> bool:
    return all(AGENT_RADIUS < v < ARENA - AGENT_RADIUS for v in point)


def push_length(travel: float) -> int:
    """The Go that moves a box about ``travel`` (and a little more), from the stand point.

    A long way is covered in stages (the next push aims again from where the box stopped): the
    kick's direction drifts a few degrees, which a far target would not forgive.
    """
    if travel > STAGE:
        n = KICK_MIN_GO
        while box_travel(n + 1) <= travel - STAGE_SHORT:
            n += 1
        return n
    n = KICK_MIN_GO
    while box_travel(n) < travel + OVERSHOOT:
        n += 1
    return n


def box_travel(n: int) -> float:
    """How far Go(n) from the stand point kicks a cardboard box (measured: see the module's text)."""
    return KICK_FIRST + KICK_PER_GO * (max(n, KICK_MIN_GO) - KICK_MIN_GO)


def _is_box(name: str) -> bool:
    item = ITEM_TYPES.get(name)
    return bool(item and item.kind == "movable" and item.shape == "box")


def _colour(name: str) -> str:
    item = ITEM_TYPES.get(name)
    return "gold" if item is not None and item.multi else "green"


def _support(
    supports: list[tuple[dict[str, Any], Part]], gx: float, gy: float, gz: float
) -> tuple[dict[str, Any], Part] | None:
    """The narrow part the goal rests on, if any (and if the goal is above the floor)."""
    if gy < 0.5:
        return None
    for item, part in supports:
        if abs(part.top - gy) > SUPPORT_FIT or max(part.hx, part.hz) > NARROW_SUPPORT:
            continue
        # A sphere balanced on a pillar's top creeps off its centre before it falls.
        if float(part.distance(np.array([gx]), np.array([gz]))[0]) < ON_TOP:
            return item, part
    return None


def _extent(part: Part, ux: float, uz: float) -> float:
    """How far the footprint reaches from its centre along the unit direction (ux, uz)."""
    r = math.radians(part.yaw_deg)
    ax = (math.cos(r), -math.sin(r))  # the part's local x axis in the world
    az = (math.sin(r), math.cos(r))  # its local z axis
    return part.hx * abs(ux * ax[0] + uz * ax[1]) + part.hz * abs(ux * az[0] + uz * az[1])


def _line_clear(
    items: list[dict[str, Any]],
    box: dict[str, Any],
    pillar: dict[str, Any],
    start: tuple[float, float],
    end: tuple[float, float],
    extent: float,
    bottom: float,
) -> bool:
    """Whether the box can slide from ``start`` to ``end``: no part stands in its way on the line.

    The box is taken as a disc of its half width; parts lower than its bottom (the ledge it slides
    off, the floor's low plates) and the pillar it is aimed at do not count.
    """
    width = min(item_parts(box)[0].hx, item_parts(box)[0].hz)
    parts = [
        part
        for item in items
        if item is not box
        and item is not pillar
        and item.get("kind") in ("obstacle", "ramp", "movable")
        and item.get("solid", True)
        for part in item_parts(item)
        if part.top > bottom + LOW_ENOUGH
    ]
    length = math.hypot(end[0] - start[0], end[1] - start[1])
    n = max(int((length - extent) / LINE_STEP), 1)
    along = np.linspace(0.0, (length - extent) / length, n + 1)
    xs = start[0] + (end[0] - start[0]) * along
    zs = start[1] + (end[1] - start[1]) * along
    return all(bool(np.all(part.distance(xs, zs) >= width)) for part in parts)
