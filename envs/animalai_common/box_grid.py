"""A uniform grid of cells over the arena floor, so the free-space test of item placement stays near-linear.

Why: each item placed is tested against every box placed before it (``layout.py``, Animal-AI's
``IsSpotFree``), so a file of n items cost n^2 overlap tests (10,000 items: minutes). The grid files each
box under the cells its footprint's axis-aligned bounds cover and tests a new box only against the
boxes of its own cells. That set holds every box whose footprint can overlap (two oriented boxes
whose bounds are apart cannot share a volume), so ``overlaps`` answers exactly what testing every box
would: the layouts stay identical, draw for draw.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from agentkit.envs.animalai_common.geometry import Box, boxes_overlap

CELL_SIZE = 4.0  # metres; an arena is 40 x 40, most items 1-5 wide
_MARGIN = 1e-6  # widens each box's bounds a little, so rounding never leaves a box out of a cell


def _footprint_bounds(box: Box) -> tuple[float, float, float, float]:
    """The axis-aligned bounds (x0, x1, z0, z1) of the box's rotated footprint, widened by a margin."""
    r = math.radians(box.rotation)
    c, s = abs(math.cos(r)), abs(math.sin(r))
    ex = box.hx * c + box.hz * s + _MARGIN
    ez = box.hx * s + box.hz * c + _MARGIN
    return box.cx - ex, box.cx + ex, box.cz - ez, box.cz + ez


class BoxGrid:
    """Boxes filed by floor cell; ``overlaps(box)`` is ``any(boxes_overlap(box, b) for b in boxes)``."""

    def __init__(
        self,
        boxes: Iterable[Box] = (),
        cell: float = CELL_SIZE,
        overlap: Callable[[Box, Box], bool] = boxes_overlap,
    ) -> None:
        self._cell = cell
        self._overlap = overlap
        self._cells: dict[tuple[int, int], list[Box]] = {}
        self.boxes: list[Box] = []
        self.extend(boxes)

    def _keys(self, box: Box) -> Iterable[tuple[int, int]]:
        x0, x1, z0, z1 = _footprint_bounds(box)
        cell = self._cell
        for i in range(math.floor(x0 / cell), math.floor(x1 / cell) + 1):
            for k in range(math.floor(z0 / cell), math.floor(z1 / cell) + 1):
                yield i, k

    def add(self, box: Box) -> None:
        self.boxes.append(box)
        for key in self._keys(box):
            self._cells.setdefault(key, []).append(box)

    def extend(self, boxes: Iterable[Box]) -> None:
        for box in boxes:
            self.add(box)

    def overlaps(self, box: Box) -> bool:
        """Whether ``box`` overlaps any box filed here (each candidate tested at most once)."""
        seen: set[int] = set()
        for key in self._keys(box):
            for other in self._cells.get(key, ()):
                if id(other) in seen:
                    continue
                seen.add(id(other))
                if self._overlap(box, other):
                    return True
        return False
