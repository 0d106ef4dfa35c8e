"""A GridView as a JSON-able dict, for models (or tools) that read structure better than prose.

Only seen cells are included; offsets are egocentric (``ahead``, ``right``; negative is behind/left)
and positions are absolute (x from the left, y from the top).
"""

from __future__ import annotations

from typing import Any

from agentkit.observers.grid_geometry import forward_vector, relative_offset, seen_cell, seen_things
from agentkit.observers.observation import Cell, GridView


def _cell_dict(cell: Cell | None) -> dict[str, Any]:
    if cell is None:
        return {"kind": "empty"}
    return {"kind": cell.kind, "color": cell.color, "state": cell.state}


def structured_view(grid: GridView, step: int, mission: str | None = None) -> dict[str, Any]:
    """Agent pose, carried object, the cell in front, seen entities, grid size and step count."""
    x, y = grid.agent_pos
    fx, fy = forward_vector(grid)
    entities = []
    for cx, cy, cell in seen_things(grid):
        ahead, right = relative_offset(grid, (cx, cy))
        entities.append(
            {
                **_cell_dict(cell),
                "position": [cx, cy],
                "offset": {"ahead": ahead, "right": right},
                "distance": abs(ahead) + abs(right),
            }
        )
    entities.sort(key=lambda e: (e["distance"], e["position"][1], e["position"][0]))
    under = grid.cells[y][x]
    seen = None if grid.seen is None else int(grid.seen.sum())
    return {
        "step": step,
        "mission": mission,
        "grid_size": {"width": grid.width, "height": grid.height},
        "position": [int(x), int(y)],
        "orientation": grid.agent_dir,
        "carrying": None if grid.carrying is None else _cell_dict(grid.carrying),
        "standing_on": None if under is None else _cell_dict(under),
        "front": _cell_dict(seen_cell(grid, x + fx, y + fy)),
        "entities": entities,
        "cells_seen": seen,
    }
