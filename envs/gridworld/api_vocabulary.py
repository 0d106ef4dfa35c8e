"""The gridworld vocabulary with API calls: the primitives plus go_to, pickup, open, put_next_to, explore.

Names are matched case-insensitively, so ``Pickup()`` and ``pickup("red key")`` are one command
with an optional target: without one it picks up what is in front, as in the primitive set.
Objects are named in words: ``"red key"``, ``"yellow door"``, ``"ball"``, ``"goal"``.
"""

from __future__ import annotations

from agentkit.actions import CommandSpec, ParamSpec, ParamType, Vocabulary
from agentkit.envs.gridworld.vocabulary import VOCABULARY

_PRIMITIVES = {spec.name: spec for spec in VOCABULARY.commands}
_OBJECT = 'an object you have seen, e.g. "red key", "yellow door", "ball", "goal"'

API_VOCABULARY = Vocabulary(
    commands=(
        _PRIMITIVES["Go"],
        _PRIMITIVES["Turn"],
        CommandSpec(
            "Pickup",
            (ParamSpec("target", ParamType.STR, _OBJECT, default="", required=False),),
            "Pick up the object in front of you; with a target, first walk to the nearest one you have seen.",
        ),
        _PRIMITIVES["Drop"],
        _PRIMITIVES["Toggle"],
        CommandSpec(
            "go_to",
            (ParamSpec("target", ParamType.STR, _OBJECT),),
            "Walk by the shortest known path until you face the target (or stand on the goal square).",
        ),
        CommandSpec(
            "open",
            (ParamSpec("door", ParamType.STR, 'a door you have seen, e.g. "yellow door"'),),
            "Walk to the door and open it (a locked door needs its key in your hands).",
        ),
        CommandSpec(
            "put_next_to",
            (
                ParamSpec("object", ParamType.STR, "what to move (picked up first unless you carry it)"),
                ParamSpec("anchor", ParamType.STR, "what to put it beside"),
            ),
            "Pick up the object if needed and drop it on a free cell beside the anchor.",
        ),
        CommandSpec("explore", (), "Walk to the nearest place where you face a cell you have not seen yet."),
        _PRIMITIVES["Think"],
    )
)
