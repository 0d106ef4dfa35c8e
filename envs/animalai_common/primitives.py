"""Animal-AI's nine per-step actions, named, for frame-by-frame control (``--control frame-by-frame``).

Why: Animal-AI's action space is two branches of three (branch 0: none / forward / backward;
branch 1: none / right / left; animal-ai's ``AnimalAIEnvironment`` and the frame-by-frame
scaffold of the Animal-AI project use the same nine combinations). A model controlling the agent
step by step answers one of these names; the ``[b0, b1]`` pair is what both backends step.
"""

from __future__ import annotations

from agentkit.envs.base import PrimitiveAction

_MOVES = (("forward", 1, "move forward"), ("back", 2, "move backward"), ("", 0, ""))
_TURNS = (("left", 2, "turn left 6 degrees"), ("right", 1, "turn right 6 degrees"), ("", 0, ""))


def _primitives() -> tuple[PrimitiveAction, ...]:
    out = []
    for move, b0, move_doc in _MOVES:
        for turn, b1, turn_doc in _TURNS:
            name = "-".join(p for p in (move, turn) if p) or "stay"
            doc = " and ".join(p for p in (move_doc, turn_doc) if p) or "do nothing (the world goes on)"
            out.append(PrimitiveAction(name, [b0, b1], f"each step: {doc}"))
    return tuple(out)


# forward-left, forward-right, forward, back-left, back-right, back, left, right, stay
PRIMITIVES: tuple[PrimitiveAction, ...] = _primitives()
