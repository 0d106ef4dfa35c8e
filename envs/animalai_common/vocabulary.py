"""The arena's script vocabulary (the LLM-AAI paper's ``Go``, ``Turn``, ``Think``) and its compiler.

Why these three: they are what the LLM-AAI paper gave models, so results stay comparable. A
low-level action is Animal-AI's JSON-able pair ``[b0, b1]`` (branch 0: 0 none / 1 forward /
2 backward; branch 1: 0 none / 1 right / 2 left), and every action is one environment step:

* ``Go(n)``: n steps forward (``[1, 0]``), or -n steps backward (``[2, 0]``) when n < 0;
* ``Turn(d)``: ``|d| // 6`` steps of 6 degrees, right (``[0, 1]``, clockwise seen from above) for
  d > 0, left (``[0, 2]``) for d < 0; so a turn is rounded toward zero: Turn(25) turns 24, Turn(5) none;
* ``Think(text)``: no action.
"""

from __future__ import annotations

import numbers

from agentkit.actions import Command, CommandSpec, CompileError, ParamSpec, ParamType, Vocabulary

MAX_GO = 100
MAX_TURN = 360
TURN_STEP = 6

NOOP = [0, 0]
FORWARD = [1, 0]
BACKWARD = [2, 0]
RIGHT = [0, 1]
LEFT = [0, 2]

VOCABULARY = Vocabulary(
    commands=(
        CommandSpec(
            "Go",
            (
                ParamSpec(
                    "n", ParamType.INT, "steps; negative moves backwards", minimum=-MAX_GO, maximum=MAX_GO
                ),
            ),
            "Move forward n steps (one environment step each; negative n moves backwards). "
            "You keep some momentum: Go(35) from rest crosses the whole arena.",
        ),
        CommandSpec(
            "Turn",
            (
                ParamSpec(
                    "degrees", ParamType.INT, "positive turns right", minimum=-MAX_TURN, maximum=MAX_TURN
                ),
            ),
            "Turn on the spot, positive to the right (clockwise), negative to the left, "
            "in steps of 6 degrees (rounded toward zero: Turn(25) turns 24).",
        ),
        CommandSpec(
            "Think",
            (ParamSpec("text", ParamType.TEXT, "your reasoning"),),
            "Write down a thought; it takes no time in the world.",
        ),
    )
)


def go_actions(n: int) -> list[list[int]]:
    """``Go(n)`` as actions: n forward steps, or |n| backward steps for negative n."""
    return [list(FORWARD if n > 0 else BACKWARD) for _ in range(abs(n))]


def turn_actions(degrees: int) -> list[list[int]]:
    """``Turn(degrees)`` as 6-degree steps, rounded toward zero; positive is right (clockwise)."""
    steps = abs(degrees) // TURN_STEP
    return [list(RIGHT if degrees > 0 else LEFT) for _ in range(steps)]


def compile_command(command: Command) -> list[list[int]]:
    """The low-level actions of one arena command; ``CompileError`` for anything else."""
    spec = VOCABULARY.lookup(command.name)
    if spec is None:
        raise CompileError(f"unknown arena command {command.name}()", command)
    name = spec.name
    if name == "Think":
        return []
    value = command.args[0] if command.args else None
    if not isinstance(value, int) or isinstance(value, bool):
        raise CompileError(f"{name}() needs a whole number, got {value!r}", command)
    if name == "Go":
        if not -MAX_GO <= value <= MAX_GO:
            raise CompileError(f"Go(n) takes -{MAX_GO}..{MAX_GO} steps, got {value}", command)
        return go_actions(value)
    if not -MAX_TURN <= value <= MAX_TURN:
        raise CompileError(f"Turn(degrees) takes -{MAX_TURN}..{MAX_TURN}, got {value}", command)
    return turn_actions(value)


def is_action(action: object) -> bool:
    """Whether ``action`` is a valid ``[b0, b1]`` pair (a list or tuple of two integers 0..2)."""
    if not isinstance(action, (list, tuple)) or len(action) != 2:
        return False
    return all(
        isinstance(b, numbers.Integral) and not isinstance(b, bool) and 0 <= int(b) <= 2 for b in action
    )
