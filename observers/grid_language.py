"""A GridView in plain English, from the agent's point of view.

It says which way the agent faces and what is right in front of it, how far it can walk straight
ahead, and where each object it has seen lies in steps ahead/behind and left/right ("a red key 2
steps ahead and 1 to the left"). Only seen cells are described. What the agent carries is left to
the status block (``Carrying:``), which every prompt shows: said here too, it was said twice.
"""

from __future__ import annotations

from agentkit.observers.cells import cell_name, with_article
from agentkit.observers.grid_geometry import forward_vector, relative_offset, seen_cell, seen_things
from agentkit.observers.observation import GridView

MAX_LAVA_LISTED = 6  # lava fields can be large; the nearest few are what matters for the next move


def _steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


def relative_phrase(ahead: int, right: int) -> str:
    """E.g. "2 steps ahead and 1 to the left", "3 steps to your right", "1 step behind you"."""
    side = "right" if right > 0 else "left"
    if ahead == 0 and right == 0:
        return "where you stand"
    if right == 0:
        return f"{_steps(abs(ahead))} " + ("ahead" if ahead > 0 else "behind you")
    if ahead == 0:
        return f"{_steps(abs(right))} to your {side}"
    lead = f"{_steps(abs(ahead))} " + ("ahead" if ahead > 0 else "behind")
    return f"{lead} and {abs(right)} to the {side}"


def _front_sentence(grid: GridView) -> str:
    fx, fy = forward_vector(grid)
    x, y = grid.agent_pos
    front = seen_cell(grid, x + fx, y + fy)
    if front is None:
        return f"You face {grid.agent_dir}; the cell in front of you is empty floor."
    if front.kind == "unseen":
        return f"You face {grid.agent_dir}; you have not seen the cell in front of you."
    return f"You face {grid.agent_dir}, directly in front of you is {with_article(cell_name(front))}."


def _ahead_sentence(grid: GridView) -> str:
    """How many free cells lie straight ahead and what stops the walk."""
    fx, fy = forward_vector(grid)
    x, y = grid.agent_pos
    free = 0
    while True:
        x, y = x + fx, y + fy
        cell = seen_cell(grid, x, y)
        if cell is None or (cell.kind == "door" and cell.state == "open"):
            free += 1
            continue
        break
    if cell.kind == "unseen":
        end = "then cells you have not seen"
    else:
        end = f"then {with_article(cell_name(cell))}"
    if free == 0:
        return ""  # the sentence about the cell in front already says it
    return f"Straight ahead you can walk {_steps(free)}, {end}."


def describe_grid(grid: GridView) -> str:
    """Sentences about the agent's surroundings, nearest objects first."""
    sentences = [_front_sentence(grid), _ahead_sentence(grid)]
    x, y = grid.agent_pos
    under = grid.cells[y][x]
    if under is not None:
        sentences.append(f"You stand on {with_article(cell_name(under))}.")

    things = sorted(
        ((relative_offset(grid, (cx, cy)), cell) for cx, cy, cell in seen_things(grid)),
        key=lambda item: (abs(item[0][0]) + abs(item[0][1]), -item[0][0], item[0][1]),
    )
    objects = [
        f"{with_article(cell_name(c))} {relative_phrase(*off)}" for off, c in things if c.kind != "lava"
    ]
    lava = [relative_phrase(*off) for off, c in things if c.kind == "lava"]
    if objects:
        sentences.append("You have seen: " + "; ".join(objects) + ".")
    else:
        sentences.append("You have not seen any objects yet.")
    if lava:
        listed = "; ".join(lava[:MAX_LAVA_LISTED])
        more = (
            f" (and {len(lava) - MAX_LAVA_LISTED} more lava cells further away)"
            if len(lava) > MAX_LAVA_LISTED
            else ""
        )
        sentences.append(f"Lava (deadly): {listed}{more}.")
    return " ".join(s for s in sentences if s)
