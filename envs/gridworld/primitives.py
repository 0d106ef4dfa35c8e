"""MiniGrid's own seven actions, named, for frame-by-frame control (``--control frame-by-frame``).

Why: a model controlling the gridworld step by step answers one of MiniGrid's discrete actions
(``MiniGridEnv.Actions``: left, right, forward, pickup, drop, toggle, done) rather than a script.
"""

from __future__ import annotations

from agentkit.envs.base import PrimitiveAction
from agentkit.envs.gridworld.vocabulary import Act

PRIMITIVES: tuple[PrimitiveAction, ...] = (
    PrimitiveAction("forward", int(Act.FORWARD), "move one cell forward (a blocked step still costs a step)"),
    PrimitiveAction("left", int(Act.LEFT), "turn 90 degrees left on the spot"),
    PrimitiveAction("right", int(Act.RIGHT), "turn 90 degrees right on the spot"),
    PrimitiveAction("pickup", int(Act.PICKUP), "pick up the object directly in front (hands must be empty)"),
    PrimitiveAction("drop", int(Act.DROP), "put the carried object on the empty cell in front"),
    PrimitiveAction(
        "toggle", int(Act.TOGGLE), "open or close the door in front (a locked door needs its key)"
    ),
    PrimitiveAction("done", int(Act.DONE), "say the task is done (MiniGrid's no-op; most tasks ignore it)"),
)
