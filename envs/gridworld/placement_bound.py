"""A bound on MiniGrid's search for a place to put the agent, so that no seed hangs a reset.

Why: MiniGrid's ``RoomGrid.place_agent`` (minigrid 3.2.0, ``minigrid/core/roomgrid.py``) loops with
``while True`` until it finds a cell whose front is empty or a wall. In a room where every free cell
faces an object it never ends: ``gridworld/synth-easy`` with seed 1741 hangs ``reset`` for ever (found
by the property test of go_to plans, which drew that seed). BabyAI's level generator already
catches ``RecursionError`` from a stuck rejection sampling and draws the level again from its random
stream (``RoomGridLevel._gen_grid``), so raising it after a generous number of tries turns the hang
into one more redraw. Levels that placed their agent within the bound, every one that ever finished,
are generated exactly as before.
"""

from __future__ import annotations

from typing import Any

#: Tries of the inner placement (each itself up to 1,000 random cells) before the search is called
#: stuck. A level that finishes needs a handful; the stuck ones never finish.
MAX_PLACEMENT_TRIES = 1_000


def bound_agent_placement(env: Any) -> None:
    """Make ``env`` (an unwrapped MiniGridEnv) raise ``RecursionError`` when one ``place_agent`` call
    has tried ``MAX_PLACEMENT_TRIES`` placements. Installed once per environment; idempotent."""
    if getattr(env, "_agentkit_placement_bound", False):
        return
    outer = env.place_agent
    inner = env.place_obj
    state = {"active": False, "tries": 0}

    def place_obj(*args: Any, **kwargs: Any) -> Any:
        if state["active"]:
            state["tries"] += 1
            if state["tries"] > MAX_PLACEMENT_TRIES:
                raise RecursionError("agentkit: no place for the agent after many tries; level redrawn")
        return inner(*args, **kwargs)

    def place_agent(*args: Any, **kwargs: Any) -> Any:
        state["active"], state["tries"] = True, 0
        try:
            return outer(*args, **kwargs)
        finally:
            state["active"] = False

    env.place_obj = place_obj
    env.place_agent = place_agent
    env._agentkit_placement_bound = True
