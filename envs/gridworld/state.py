"""MiniGrid state in backend-neutral terms: Cells, a GridView with a seen mask, a privileged dict.

Everything here reads the live ``MiniGridEnv`` (the unwrapped env) and never changes it.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from agentkit.observers import Cell, GridView

DIRECTIONS = ("east", "south", "west", "north")  # MiniGrid's agent_dir 0..3
_UNSEEN = 0  # MiniGrid's OBJECT_TO_IDX["unseen"]: what an occluded cell encodes to
_COLORLESS = ("wall", "lava")  # MiniGrid paints these one fixed colour; naming it only adds noise


# Cells are frozen, so equal ones can be one object: every observation converts the whole grid
# (64-400 cells a turn), and building a frozen dataclass per cell was most of observe's time. The
# keys are MiniGrid's (type, colour, door state) triples: a few hundred at most.
_CELLS: dict[tuple[str, str | None, str | None], Cell] = {}


def to_cell(obj: Any) -> Cell | None:
    """A MiniGrid WorldObj as a Cell; ``None`` (plain floor) stays ``None``."""
    if obj is None:
        return None
    kind = obj.type
    state = None
    if kind == "door":
        state = "locked" if obj.is_locked else ("open" if obj.is_open else "closed")
    key = (kind, None if kind in _COLORLESS else obj.color, state)
    cell = _CELLS.get(key)
    if cell is None:
        cell = _CELLS[key] = Cell(kind=key[0], color=key[1], state=key[2])
    return cell


_DIR_VECS = ((1, 0), (0, 1), (-1, 0), (0, -1))  # MiniGrid DIR_TO_VEC, as plain ints


@functools.lru_cache(maxsize=64)
def _view_offsets(size: int, agent_dir: int) -> tuple[np.ndarray, np.ndarray]:
    """World (dx, dy) from the agent of every view cell [vx, vy], for one view size and heading."""
    fx, fy = _DIR_VECS[agent_dir]
    rx, ry = -fy, fx  # a quarter turn clockwise (y points down)
    vx, vy = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    ahead = size - 1 - vy  # the agent sits at the bottom middle of its view, facing up
    right = vx - size // 2
    return fx * ahead + rx * right, fy * ahead + ry * right


_MAX_PENDING = 512


class SeenMap:
    """The cells the agent has seen, brought up to date only when read.

    Every env step adds one egocentric visibility mask (a single numpy comparison); the masks are
    folded into the [y][x] map when ``current()`` is asked for (at observe time, or when an API
    call plans). That keeps the per-step cost of knowing what was seen near zero, which is what
    lets the backend step almost as fast as raw MiniGrid. The map is padded by the view size so
    folding needs no bounds checks; ``current()`` returns the unpadded view of it.
    """

    def __init__(self, env: Any) -> None:
        self._pad = pad = int(env.agent_view_size)
        self._size = pad
        self._padded = np.zeros((env.height + 2 * pad, env.width + 2 * pad), dtype=bool)
        self._mask = self._padded[pad : pad + env.height, pad : pad + env.width]
        self._pending: list[tuple[int, int, int, np.ndarray]] = []

    def add(self, env: Any, view_image: np.ndarray) -> None:
        """Remember one observation; ``view_image`` is MiniGrid's ``obs["image"]``."""
        ax, ay = env.agent_pos
        self._pending.append((int(ax), int(ay), int(env.agent_dir), view_image[:, :, 0] != _UNSEEN))
        if len(self._pending) >= _MAX_PENDING:  # bounded memory for long runs that never observe
            self.current()

    def current(self) -> np.ndarray:
        """The seen mask [y][x] (a live view: copy it before handing it out)."""
        pad = self._pad
        for ax, ay, agent_dir, visible in self._pending:
            dx, dy = _view_offsets(self._size, agent_dir)
            self._padded[dy[visible] + (ay + pad), dx[visible] + (ax + pad)] = True
            self._padded[ay + pad, ax + pad] = True
        self._pending.clear()
        return self._mask


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


def privileged_state(env: Any, cells: list[list[Cell | None]] | None = None) -> dict[str, Any]:
    """JSON-able full state: every object with its position, the agent, the step counter.

    ``cells`` (a ``grid_view``'s, of this very state) spares converting the grid a second time."""
    if cells is None:
        cells = [[to_cell(env.grid.get(x, y)) for x in range(env.width)] for y in range(env.height)]
    objects = []
    walls = []
    for y, row in enumerate(cells):
        for x, cell in enumerate(row):
            if cell is None:
                continue
            if cell.kind == "wall":
                walls.append([x, y])
            else:
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
        "walls": walls,
        "mission": str(env.mission),
        "step_count": int(env.step_count),
        "max_steps": int(env.max_steps),
    }
