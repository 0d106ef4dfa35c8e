"""Which commands would do something right now, for the structured view and the status block.

Judged only from what the agent can see in front of it and what it carries (the cell in front is
always in view in MiniGrid), so it leaks nothing. API calls are always listed: they plan from the
seen map when run and explain themselves when they cannot be carried out.
"""

from __future__ import annotations

from agentkit.actions import Vocabulary
from agentkit.observers import GridView
from agentkit.observers.grid_geometry import forward_vector, seen_cell

_ALWAYS = {"turn", "think", "go_to", "open", "put_next_to", "explore"}
_CARRIABLE = ("key", "ball", "box")


def valid_commands(grid: GridView, vocabulary: Vocabulary) -> list[str]:
    """Names of the vocabulary's commands that would change something if issued now."""
    fx, fy = forward_vector(grid)
    x, y = grid.agent_pos
    front = seen_cell(grid, x + fx, y + fy)
    carrying = grid.carrying
    can = set(_ALWAYS)
    if (
        front is None
        or front.kind in ("goal", "floor", "lava")
        or (front.kind == "door" and front.state == "open")
    ):
        can.add("go")
    if front is not None and front.kind in _CARRIABLE and carrying is None:
        can.add("pickup")
    if front is None and carrying is not None:
        can.add("drop")
    if front is not None and front.kind == "box":
        can.add("toggle")
    if front is not None and front.kind == "door":
        if front.state != "locked" or (
            carrying is not None and carrying.kind == "key" and carrying.color == front.color
        ):
            can.add("toggle")
    if "pickup" not in can and carrying is None and vocabulary.lookup("go_to") is not None:
        can.add("pickup")  # pickup("red key") walks there first
    return [spec.name for spec in vocabulary.commands if spec.name.lower() in can]
