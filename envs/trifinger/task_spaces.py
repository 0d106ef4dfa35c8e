"""Each CausalWorld task's own intervention spaces A and B, in CausalWorld's variable names.

Why: CausalWorld's protocols pick variables by regular expressions over *its* names
(``tool_block``, ``goal_block``, ``goal_tower``, ``obstacle`` ...), and each task generator
overrides the base spaces (pushing pins floor heights, picking moves its goal only in height,
pick_and_place samples block and goal in opposite sectors, stacking2 replaces its goal blocks by
one ``goal_tower``). A protocol draw is only faithful when it is made in those spaces, so they are
built here from a ``Scene`` (plain data, no physics) exactly as
``causal_world/task_generators/base_task.py`` (``_set_intervention_space_a/_b/_a_b``) and the task
files build theirs. ``ALIASES`` maps CausalWorld's object names onto the scene's.

Ranges are ``(low, high)`` with lists for vectors; cylindrical positions are (radius, angle, z).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from agentkit.envs.trifinger.scene import Scene

if TYPE_CHECKING:
    from agentkit.envs.trifinger.protocol_carry_over import Inherited

Range = tuple[Any, Any]
SPACES = ("A", "B", "A_B")

#: CausalWorld object name -> (kind, index) in our Scene: kind is block, goal, obstacle or tip_goal.
ALIASES: dict[str, dict[str, tuple[str, int]]] = {
    "pushing": {"tool_block": ("block", 0), "goal_block": ("goal", 0)},
    "picking": {"tool_block": ("block", 0), "goal_block": ("goal", 0)},
    "pick_and_place": {"obstacle": ("obstacle", 0), "tool_block": ("block", 0), "goal_block": ("goal", 0)},
    "stacking2": {
        "tool_block_1": ("block", 0),
        "tool_block_2": ("block", 1),
        "goal_block_1": ("goal", 0),
        "goal_block_2": ("goal", 1),
    },
    # reaching.py: goal_60, goal_120, goal_300 are the three fingers' target spheres, in finger order.
    "reaching": {"goal_60": ("tip_goal", 0), "goal_120": ("tip_goal", 1), "goal_300": ("tip_goal", 2)},
}

# base_task.py _set_intervention_space_a / _b: the values below are CausalWorld's, variable by variable.
_JOINTS = {
    "A": ([-1.57, -1.2, -3.0] * 3, [-0.69, 0.0, 0.0] * 3),  # joint_positions (TriFinger Edu convention)
    "B": ([-0.69, 0.0, 0.0] * 3, [1.0, 1.57, 3.0] * 3),
}
_RADIUS = {"A": (0.0, 0.11), "B": (0.11, 0.15)}  # cylindrical_position[:, 0]
_TOP = {"A": 0.15, "B": 0.3}  # cylindrical_position[1][2]; low z is size[-1] / 2
_SIZE = {"A": (0.055, 0.075), "B": (0.075, 0.095)}  # Cuboid / SCuboid 'size'
_LIGHT, _DARK = ([0.5] * 3, [1.0] * 3), ([0.0] * 3, [0.5] * 3)
_OBJECT_COLOR = {"A": _LIGHT, "B": _DARK}  # rigid and visual objects' 'color'
_MASS = {"A": (0.015, 0.045), "B": (0.045, 0.1)}  # non-fixed rigid objects' 'mass'
_FLOOR_COLOR = {"A": _LIGHT, "B": _DARK}  # 'floor_color'
_STAGE_COLOR = {"A": _DARK, "B": _LIGHT}  # 'stage_color'
_FRICTION = {"A": (0.3, 0.6), "B": (0.6, 0.8)}  # 'floor_friction', 'stage_friction'
_LINK_COLOR = {"A": _DARK, "B": _LIGHT}  # each robot link's 'color'
_LINK_MASS = {"A": (0.015, 0.045), "B": (0.045, 0.1)}  # each robot link's 'mass'
_EULER = ([0.0, 0.0, -math.pi], [0.0, 0.0, math.pi])  # 'euler_orientation' (yaw only), both spaces
#: silhouette.py SSphere: reaching's goal spheres have radius 0.015 (size 0.03) and no size variable.
SPHERE_SIZE = 0.03
#: Robot links whose colour and mass the spaces cover. CausalWorld lists 4 links per finger of the
#: TriFinger Edu (world_constants.py LINK_IDS robot_finger_60_link_0..3); TriFingerPro's 3 moving links here.
LINK_NAMES = tuple(
    f"finger_{part}_link_{angle}" for angle in (0, 120, 240) for part in ("upper", "middle", "lower")
)

# pick_and_place.py _set_intervention_space_a/_b: sectors and the obstacle's height range.
PNP_RADIUS = {"A": (0.07, 0.12), "B": (0.12, 0.15)}
PNP_ANGLES = (math.pi / 6, 5 * math.pi / 6)  # the block's sector on its side; the goal's is the mirror image
PNP_OBSTACLE_HEIGHT = {"A": (0.02, 0.065), "B": (0.065, 0.1)}
# picking.py _set_intervention_space_a/_b: the goal's height range (its radius and angle are forced to 0).
PICKING_GOAL_Z = {"A": (0.08, 0.20), "B": (0.20, 0.25)}


def _object(
    kind: str, height: float, space: str, *, fixed: bool = False, cuboid: bool = True
) -> dict[str, Range]:
    """base_task.py's ranges of one rigid (kind "block"/"obstacle") or visual (kind "goal") object."""
    out: dict[str, Range] = {}
    if not fixed:
        out["cylindrical_position"] = (
            [_RADIUS[space][0], -math.pi, height / 2],
            [_RADIUS[space][1], math.pi, _TOP[space]],
        )
        out["euler_orientation"] = (list(_EULER[0]), list(_EULER[1]))
    if cuboid:
        out["size"] = ([_SIZE[space][0]] * 3, [_SIZE[space][1]] * 3)
    out["color"] = _OBJECT_COLOR[space]
    if kind == "block" and not fixed:
        out["mass"] = _MASS[space]
    return out


def _base(scene: Scene, space: str) -> dict[str, Any]:
    """base_task.py: joint_positions, rigid objects, visual objects, floor/stage, links (its order)."""
    out: dict[str, Any] = {"joint_positions": _JOINTS[space]}
    aliases = ALIASES.get(scene.task, {})
    named = {(kind, index): name for name, (kind, index) in aliases.items()}
    for index, obstacle in enumerate(scene.obstacles):
        out[named.get(("obstacle", index), obstacle.name)] = _object(
            "obstacle", obstacle.size[2], space, fixed=True
        )
    for index, block in enumerate(scene.blocks):
        out[named.get(("block", index), block.name)] = _object("block", block.size[2], space)
    for index, goal in enumerate(scene.goals):
        out[named.get(("goal", index), goal.name)] = _object("goal", goal.size[2], space)
    for index, _tip in enumerate(scene.tip_goals):
        out[named.get(("tip_goal", index), f"tip_goal{index}")] = _object(
            "goal", SPHERE_SIZE, space, cuboid=False
        )
    out["floor_color"] = _FLOOR_COLOR[space]
    out["stage_color"] = _STAGE_COLOR[space]
    out["floor_friction"] = _FRICTION[space]
    out["stage_friction"] = _FRICTION[space]
    for link in LINK_NAMES:
        out[link] = {"color": _LINK_COLOR[space], "mass": _LINK_MASS[space]}
    return out


def _pin_z(ranges: dict[str, Range], z: float) -> None:
    low, high = ranges["cylindrical_position"]
    ranges["cylindrical_position"] = ([low[0], low[1], z], [high[0], high[1], z])


def _side(scene: Scene) -> float:
    """+1 when pick_and_place's block is on the +y side of the wall, -1 otherwise."""
    return 1.0 if scene.blocks and scene.blocks[0].position[1] > 0 else -1.0


def _task_overrides(
    scene: Scene, space: str, out: dict[str, Any], inherited: Inherited | None = None
) -> None:
    """The task generator's own edits of the base spaces; ``inherited`` holds the later edits its
    ``_adjust_variable_spaces_after_intervention`` made in earlier episodes (``protocol_carry_over``)."""
    task = scene.task
    size_z = inherited.size_z if inherited is not None else None
    if task == "pushing":
        # pushing.py _set_intervention_space_a/_b: both heights pinned to half the block's height;
        # after a size intervention, to half the new height (its _adjust_variable_spaces_after_intervention).
        _pin_z(out["tool_block"], (size_z or scene.blocks[0].size[2]) / 2)
        _pin_z(out["goal_block"], (size_z or scene.goals[0].size[2]) / 2)
    elif task == "picking":
        low, high = out["goal_block"]["cylindrical_position"]
        z_low, z_high = PICKING_GOAL_Z[space]
        out["goal_block"]["cylindrical_position"] = ([low[0], low[1], z_low], [high[0], high[1], z_high])
        if size_z is not None:
            # picking.py _adjust_variable_spaces_after_intervention: a size intervention sets the low
            # end of the block's and the goal's height ranges to half the new height.
            for name in ("tool_block", "goal_block"):
                low, high = out[name]["cylindrical_position"]
                out[name]["cylindrical_position"] = ([low[0], low[1], size_z / 2], list(high))
    elif task == "pick_and_place":
        wall = scene.obstacles[0].size
        out["obstacle"]["size"] = (
            [wall[0], wall[1], PNP_OBSTACLE_HEIGHT[space][0]],
            [wall[0], wall[1], PNP_OBSTACLE_HEIGHT[space][1]],
        )
        # The block's sector is on one side of the wall, the goal's on the other, both at the block's
        # rest height (after a size intervention, half the new height). Without an inherited side the
        # block's sector follows the block's own side, which keeps block and goal opposite in every
        # episode; CausalWorld's initial spaces put the block's sector at +y although its default
        # block sits at -y, and _adjust_variable_spaces_after_intervention moves the sectors only
        # after a block position or size intervention (protocol_carry_over replays that).
        side = inherited.block_side if inherited is not None and inherited.block_side else _side(scene)
        z = (size_z or scene.blocks[0].size[2]) / 2
        r_low, r_high = PNP_RADIUS[space]
        a_low, a_high = (PNP_ANGLES[0], PNP_ANGLES[1]) if side > 0 else (-PNP_ANGLES[1], -PNP_ANGLES[0])
        out["tool_block"]["cylindrical_position"] = ([r_low, a_low, z], [r_high, a_high, z])
        out["goal_block"]["cylindrical_position"] = ([r_low, -a_high, z], [r_high, -a_low, z])
    elif task == "stacking2":
        # stacking2.py: one goal_tower variable (position with z = the tower's height, and yaw);
        # the goal blocks lose position, yaw and size, the tool blocks lose size.
        tower_height = 2 * scene.goals[0].position[2]  # goal_position[-1] * 2.0
        tower = {
            "cylindrical_position": out["goal_block_1"]["cylindrical_position"],
            "euler_orientation": out["goal_block_1"]["euler_orientation"],
        }
        _pin_z(tower, tower_height)
        for name in ("goal_block_1", "goal_block_2"):
            for prop in ("size", "euler_orientation", "cylindrical_position"):
                out[name].pop(prop)
        for name in ("tool_block_1", "tool_block_2"):
            out[name].pop("size")
        out["goal_tower"] = tower
    elif task == "reaching":
        out["number_of_obstacles"] = (1, 5)  # reaching.py, both spaces
    elif task == "towers":
        _drop_shape_variables(out, scene)
        if space == "A":  # towers.py
            out.update(
                number_of_blocks_in_tower=([1, 1, 1], [4, 4, 4]),
                blocks_mass=(0.02, 0.06),
                tower_dims=([0.08] * 3, [0.12] * 3),
                tower_center=([-0.1, -0.1], [0.05, 0.05]),
            )
        else:
            out.update(
                number_of_blocks_in_tower=([4, 4, 4], [6, 6, 6]),
                blocks_mass=(0.06, 0.08),
                tower_dims=([0.12] * 3, [0.20] * 3),
                tower_center=([0.05, 0.05], [0.1, 0.1]),
            )
    elif task == "general":
        _drop_shape_variables(out, scene)
        if space == "A":  # general.py
            out.update(nums_objects=(1, 5), blocks_mass=(0.02, 0.06), tool_block_size=(0.05, 0.07))
        else:
            out.update(nums_objects=(6, 9), blocks_mass=(0.06, 0.08), tool_block_size=(0.04, 0.05))
    elif task in ("stacked_blocks", "creative_stacked_blocks"):
        _drop_shape_variables(out, scene)
        out.update(STACKED_SPACES[space])
        if task == "creative_stacked_blocks":
            out["number_of_obstacles"] = (1, 5)  # creative_stacked_blocks.py, both spaces
            if space == "A":
                out["stack_levels"] = (3, 5)  # creative_stacked_blocks.py space A (stacked_blocks: 1-5)


#: stacked_blocks.py _set_intervention_space_a/_b (creative_stacked_blocks.py: the same but stack_levels 3-5 in A).
STACKED_SPACES: dict[str, dict[str, Range]] = {
    "A": {
        "stack_levels": (1, 5),
        "blocks_mass": (0.02, 0.06),
        "blocks_min_size": (0.035, 0.065),
        "max_level_width": (0.035, 0.12),
    },
    "B": {
        "stack_levels": (6, 8),
        "blocks_mass": (0.06, 0.08),
        "blocks_min_size": (0.065, 0.075),
        "max_level_width": (0.12, 0.15),
    },
}


def _drop_shape_variables(out: dict[str, Any], scene: Scene) -> None:
    """towers/general/stacked: goal shapes are not variables and blocks have no size variable."""
    for goal in scene.goals:
        out.pop(goal.name, None)
    for block in scene.blocks:
        if block.name in out:
            out[block.name].pop("size", None)


def _single(scene: Scene, space: str, inherited: Inherited | None = None) -> dict[str, Any]:
    out = _base(scene, space)
    _task_overrides(scene, space, out, inherited)
    return out


def _combine(a: Range, b: Range) -> Range:
    """utils/task_utils.py combine_intervention_spaces, element by element: the lower low, and the
    high of the side that has it (on equal lows the larger high)."""
    if not isinstance(a[0], (list, tuple)):
        return (a[0], b[1]) if a[0] < b[0] else (b[0], a[1])
    low, high = [], []
    for i in range(len(a[0])):
        if a[0][i] < b[0][i]:
            low.append(a[0][i])
            high.append(b[1][i])
        elif a[0][i] == b[0][i]:
            low.append(a[0][i])
            high.append(max(a[1][i], b[1][i]))
        else:
            low.append(b[0][i])
            high.append(a[1][i])
    return (low, high)


def task_space(scene: Scene, space: str, inherited: Inherited | None = None) -> dict[str, Any]:
    """The task's space ``space`` (A, B or A_B) for the objects of ``scene``, in CausalWorld names;
    ``inherited``: the edits earlier episodes' interventions made to it (None: the initial space)."""
    if space in ("A", "B"):
        return _single(scene, space, inherited)
    if space != "A_B":
        raise ValueError(f"variable space must be one of {', '.join(SPACES)}, got {space!r}")
    a, b = _single(scene, "A", inherited), _single(scene, "B", inherited)
    out: dict[str, Any] = {}
    for name, value in a.items():
        if isinstance(value, dict):
            out[name] = {prop: _combine(rng, b[name][prop]) for prop, rng in value.items()}
        else:
            out[name] = _combine(value, b[name])
    return out
