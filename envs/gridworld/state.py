"""MiniGrid state in backend-neutral terms: Cells, a GridView with a seen mask, a privileged dict.

Everything here reads the live ``MiniGridEnv`` (the unwrapped env) and never changes it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agentkit.observers import Cell, GridView

DIRECTIONS = ("east", "south", "west", "north")  # MiniGrid's agent_dir 0..3
_UNSEEN = 0  # MiniGrid's OBJECT_TO_IDX["unseen"]: what an occluded cell encodes to
_COLORLESS = ("wall", "lava")  # MiniGrid paints these one fixed colour; naming it only adds noise


def to_cell(obj: Any) -> Cell | None:
    """A MiniGrid WorldObj as a Cell; ``None`` (plain floor) stays ``None``."""
    if obj is None:
        return None
    state = None
    if obj.type == "door":
        state = "locked" if obj.is_locked else ("open" if obj.is_open else "closed")
    return Cell(kind=obj.type, color=None if obj.type in _COLORLESS else obj.color, state=state)


def new_seen_mask(env: Any) -> np.ndarray:
    return np.zeros((env.height, env.width), dtype=bool)


def mark_seen(seen: np.ndarray, env: Any, view_image: np.ndarray) -> None:
    """Add the cells of one egocentric observation to ``seen`` ([y][x]).

    ``view_image`` is MiniGrid's ``obs["image"]`` (view x, view y, channels): the agent sits at the
    bottom middle facing up, and cells hidden behind walls are encoded as "unseen".
    """
    size = env.agent_view_size
    fwd = np.asarray(env.dir_vec)
    right = np.asarray(env.right_vec)
    # World position of view cell (0, 0): the far-left corner of the view square.
    corner = np.asarray(env.agent_pos) + fwd * (size - 1) - right * (size // 2)
    visible = view_image[:, :, 0] != _UNSEEN
    for vx, vy in zip(*np.nonzero(visible)):
        x, y = corner - fwd * vy + right * vx
        if 0 <= x < env.width and 0 <= y < env.height:
            seen[y, x] = True
    ax, ay = env.agent_pos
    seen[ay, ax] = True


def grid_view(env: Any, seen: np.ndarray | None) -> GridView:
    """The full grid (cells[y][x]) with the agent; ``seen`` tells observers what may be shown."""
    cells = [[to_cell(env.grid.get(x, y)) for x in range(env.width)] for y in range(env.height)]
    ax, ay = env.agent_pos
    return GridView(
        cells=cells,
        agent_pos=(int(ax), int(ay)),
        agent_dir=DIRECTIONS[int(env.agent_dir)],
        carrying=to_cell(env.carrying),
        seen=None if seen is None else seen.copy(),
    )


def privileged_state(env: Any) -> dict[str, Any]:
    """JSON-able full state: every object with its position, the agent, the step counter."""
    objects = []
    for y in range(env.height):
        for x in range(env.width):
            cell = to_cell(env.grid.get(x, y))
            if cell is not None and cell.kind != "wall":
                objects.append({"kind": cell.kind, "color": cell.color, "state": cell.state, "pos": [x, y]})
    carrying = to_cell(env.carrying)
    ax, ay = env.agent_pos
    return {
        "width": int(env.width),
        "height": int(env.height),
        "agent_pos": [int(ax), int(ay)],
        "agent_dir": DIRECTIONS[int(env.agent_dir)],
        "carrying": None if carrying is None else {"kind": carrying.kind, "color": carrying.color},
        "objects": objects,
        "walls": [[x, y] for y in range(env.height) for x in range(env.width) if _is_wall(env, x, y)],
        "mission": str(env.mission),
        "step_count": int(env.step_count),
        "max_steps": int(env.max_steps),
    }


def _is_wall(env: Any, x: int, y: int) -> bool:
    obj = env.grid.get(x, y)
    return obj is not None and obj.type == "wall"
