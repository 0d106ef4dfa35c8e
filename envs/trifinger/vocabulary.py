"""The TriFinger script vocabulary: high-level API calls on blocks and fingertips (metres, degrees).

Each call is parsed (never executed) and compiled by ``compiler.ScriptCompiler`` into joint
trajectories. ``move_to`` states the reachable workspace (``workspace.WORKSPACE``, measured from the
robot's kinematics), so every prompt listing the commands carries it. Blocks are numbered as in the observation (block 0, 1, ...); fingers 0, 1, 2.
"""

from __future__ import annotations

from agentkit.actions import CommandSpec, ParamSpec, ParamType, Vocabulary
from agentkit.envs.trifinger.workspace import WORKSPACE

XY = 0.2  # |x|, |y| limit of targets (the arena wall is about 0.19 m from the centre)
Z_MAX = 0.3
DECIMALS = 4  # written as text, metres keep a tenth of a millimetre and degrees a ten-thousandth

_block = ParamSpec("block", ParamType.INT, "block number", minimum=0, maximum=40)
_x = ParamSpec("x", ParamType.FLOAT, decimals=DECIMALS, doc="metres", minimum=-XY, maximum=XY)
_y = ParamSpec("y", ParamType.FLOAT, decimals=DECIMALS, doc="metres", minimum=-XY, maximum=XY)
_z = ParamSpec(
    "z", ParamType.FLOAT, decimals=DECIMALS, doc="metres above the floor", minimum=0.0, maximum=Z_MAX
)

VOCABULARY = Vocabulary(
    commands=(
        CommandSpec(
            "grasp", (_block,), "Close the three fingertips on a block (from the side, at mid-height)."
        ),
        CommandSpec(
            "lift",
            (
                ParamSpec(
                    "height",
                    ParamType.FLOAT,
                    decimals=DECIMALS,
                    doc="metres",
                    minimum=0.0,
                    maximum=Z_MAX,
                    default=0.08,
                    required=False,
                ),
            ),
            "Raise the grasped block until its centre is `height` metres above the floor.",
        ),
        CommandSpec(
            "move_to",
            (_x, _y, _z),
            "Carry the grasped block so its centre is at (x, y, z); "
            "with nothing grasped, move the centre of the three fingertips there. Reachable workspace: "
            f"{WORKSPACE.describe()}.",
        ),
        CommandSpec(
            "place",
            (_x, _y),
            "Carry the grasped block above (x, y), lower it onto the floor or the block "
            "below, release it and lift the fingers clear.",
        ),
        CommandSpec("release", (), "Open the fingertips away from the grasped block and lift them clear."),
        CommandSpec(
            "rotate",
            (
                _block,
                ParamSpec(
                    "yaw",
                    ParamType.FLOAT,
                    decimals=DECIMALS,
                    doc="degrees, positive is counter-clockwise seen from above",
                    minimum=-90.0,
                    maximum=90.0,
                ),
            ),
            "Turn the grasped block about the vertical axis by `yaw` degrees (grasp it first); it also sets "
            "upright a block the grip has tilted (undoes its roll and pitch), so rotate(block, 0) only levels it.",
        ),
        CommandSpec(
            "push",
            (
                _block,
                ParamSpec("dx", ParamType.FLOAT, decimals=DECIMALS, doc="metres", minimum=-0.3, maximum=0.3),
                ParamSpec("dy", ParamType.FLOAT, decimals=DECIMALS, doc="metres", minimum=-0.3, maximum=0.3),
            ),
            "Slide a block along the floor by (dx, dy) metres, pushing it with the fingertips from behind.",
        ),
        CommandSpec(
            "move_tip",
            (ParamSpec("finger", ParamType.INT, "0, 1 or 2", minimum=0, maximum=2), _x, _y, _z),
            "Move one fingertip to (x, y, z); the other two stay where they are.",
        ),
        CommandSpec("home", (), "Release anything held and return the fingers to their rest pose."),
        CommandSpec(
            "wait",
            (
                ParamSpec(
                    "seconds", ParamType.FLOAT, decimals=DECIMALS, doc="seconds", minimum=0.0, maximum=5.0
                ),
            ),
            "Hold still for a while (lets blocks settle).",
        ),
        CommandSpec(
            "Think",
            (ParamSpec("text", ParamType.TEXT, "your reasoning"),),
            "Write down a thought; it takes no time in the world.",
        ),
    )
)
