"""Egocentric geometry on a GridView: where things are relative to the agent, what it may know.

Positions are (x, y) with x growing east (right) and y growing south (down), as in ``cells[y][x]``.
"""

from __future__ import annotations

from collections.abc import Iterator

from agentkit.observers.observation import Cell, GridView

DIRECTION_VECTORS: dict[str, tuple[int, int]] = {
    "east": (1, 0),
    "south": (0, 1),
    "west": (-1, 0),
    "north": (0, -1),
}


def forward_vector(grid: GridView) -> tuple[int, int]:
    return DIRECTION_VECTORS[grid.agent_dir]


def right_vector(grid: GridView) -> tuple[int, int]:
    """A quarter turn clockwise from forward (y points down, so east -> south)."""
    fx, fy = forward_vector(grid)
    return (-fy, fx)


def relative_offset(grid: GridView, pos: tuple[int, int]) -> tuple[int, int]:
    """(ahead, right) steps from the agent to ``pos``; negative means behind / to the left."""
    dx, dy = pos[0] - grid.agent_pos[0], pos[1] - grid.agent_pos[1]
    fx, fy = forward_vector(grid)
    rx, ry = right_vector(grid)
    return dx * fx + dy * fy, dx * rx + dy * ry


def in_bounds(grid: GridView, x: int, y: int) -> bool:
    return 0 <= x < grid.width and 0 <= y < grid.height


def is_seen(grid: GridView, x: int, y: int) -> bool:
    """Whether the agent may know what is at (x, y); everything counts as seen without a mask."""
    if (x, y) == tuple(grid.agent_pos):
        return True
    if grid.seen is None:
        return True
    return bool(grid.seen[y][x])


def seen_cell(grid: GridView, x: int, y: int) -> Cell | None:
    """The cell if seen, ``Cell("unseen")`` if not (out of bounds counts as unseen)."""
    if not in_bounds(grid, x, y) or not is_seen(grid, x, y):
        return Cell("unseen")
    cell = grid.cells[y][x]
    return None if cell is not None and cell.kind in ("empty", "floor") and cell.color is None else cell


def seen_things(grid: GridView) -> Iterator[tuple[int, int, Cell]]:
    """Every seen cell holding something other than wall or plain floor, except the agent's own cell."""
    for y, row in enumerate(grid.cells):
        for x, cell in enumerate(row):
            if cell is None or cell.kind in ("wall", "empty", "unseen") or (x, y) == tuple(grid.agent_pos):
                continue
            if cell.kind == "floor" and cell.color is None:
                continue
            if is_seen(grid, x, y):
                yield x, y, cell
