"""The gridworld command vocabulary and how each command maps to MiniGrid's discrete actions.

MiniGrid agents move one cell or turn 90 degrees per step, so the script language speaks in cells
and right angles: ``Go(3)`` is three forward steps, ``Turn(-90)`` one left turn.
"""

from __future__ import annotations

from enum import IntEnum

from agentkit.actions import CommandSpec, ParamSpec, ParamType, Vocabulary

MAX_GO = 20


class Act(IntEnum):
    """MiniGrid's action indices (``MiniGridEnv.Actions``), named here so the compiler reads plainly."""

    LEFT = 0
    RIGHT = 1
    FORWARD = 2
    PICKUP = 3
    DROP = 4
    TOGGLE = 5
    DONE = 6


VOCABULARY = Vocabulary(
    commands=(
        CommandSpec(
            "Go",
            (ParamSpec("n", ParamType.INT, "cells to move forward", minimum=1, maximum=MAX_GO),),
            "Move forward n cells in the direction you face (a blocked step still costs a step).",
        ),
        CommandSpec(
            "Turn",
            (
                ParamSpec(
                    "degrees", ParamType.INT, "multiple of 90", minimum=-270, maximum=270, multiple_of=90
                ),
            ),
            "Turn on the spot: negative turns left, positive turns right, e.g. Turn(-90) faces left.",
        ),
        CommandSpec("Pickup", (), "Pick up the object directly in front of you (hands must be empty)."),
        CommandSpec("Drop", (), "Put the carried object on the empty cell directly in front of you."),
        CommandSpec("Toggle", (), "Open or close the door in front of you (a locked door needs its key)."),
        CommandSpec(
            "Think",
            (ParamSpec("text", ParamType.TEXT, "your reasoning"),),
            "Write down a thought; it takes no time in the world.",
        ),
    )
)


def turn_actions(degrees: int) -> list[int]:
    """The fewest quarter turns that reach the same heading; a half turn goes the way its sign says."""
    if degrees % 90:
        raise ValueError(f"Turn takes multiples of 90 degrees, got {degrees}")
    quarters = (degrees // 90) % 4  # 1 = one right, 3 = one left
    if quarters == 0:
        return []
    if quarters == 1:
        return [int(Act.RIGHT)]
    if quarters == 3:
        return [int(Act.LEFT)]
    return [int(Act.RIGHT)] * 2 if degrees > 0 else [int(Act.LEFT)] * 2
