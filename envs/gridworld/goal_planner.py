"""A privileged shortest-path planner for MiniGrid tasks whose aim is to stand on the goal square.

It searches over (position, heading, carried key, doors opened) with MiniGrid's own actions, so
its plans include fetching keys and opening doors (DoorKey, MultiRoom), never step onto lava
(LavaCrossing, LavaGap) and are shortest in steps. It reads the full grid: an oracle, not a peer.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from agentkit.envs.gridworld.vocabulary import Act

_DIR_VECS = ((1, 0), (0, 1), (-1, 0), (0, -1))  # east, south, west, north (MiniGrid agent_dir)


@dataclass(frozen=True)
class _State:
    x: int
    y: int
    d: int
    key: tuple[int, int] | None  # where the carried key was picked up; (-1, -1) if held at start
    opened: frozenset[tuple[int, int]]


def has_goal(env: Any) -> bool:
    return any(
        (obj := env.grid.get(x, y)) is not None and obj.type == "goal"
        for y in range(env.height)
        for x in range(env.width)
    )


def plan_to_goal(env: Any, max_states: int = 200_000) -> list[int]:
    """Shortest action sequence that ends on a goal square; raises ValueError if there is none."""
    held = env.carrying
    start = _State(
        int(env.agent_pos[0]),
        int(env.agent_pos[1]),
        int(env.agent_dir),
        (-1, -1) if held is not None and held.type == "key" else None,
        frozenset(),
    )
    held_color = held.color if held is not None else None

    def key_color(state: _State) -> str | None:
        if state.key is None:
            return None
        if state.key == (-1, -1):
            return held_color
        return env.grid.get(*state.key).color

    def passable(state: _State, x: int, y: int) -> bool:
        obj = env.grid.get(x, y)
        if obj is None or obj.type in ("goal", "floor"):
            return True
        if obj.type == "door":
            return obj.is_open or (x, y) in state.opened
        if obj.type == "key":
            return state.key == (x, y)  # already picked up
        return False  # walls, lava, balls, boxes

    def successors(state: _State):
        dx, dy = _DIR_VECS[state.d]
        fx, fy = state.x + dx, state.y + dy
        yield Act.LEFT, _State(state.x, state.y, (state.d - 1) % 4, state.key, state.opened)
        yield Act.RIGHT, _State(state.x, state.y, (state.d + 1) % 4, state.key, state.opened)
        if not (0 <= fx < env.width and 0 <= fy < env.height):
            return
        if passable(state, fx, fy):
            yield Act.FORWARD, _State(fx, fy, state.d, state.key, state.opened)
            return
        front = env.grid.get(fx, fy)
        if front.type == "key" and state.key is None:
            yield Act.PICKUP, _State(state.x, state.y, state.d, (fx, fy), state.opened)
        if front.type == "door" and (not front.is_locked or key_color(state) == front.color):
            yield Act.TOGGLE, _State(state.x, state.y, state.d, state.key, state.opened | {(fx, fy)})

    parents: dict[_State, tuple[_State, int] | None] = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        cell = env.grid.get(state.x, state.y)
        if cell is not None and cell.type == "goal" and state != start:
            actions: list[int] = []
            step = parents[state]
            while step is not None:
                state, action = step
                actions.append(action)
                step = parents[state]
            return actions[::-1]
        for action, nxt in successors(state):
            if nxt not in parents:
                parents[nxt] = (state, int(action))
                queue.append(nxt)
        if len(parents) > max_states:
            break
    raise ValueError("no path to a goal square")
