"""Turn a planned sequence of MiniGrid actions into gridworld commands that compile back to it exactly.

Runs of forward steps become ``Go(n)``; runs of same-side turns become ``Turn(+-180)`` and
``Turn(+-90)`` chunks (never a net 270, which would compile to the opposite single turn and so to
different intermediate headings: BabyAI checks success after every step, so the path matters).
"""

from __future__ import annotations

from collections.abc import Sequence

from agentkit.actions import Command
from agentkit.envs.gridworld.vocabulary import MAX_GO, Act

_SINGLE = {Act.PICKUP: "Pickup", Act.DROP: "Drop", Act.TOGGLE: "Toggle"}


def actions_to_commands(actions: Sequence[int]) -> list[Command]:
    """Commands equivalent to ``actions``; raises ValueError for actions with no command (e.g. done)."""
    commands: list[Command] = []
    i = 0
    while i < len(actions):
        act = Act(actions[i])
        run = 1
        while i + run < len(actions) and actions[i + run] == act:
            run += 1
        if act is Act.FORWARD:
            for start in range(0, run, MAX_GO):
                commands.append(Command("Go", (min(MAX_GO, run - start),)))
        elif act in (Act.LEFT, Act.RIGHT):
            sign = -1 if act is Act.LEFT else 1
            commands.extend([Command("Turn", (sign * 180,))] * (run // 2))
            if run % 2:
                commands.append(Command("Turn", (sign * 90,)))
        elif act in _SINGLE:
            commands.extend([Command(_SINGLE[act])] * run)
        else:
            raise ValueError(f"action {act.name} has no gridworld command")
        i += run
    return commands
