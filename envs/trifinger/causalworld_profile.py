"""The ``causalworld`` and ``agentkit`` profiles: how an episode is timed and judged.

Why: researchers compare language models with CausalWorld's RL results, so by default the benchmark
tasks run as CausalWorld runs them: its episode lengths, its success measure (axis-aligned
fractional overlap > 0.9) and its dense reward, reported per episode. The ``agentkit`` profile keeps
this project's earlier choices (the task's own time limit, exact oriented overlap > 0.9) for runs
that want them. Both report both overlaps, clearly named.

Sources (rr-learning/CausalWorld, MIT):

* ``task_generators/base_task.py`` ``get_default_max_episode_length``: 5 s for reaching, otherwise
  10 s per rigid object on the stage (fixed ones included: pick_and_place's wall counts);
* ``task_generators/base_task.py`` ``_goal_reward`` / ``_check_preliminary_success``: summed
  intersections of axis-aligned bounding boxes over summed goal box volumes, success above 0.9;
* ``task_generators/reaching.py`` ``_goal_reward`` / ``_check_preliminary_success``: the mean absolute
  coordinate error of the three fingertips, success below 0.01 m.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agentkit.envs.trifinger.geometry import Cuboid
from agentkit.envs.trifinger.overlap import OverlapMode, aabb_overlap, overlap

PROFILES: tuple[str, ...] = ("causalworld", "agentkit")
DEFAULT_PROFILE = "causalworld"
#: The task families the causalworld profile is the default for (all of CausalWorld's generators).
BENCHMARK_FAMILIES: tuple[str, ...] = (
    "pushing",
    "picking",
    "pick_and_place",
    "stacking2",
    "towers",
    "stacked_blocks",
    "creative_stacked_blocks",
    "general",
    "reaching",
)
#: base_task.py ``get_default_max_episode_length``: ``episode_length = len(rigid objects) * 10``.
SECONDS_PER_RIGID_OBJECT = 10.0
#: base_task.py ``get_default_max_episode_length``: ``if task_name == 'reaching': episode_length = 5``.
REACHING_EPISODE_S = 5.0
#: base_task.py ``_check_preliminary_success``: ``if goal_reward > 0.9``.
OVERLAP_SUCCESS = 0.9
#: reaching.py ``_check_preliminary_success``: ``if goal_reward < 0.01`` (mean absolute error, m).
REACHING_SUCCESS_ERROR = 0.01
#: reaching.py ``_calculate_fractional_success``: the mean error is clipped to [0.01, 0.03] m and
#: mapped linearly to 1..0 (1 at or below the success error, 0 at or beyond 3 cm).
REACHING_NO_SUCCESS_ERROR = 0.03
#: agentkit's reaching score: a tip this far (m) from its target scores 0.
AGENTKIT_REACH_SCALE = 0.05


def check_profile(profile: str) -> str:
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    return profile


def episode_length_s(family: str, rigid_objects: int) -> float:
    """CausalWorld's episode length for ``family`` with ``rigid_objects`` blocks and fixed obstacles."""
    if family == "reaching":
        return REACHING_EPISODE_S
    return SECONDS_PER_RIGID_OBJECT * rigid_objects


def causalworld_overlap(blocks: Sequence[Cuboid], goals: Sequence[Cuboid]) -> float:
    """base_task.py ``_goal_reward``: the blocks' AABBs (pybullet ``getAABB`` of a box is exact) against
    the goals' vertex AABBs, intersections summed over summed goal volumes (1.0 with no goal)."""
    return aabb_overlap(blocks, goals)


def box_overlap(
    blocks: Sequence[tuple[np.ndarray, np.ndarray]], goals: Sequence[tuple[np.ndarray, np.ndarray]]
) -> float:
    """``causalworld_overlap`` on boxes given as (low, high) corners (the dense reward's fast path)."""
    union = 0.0
    intersection = 0.0
    for g_low, g_high in goals:
        union += float(np.prod(g_high - g_low))
        for low, high in blocks:
            extent = np.minimum(high, g_high) - np.maximum(low, g_low)
            if np.all(extent > 0):
                intersection += float(np.prod(extent))
    return intersection / union if union > 0 else 1.0


def reaching_error(tips: np.ndarray, tip_goals: np.ndarray) -> float:
    """reaching.py ``_goal_reward``: ``mean(abs(desired_goal - end_effector_positions))`` over all 9 coordinates."""
    return float(
        np.mean(np.abs(np.asarray(tip_goals, dtype=float).ravel() - np.asarray(tips, dtype=float).ravel()))
    )


def reaching_fractional_success(error: float) -> float:
    """reaching.py ``_calculate_fractional_success``: ``1 - (clip(error, 0.01, 0.03) - 0.01) / 0.02``
    for the mean absolute tip error (``reaching_error``), so the figure CausalWorld's evaluation
    averages is 1 for a solved reach and 0 from 3 cm out, not the raw error."""
    span = REACHING_NO_SUCCESS_ERROR - REACHING_SUCCESS_ERROR
    clipped = min(max(error, REACHING_SUCCESS_ERROR), REACHING_NO_SUCCESS_ERROR)
    return 1.0 - (clipped - REACHING_SUCCESS_ERROR) / span


def fractional_success(family: str, goal_reward: float) -> float:
    """CausalWorld's ``info['fractional_success']`` from its goal reward: reaching's clipped mapping of
    the tip error; every other task reports its goal reward, the overlap (``base_task.py``)."""
    return reaching_fractional_success(goal_reward) if family == "reaching" else goal_reward


def agentkit_reach_score(tips: np.ndarray, tip_goals: np.ndarray) -> float:
    distances = np.linalg.norm(np.asarray(tips) - np.asarray(tip_goals), axis=1)
    return float(np.clip(1.0 - distances / AGENTKIT_REACH_SCALE, 0.0, 1.0).mean())


@dataclass(frozen=True)
class Verdict:
    """Whether the state counts as solved, by which measure, and the measured value."""

    success: bool
    measure: str
    value: float


def _reach_arrays(
    tips: np.ndarray | None, tip_goals: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """(tips, tip_goals) when the state is a reaching one (``tip_goals`` non-empty), else None."""
    if tip_goals is None or len(tip_goals) == 0:
        return None
    if tips is None:
        raise ValueError("judge: a reaching state (tip_goals given) needs the fingertip positions (tips)")
    return tips, tip_goals


def judge(
    profile: str,
    blocks: Sequence[Cuboid],
    goals: Sequence[Cuboid],
    tips: np.ndarray | None = None,
    tip_goals: np.ndarray | None = None,
    overlap_mode: OverlapMode = "volumetric",
) -> Verdict:
    """The profile's success verdict for one state (reaching when ``tip_goals`` is non-empty)."""
    reach = _reach_arrays(tips, tip_goals)
    if profile == "causalworld":
        if reach is not None:
            error = reaching_error(*reach)
            return Verdict(error < REACHING_SUCCESS_ERROR, "causalworld_reaching_mean_abs_error<0.01", error)
        value = causalworld_overlap(blocks, goals)
        return Verdict(value > OVERLAP_SUCCESS, "causalworld_aabb_overlap>0.9", value)
    check_profile(profile)
    if reach is not None:
        score = agentkit_reach_score(*reach)
        return Verdict(score > OVERLAP_SUCCESS, "agentkit_reach_score>0.9", score)
    value = overlap(blocks, goals, overlap_mode)
    return Verdict(value > OVERLAP_SUCCESS, f"{overlap_mode}_overlap>0.9", value)
