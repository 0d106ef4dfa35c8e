"""Fractional volumetric overlap of blocks with a goal shape: the TriFinger tasks' reward.

``volumetric``: each goal cuboid is filled with the same deterministic low-discrepancy point set
(a 3-D Halton sequence, bases 2, 3, 5) and the fraction of its points inside any block is its
covered share; shares are weighted by goal volume. Oriented cuboids are used as they are, so a
cube yawed 45 degrees on its goal scores 2(sqrt 2 - 1) = 0.828, the exact octagon-over-square
ratio (1024 points land within 0.5% of it; a regular grid of the same size aliases to 2-4%
because block edges line up with its rows).

``causalworld_aabb``: CausalWorld's approximation, kept for comparisons: every block and goal is
replaced by its axis-aligned bounding box and the box intersections are summed. It overrates
rotated blocks (the 45-degree cube above scores 1.0) and double counts overlapping blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal, TypeGuard

import numpy as np

from agentkit.envs.trifinger.geometry import Cuboid

OverlapMode = Literal["volumetric", "causalworld_aabb"]
OVERLAP_MODES: tuple[str, ...] = ("volumetric", "causalworld_aabb")


def is_overlap_mode(name: str) -> TypeGuard[OverlapMode]:
    """Whether ``name`` is one of OVERLAP_MODES (and so, for the type checker, an OverlapMode)."""
    return name in OVERLAP_MODES


DEFAULT_POINTS = 1024


def _radical_inverse(count: int, base: int) -> np.ndarray:
    out = np.zeros(count)
    for i in range(count):
        f, r, k = 1.0, 0.0, i + 1
        while k:
            f /= base
            r += f * (k % base)
            k //= base
        out[i] = r
    return out


@lru_cache(maxsize=8)
def unit_samples(count: int = DEFAULT_POINTS) -> np.ndarray:
    """``count`` Halton points in the unit cube centred on the origin, shape (count, 3)."""
    points = np.stack([_radical_inverse(count, b) for b in (2, 3, 5)], axis=1) - 0.5
    points.setflags(write=False)
    return points


def volumetric_overlap(
    blocks: Sequence[Cuboid], goals: Sequence[Cuboid], points: int = DEFAULT_POINTS
) -> float:
    """Share of the goal volume covered by blocks, in [0, 1] (1.0 when there is no goal)."""
    total = sum(g.volume for g in goals)
    if total <= 0:
        return 1.0
    unit = unit_samples(points)
    covered = 0.0
    for goal in goals:
        world = goal.fill(unit)
        inside = np.zeros(len(world), dtype=bool)
        for block in blocks:
            inside |= block.contains(world)
        covered += goal.volume * float(inside.mean())
    return covered / total


def aabb_overlap(blocks: Sequence[Cuboid], goals: Sequence[Cuboid]) -> float:
    """CausalWorld's measure: summed AABB intersections over summed AABB goal volumes (may exceed 1)."""
    boxes = [b.aabb() for b in blocks]
    union = 0.0
    intersection = 0.0
    for goal in goals:
        g_low, g_high = goal.aabb()
        union += float(np.prod(g_high - g_low))
        for low, high in boxes:
            extent = np.minimum(high, g_high) - np.maximum(low, g_low)
            if np.all(extent > 0):
                intersection += float(np.prod(extent))
    return intersection / union if union > 0 else 1.0


def overlap(blocks: Sequence[Cuboid], goals: Sequence[Cuboid], mode: OverlapMode = "volumetric") -> float:
    """The overlap of ``blocks`` with ``goals`` by ``mode`` (see the module docstring)."""
    if mode == "volumetric":
        return volumetric_overlap(blocks, goals)
    if mode == "causalworld_aabb":
        return aabb_overlap(blocks, goals)
    raise ValueError(f"overlap mode must be one of {', '.join(OVERLAP_MODES)}, got {mode!r}")
