"""API calls compiled to MiniGrid actions from what the agent has seen: go_to, pickup, open,
put_next_to, explore.

Each call is planned when the loop reaches it (after the calls before it have run), by BFS over
the seen part of the grid (see ``seen_planner``). When a call cannot be carried out it raises a
``CompileError`` whose message tells the model what to do next ("no red key seen yet; explore()
or turn to look around"); the loop stops the script there and shows that message next turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentkit.actions import Command, CompileError
from agentkit.envs.gridworld.seen_planner import (
    KnownMap,
    Pos,
    Pose,
    facing_one_of,
    search,
    standing_on_one_of,
    start_pose,
)
from agentkit.envs.gridworld.vocabulary import Act
from agentkit.observers import Cell, GridView
from agentkit.observers.cells import cell_name

COLORS = ("red", "green", "blue", "purple", "yellow", "grey")
KINDS = ("key", "ball", "box", "door", "goal")
CARRIABLE = ("key", "ball", "box")
DOOR_STATES = ("open", "closed", "locked")
_FILLER = {"the", "a", "an", "square", "object"}
_ALIASES = {"gray": "grey", "keys": "key", "balls": "ball", "boxes": "box", "doors": "door"}


@dataclass(frozen=True)
class Target:
    """What a call names: a kind, maybe a colour and (for doors) a state."""

    kind: str
    color: str | None = None
    state: str | None = None

    def matches(self, cell: Cell | None) -> bool:
        return (
            cell is not None
            and cell.kind == self.kind
            and (self.color is None or cell.color == self.color)
            and (self.state is None or cell.state == self.state)
        )

    def text(self) -> str:
        return " ".join(
            w for w in (self.state, self.color, "goal square" if self.kind == "goal" else self.kind) if w
        )


def parse_target(text: object, command: Command) -> Target:
    """'red key', 'the yellow door', 'ball', 'goal' -> Target; anything else is a CompileError."""
    words = [_ALIASES.get(w, w) for w in str(text).lower().replace("_", " ").split() if w not in _FILLER]
    color = next((w for w in words if w in COLORS), None)
    kind = next((w for w in words if w in KINDS), None)
    state = next((w for w in words if w in DOOR_STATES), None)
    unknown = [w for w in words if w not in COLORS and w not in KINDS and w not in DOOR_STATES]
    if kind is None or unknown:
        raise CompileError(
            f'{command.name}({text!r}): name an object as "[colour] kind", e.g. "red key"; '
            f"kinds: {', '.join(KINDS)}; colours: {', '.join(COLORS)}",
            command,
        )
    if state is not None and kind != "door":
        raise CompileError(f"{command.name}({text!r}): only doors are open, closed or locked", command)
    return Target(kind, color, state)


def _where(positions: list[Pos]) -> str:
    return ", ".join(f"({x}, {y})" for x, y in positions[:3])


def _matches(known: KnownMap, target: Target) -> list[Pos]:
    return [pos for pos, cell in known.things() if target.matches(cell)]


def _not_seen(target: Target, command: Command) -> CompileError:
    return CompileError(f"no {target.text()} seen yet; explore() or turn to look around first", command)


def _go_next_to(
    known: KnownMap, target: Target, command: Command, positions: list[Pos]
) -> tuple[list[int], Pose]:
    """Actions to face the nearest of ``positions`` (to stand on it for the goal square)."""
    start = start_pose(known.grid)
    done = standing_on_one_of(set(positions)) if target.kind == "goal" else facing_one_of(set(positions))
    found = search(known, start, done)
    if found is None:
        raise CompileError(
            f"the {target.text()} you saw at {_where(positions)} cannot be reached through cells you have "
            "seen; explore() or open a door first",
            command,
        )
    return found


def go_to(grid: GridView, command: Command) -> list[int]:
    target = parse_target(command.args[0], command)
    known = KnownMap(grid)
    positions = _matches(known, target)
    if not positions:
        carried = grid.carrying
        if target.matches(carried):
            raise CompileError(f"you are carrying the {cell_name(carried)} already", command)
        raise _not_seen(target, command)
    actions, _ = _go_next_to(known, target, command, positions)
    return actions


def pickup(grid: GridView, command: Command) -> list[int]:
    """``Pickup()`` picks up what is in front; ``pickup("red key")`` walks to the nearest seen one first."""
    text = command.args[0] if command.args else ""
    if not text:
        return [int(Act.PICKUP)]
    target = parse_target(text, command)
    if target.kind not in CARRIABLE:
        raise CompileError(f"you can only pick up keys, balls and boxes, not a {target.kind}", command)
    if grid.carrying is not None:
        raise CompileError(
            f"your hands are full (you carry the {cell_name(grid.carrying)}); Drop() it on an empty cell first",
            command,
        )
    known = KnownMap(grid)
    positions = _matches(known, target)
    if not positions:
        raise _not_seen(target, command)
    actions, _ = _go_next_to(known, target, command, positions)
    return [*actions, int(Act.PICKUP)]


def open_door(grid: GridView, command: Command) -> list[int]:
    target = parse_target(command.args[0], command)
    if target.kind != "door":
        raise CompileError(f'open() takes a door, e.g. open("yellow door"), not a {target.kind}', command)
    known = KnownMap(grid)
    doors = [(pos, cell) for pos in _matches(known, target) if (cell := known.cell(pos)) is not None]
    if not doors:
        raise _not_seen(target, command)
    closed = [(pos, cell) for pos, cell in doors if cell.state != "open"]
    if not closed:
        raise CompileError(f"the {target.text()} at {_where([p for p, _ in doors])} is already open", command)
    carried = grid.carrying
    openable = [
        pos
        for pos, cell in closed
        if cell.state == "closed"
        or (carried is not None and carried.kind == "key" and carried.color == cell.color)
    ]
    if not openable:
        colors = sorted({cell.color for _, cell in closed if cell.color})
        raise CompileError(
            f"the {target.text()} is locked; pick up a {' or '.join(colors)} key first, then open it", command
        )
    actions, _ = _go_next_to(known, Target("door", target.color), command, openable)
    return [*actions, int(Act.TOGGLE)]


def put_next_to(grid: GridView, command: Command) -> list[int]:
    """Pick up the first object (unless already carried), then drop it on a free cell beside the second."""
    what = parse_target(command.args[0], command)
    anchor = parse_target(command.args[1], command)
    if what.kind not in CARRIABLE:
        raise CompileError(f"put_next_to() moves a key, ball or box, not a {what.kind}", command)
    known = KnownMap(grid)
    actions: list[int] = []
    start = start_pose(grid)
    carried = grid.carrying
    if not what.matches(carried):
        if carried is not None:
            raise CompileError(
                f"your hands are full (you carry the {cell_name(carried)}); Drop() it first", command
            )
        positions = _matches(known, what)
        if not positions:
            raise _not_seen(what, command)
        leg, start = _go_next_to(known, what, command, positions)
        actions += [*leg, int(Act.PICKUP)]
        known.edits[start.front()] = None  # the object is in our hands now
    anchors = _matches(known, anchor)
    if not anchors:
        raise _not_seen(anchor, command)
    beside = {(ax + dx, ay + dy) for ax, ay in anchors for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))}
    free = {pos for pos in beside if known.cell(pos) is None and not known.is_unseen(pos)}
    found = search(known, start, lambda pose: pose.front() in free)
    if found is None:
        raise CompileError(
            f"no free cell you have seen beside the {anchor.text()} at {_where(anchors)} can be reached; "
            "explore() or clear the way first",
            command,
        )
    leg, _ = found
    return [*actions, *leg, int(Act.DROP)]


def explore(grid: GridView, command: Command) -> list[int]:
    """Walk to the nearest spot facing an unseen cell; if none, open the nearest closed door."""
    known = KnownMap(grid)
    start = start_pose(grid)
    width, height = grid.width, grid.height

    def faces_unseen(pose: Pose) -> bool:
        fx, fy = pose.front()
        return 0 <= fx < width and 0 <= fy < height and known.is_unseen((fx, fy))

    found = search(known, start, faces_unseen)
    if found is not None and found[0]:
        return found[0]
    doors = [(pos, cell) for pos, cell in known.things() if cell.kind == "door" and cell.state == "closed"]
    if doors:
        reach = search(known, start, facing_one_of({pos for pos, _ in doors}))
        if reach is not None:
            return [*reach[0], int(Act.TOGGLE)]
    locked = sorted(
        {
            cell.color
            for _, cell in known.things()
            if cell.kind == "door" and cell.state == "locked" and cell.color
        }
    )
    hint = f"; the locked {' and '.join(locked)} door(s) need a key of their colour" if locked else ""
    raise CompileError(f"everything you can reach has been seen{hint}", command)


API_CALLS = {
    "go_to": go_to,
    "pickup": pickup,
    "open": open_door,
    "put_next_to": put_next_to,
    "explore": explore,
}
