"""Breadth-first search over what the agent has SEEN, for the API calls (``go_to``, ``explore`` ...).

It reads the world only through ``seen_cell`` of a GridView, which answers ``Cell("unseen")`` for
any cell outside the seen mask, so a plan can never use knowledge the model could not have had.
Unseen cells, walls, lava (deadly), closed doors and objects block the way; paths are shortest
in MiniGrid steps (a quarter turn and a step forward cost one each).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from agentkit.envs.gridworld.state import DIRECTIONS
from agentkit.envs.gridworld.vocabulary import Act
from agentkit.observers import Cell, GridView
from agentkit.observers.grid_geometry import DIRECTION_VECTORS, in_bounds, seen_cell

Pos = tuple[int, int]


@dataclass(frozen=True)
class Pose:
    x: int
    y: int
    d: int  # MiniGrid agent_dir: 0 east, 1 south, 2 west, 3 north

    @property
    def pos(self) -> Pos:
        return (self.x, self.y)

    def front(self) -> Pos:
        dx, dy = DIRECTION_VECTORS[DIRECTIONS[self.d]]
        return (self.x + dx, self.y + dy)


class KnownMap:
    """The seen part of a GridView, with local edits for plans that pick things up or drop them.

    ``edits`` override what the view says at a position (``None`` = now empty floor), so a plan of
    several legs ("pick up the ball, then put it next to the box") sees the ball's cell freed.
    """

    def __init__(self, grid: GridView) -> None:
        self.grid = grid
        self.edits: dict[Pos, Cell | None] = {}

    def cell(self, pos: Pos) -> Cell | None:
        if pos in self.edits and in_bounds(self.grid, *pos):
            return self.edits[pos]
        return seen_cell(self.grid, *pos)

    def is_unseen(self, pos: Pos) -> bool:
        cell = self.cell(pos)
        return cell is not None and cell.kind == "unseen"

    def walkable(self, pos: Pos) -> bool:
        cell = self.cell(pos)
        if cell is None:
            return True
        if cell.kind in ("goal", "floor"):
            return True
        return cell.kind == "door" and cell.state == "open"

    def things(self) -> list[tuple[Pos, Cell]]:
        """Every seen object-like cell (not wall, not floor), edits applied."""
        found = []
        for y in range(self.grid.height):
            for x in range(self.grid.width):
                cell = self.cell((x, y))
                if cell is None or cell.kind in ("wall", "unseen", "floor", "empty", "lava"):
                    continue
                found.append(((x, y), cell))
        return found


def start_pose(grid: GridView) -> Pose:
    x, y = grid.agent_pos
    return Pose(int(x), int(y), DIRECTIONS.index(grid.agent_dir))


def search(known: KnownMap, start: Pose, done: Callable[[Pose], bool]) -> tuple[list[int], Pose] | None:
    """Shortest action list from ``start`` to a pose satisfying ``done`` (and that pose), or None."""
    if done(start):
        return [], start
    parents: dict[Pose, tuple[Pose, int]] = {start: (start, -1)}
    queue = deque([start])
    while queue:
        pose = queue.popleft()
        nexts = [
            (int(Act.LEFT), Pose(pose.x, pose.y, (pose.d - 1) % 4)),
            (int(Act.RIGHT), Pose(pose.x, pose.y, (pose.d + 1) % 4)),
        ]
        front = pose.front()
        if in_bounds(known.grid, *front) and known.walkable(front):
            nexts.append((int(Act.FORWARD), Pose(front[0], front[1], pose.d)))
        for action, nxt in nexts:
            if nxt in parents:
                continue
            parents[nxt] = (pose, action)
            if done(nxt):
                return _unwind(parents, nxt), nxt
            queue.append(nxt)
    return None


def _unwind(parents: dict[Pose, tuple[Pose, int]], end: Pose) -> list[int]:
    actions = []
    pose = end
    while parents[pose][1] != -1:
        pose, action = parents[pose]
        actions.append(action)
    return actions[::-1]


def facing_one_of(targets: set[Pos]) -> Callable[[Pose], bool]:
    return lambda pose: pose.front() in targets


def standing_on_one_of(targets: set[Pos]) -> Callable[[Pose], bool]:
    return lambda pose: pose.pos in targets
