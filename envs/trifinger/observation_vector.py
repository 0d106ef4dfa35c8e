"""CausalWorld's structured observation: named entries in its order, scaled to [-1, 1].

Why: an RL policy trained on CausalWorld reads one flat vector whose layout and scaling are fixed by
the task generator (``_task_robot_observation_keys`` then ``_task_stage_observation_keys``) and by
the bounds in ``envs/robot/observations.py`` (robot) and ``envs/scene/objects.py`` /
``envs/scene/silhouette.py`` (blocks, fixed obstacles, goals). Each entry is scaled as
``2 (x - low) / (high - low) - 1`` (``normalize_observation_for_key``), except an object's ``type``,
whose bounds are equal and which CausalWorld leaves unscaled (1 block, 10 fixed obstacle, 20 goal
cuboid). ``layout(...)`` lists the names, so the docs and tests can show exactly what each slot is.

Differences, on purpose: by default values outside CausalWorld's bounds (a block thrown faster than
0.5 m/s) are clipped to the bounds (scaled: to [-1, 1]) so the vector always lies in its gymnasium
Box. CausalWorld does not clip, and some values lie outside its bounds by design: pick_and_place's
wall is 0.5 x 0.015 x 0.065 m against size bounds of 0.03-0.1 m, so its policy was trained seeing
``obstacle_size`` = (12.43, -1.43, 0); ``clip=False`` gives CausalWorld's numbers exactly (what its
trained actors read, ``causalworld_actors``);
families whose object count varies between seeds pad to a fixed count, an absent object's slots
all 0 (type 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agentkit.envs.trifinger.state_snapshot import WorldState

#: envs/robot/observations.py ``_lower_bounds`` / ``_upper_bounds`` (per finger, times 3).
ROBOT_BOUNDS: dict[str, tuple[list[float], list[float]]] = {
    "joint_positions": ([-1.57, -1.2, -3.0] * 3, [1.0, 1.57, 3.0] * 3),
    "joint_velocities": ([-50.0] * 9, [50.0] * 9),
    "end_effector_positions": ([-0.5, -0.5, 0.0] * 3, [0.5, 0.5, 0.5] * 3),
}
#: envs/scene/objects.py ``RigidObject.__init__`` and envs/scene/silhouette.py ``SilhouetteObject``.
OBJECT_BOUNDS: dict[str, tuple[list[float], list[float]]] = {
    "size": ([0.03] * 3, [0.1] * 3),
    "cartesian_position": ([-0.5, -0.5, 0.0], [0.5, 0.5, 0.5]),
    "orientation": ([-10.0] * 4, [10.0] * 4),
    "linear_velocity": ([-0.5] * 3, [0.5] * 3),
    "angular_velocity": ([-np.pi] * 3, [np.pi] * 3),
}
#: ``_define_type_id``: objects.py Cuboid 1, StaticCuboid 10; silhouette.py SCuboid 20.
TYPE_BLOCK, TYPE_OBSTACLE, TYPE_GOAL = 1.0, 10.0, 20.0
#: The keys of each object kind, in the order the task generators list them (pushing.py etc.).
BLOCK_KEYS = ("type", "size", "cartesian_position", "orientation", "linear_velocity", "angular_velocity")
STATIC_KEYS = ("type", "size", "cartesian_position", "orientation")
ROBOT_KEYS = ("time_left_for_task", "joint_positions", "joint_velocities", "end_effector_positions")
#: towers.py and stacked_blocks.py list each block followed by its goal; the others list all blocks,
#: then all goals, then fixed obstacles (pushing.py, picking.py, pick_and_place.py, stacking2.py,
#: creative_stacked_blocks.py, general.py).
INTERLEAVED = ("towers", "stacked_blocks")
#: reaching.py: only the three targets' ``cartesian_position`` (goal_60, goal_120, goal_300).
REACHING_TARGETS = ("goal_60", "goal_120", "goal_300")


@dataclass(frozen=True)
class Entry:
    """One named slice of the vector: ``name`` (e.g. ``tool_block_cartesian_position``), its width,
    unscaled bounds, and what it reads (``source``: robot key, or (kind, index, key))."""

    name: str
    low: tuple[float, ...]
    high: tuple[float, ...]
    source: tuple

    @property
    def width(self) -> int:
        return len(self.low)

    @property
    def scaled(self) -> bool:
        return self.low != self.high


def _object_names(family: str, blocks: int, goals: int) -> tuple[list[str], list[str]]:
    if family in ("pushing", "picking", "pick_and_place"):
        return ["tool_block"] * blocks, ["goal_block"] * goals
    return [f"tool_{i}" for i in range(blocks)], [f"goal_{i}" for i in range(goals)]


def layout(family: str, blocks: int, goals: int, obstacles: int, episode_s: float) -> list[Entry]:
    """The entries of ``family``'s observation with room for these many objects."""
    entries = [Entry("time_left_for_task", (0.0,), (float(episode_s),), ("time_left",))]
    for key in ROBOT_KEYS[1:]:
        low, high = ROBOT_BOUNDS[key]
        entries.append(Entry(key, tuple(low), tuple(high), ("robot", key)))

    def of(kind: str, index: int, name: str) -> list[Entry]:
        keys = BLOCK_KEYS if kind == "block" else STATIC_KEYS
        type_id = {"block": TYPE_BLOCK, "goal": TYPE_GOAL, "obstacle": TYPE_OBSTACLE}[kind]
        out = []
        for key in keys:
            if key == "type":
                out.append(Entry(f"{name}_type", (0.0,), (type_id,), (kind, index, key)))
            else:
                low, high = OBJECT_BOUNDS[key]
                out.append(Entry(f"{name}_{key}", tuple(low), tuple(high), (kind, index, key)))
        return out

    if family == "reaching":
        for i, name in enumerate(REACHING_TARGETS):
            low, high = OBJECT_BOUNDS["cartesian_position"]
            entries.append(Entry(f"{name}_cartesian_position", tuple(low), tuple(high), ("tip_goal", i)))
        blocks = goals = 0  # reaching.py observes its goal spheres' positions only, then any obstacles
    block_names, goal_names = _object_names(family, blocks, goals)
    if family == "stacking2":
        block_names = [f"tool_block_{i + 1}" for i in range(blocks)]
        goal_names = [f"goal_block_{i + 1}" for i in range(goals)]
    if family in INTERLEAVED:
        for i in range(max(blocks, goals)):
            if i < blocks:
                entries += of("block", i, block_names[i])
            if i < goals:
                entries += of("goal", i, goal_names[i])
    else:
        for i in range(blocks):
            entries += of("block", i, block_names[i])
        for i in range(goals):
            entries += of("goal", i, goal_names[i])
    for i in range(obstacles):
        # pick_and_place.py names its wall ``obstacle``; number_of_obstacles adds ``obstacle_<i>``
        # (reaching.py, creative_stacked_blocks.py), each appended to the task's observation keys
        entries += of("obstacle", i, "obstacle" if family == "pick_and_place" else f"obstacle_{i}")
    return entries


def names(entries: list[Entry]) -> list[str]:
    """One name per number of the vector (``joint_positions[3]`` ...)."""
    out = []
    for e in entries:
        out += [e.name] if e.width == 1 else [f"{e.name}[{k}]" for k in range(e.width)]
    return out


def bounds(entries: list[Entry], scaled: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The gymnasium Box of the vector: scaled, [-1, 1]; unscaled, CausalWorld's bounds; type slots [0, type id]."""
    low, high = [], []
    for e in entries:
        if scaled and e.source[-1] != "type":
            low += [-1.0] * e.width
            high += [1.0] * e.width
        else:
            low += list(e.low)
            high += list(e.high)
    return np.array(low, dtype=np.float32), np.array(high, dtype=np.float32)


def _raw(entry: Entry, state: WorldState, time_left: float) -> np.ndarray | None:
    """The unscaled value of ``entry`` in ``state``, or None when its object is absent."""
    source = entry.source
    if source[0] == "time_left":
        return np.array([time_left])
    if source[0] == "robot":
        return {
            "joint_positions": state.joint_positions,
            "joint_velocities": state.joint_velocities,
            "end_effector_positions": np.asarray(state.tips).ravel(),
        }[source[1]]
    if source[0] == "tip_goal":
        return state.tip_goals[source[1]] if source[1] < len(state.tip_goals) else None
    kind, index, key = source
    group = {"block": state.blocks, "goal": state.goals, "obstacle": state.obstacles}[kind]
    if index >= len(group):
        return None
    if key == "type":
        return np.array([entry.high[0]])
    return {
        "size": group[index].size,
        "cartesian_position": group[index].position,
        "orientation": group[index].orientation,
        "linear_velocity": group[index].linear_velocity,
        "angular_velocity": group[index].angular_velocity,
    }[key]


def vector(
    entries: list[Entry], state: WorldState, time_left: float, scaled: bool = True, clip: bool = True
) -> np.ndarray:
    """The observation of ``state`` (float32), as CausalWorld's ``filter_structured_observations``:
    scaled to [-1, 1] (``normalize_observations=True``) or as measured; kept within the bounds
    unless ``clip`` is False (CausalWorld's own numbers, which it never clips)."""
    parts = []
    for e in entries:
        raw = _raw(e, state, time_left)
        if raw is None:
            parts.append(np.zeros(e.width))
        elif e.source[-1] == "type":
            parts.append(np.asarray(raw, dtype=float))
        else:
            low, high = np.asarray(e.low), np.asarray(e.high)
            value = np.asarray(raw, dtype=float)
            value = np.clip(value, low, high) if clip else value
            parts.append(2.0 * (value - low) / (high - low) - 1.0 if scaled else value)
    return np.concatenate(parts).astype(np.float32)
