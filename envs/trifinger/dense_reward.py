"""CausalWorld's dense reward, per task, evaluated at every 40 ms control step.

Why: an RL user (and a researcher comparing returns) needs the reward CausalWorld trains with, not
our change-of-overlap. Every task generator in CausalWorld computes a list of terms in
``_calculate_dense_rewards``, multiplies them by its default ``dense_reward_weights``, adds
``fractional_reward_weight`` times the goal reward (``_goal_reward``) and the environment scales the
sum by the control period (``envs/causalworld.py`` ``step``: ``reward *= self.dt`` with
``_scale_reward_by_dt = True``, dt = 0.04 s). The terms are ported here from each task's file; the
comment at each class names it. Terms that compare with the previous step keep that state, reset at
the start of an episode as the task's ``_set_task_state`` does.

Block identities: ``tool_block`` is block 0 and ``goal_block`` goal 0; stacking2's ``tool_block_1``
/ ``tool_block_2`` are blocks 0 / 1 and ``goal_block_1`` / ``goal_block_2`` its lower / upper goal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agentkit.envs.trifinger.causalworld_profile import box_overlap, reaching_error
from agentkit.envs.trifinger.state_snapshot import WorldState
from agentkit.envs.trifinger.world import CONTROL_STEP_S


@dataclass(frozen=True)
class RewardSpec:
    """A task's default weights (``dense_reward_weights``, ``fractional_reward_weight``)."""

    weights: tuple[float, ...]
    fractional_weight: float


#: Each task generator's constructor defaults (causal_world/task_generators/<task>.py).
REWARD_SPECS: dict[str, RewardSpec] = {
    "pushing": RewardSpec((750.0, 250.0, 100.0), 1.0),  # pushing.py
    "picking": RewardSpec((250.0, 0.0, 125.0, 0.0, 750.0, 0.0, 0.0, 0.005), 1.0),  # picking.py
    "pick_and_place": RewardSpec((750.0, 50.0, 250.0, 0.0, 0.005), 0.0),  # pick_and_place.py
    "stacking2": RewardSpec((750.0, 250.0, 250.0, 125.0, 0.005), 1.0),  # stacking2.py
    "towers": RewardSpec((), 1.0),  # towers.py
    "stacked_blocks": RewardSpec((), 1.0),  # stacked_blocks.py
    "creative_stacked_blocks": RewardSpec((), 1.0),  # creative_stacked_blocks.py
    "general": RewardSpec((), 1.0),  # general.py
    "reaching": RewardSpec((100000.0, 0.0, 0.0, 0.0), 1.0),  # reaching.py
}
#: pick_and_place.py ``_calculate_dense_rewards``: the carry height while the block is on the wrong
#: side of the wall (``target_height = 0.15``).
PICK_AND_PLACE_CARRY_HEIGHT = 0.15
#: stacking2.py: the lower block counts as placed within 2 cm of its goal, the upper block as above
#: the lower one within 5 mm horizontally.
STACKING2_PLACED = 0.02
STACKING2_ABOVE = 0.005


def _quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of (x, y, z, w) quaternions (utils/rotation_utils.py ``quaternion_mul``)."""
    x0, y0, z0, w0 = a
    x1, y1, z1, w1 = b
    return np.array(
        [
            w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1,
            w0 * y1 + y0 * w1 + z0 * x1 - x0 * z1,
            w0 * z1 + z0 * w1 + x0 * y1 - y0 * x1,
            w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1,
        ]
    )


def angle_to_goal(goal_orientation: np.ndarray, orientation: np.ndarray) -> float:
    """``2 * arccos(clip(w))`` of goal * conjugate(block), as pushing.py / pick_and_place.py compute it."""
    conjugate = np.array([-orientation[0], -orientation[1], -orientation[2], orientation[3]])
    return float(2.0 * np.arccos(np.clip(_quat_mul(goal_orientation, conjugate)[3], -1.0, 1.0)))


class DenseReward:
    """The running CausalWorld reward of one episode of ``family`` (``reset`` then ``step`` per 40 ms)."""

    def __init__(self, family: str) -> None:
        if family not in REWARD_SPECS:
            raise ValueError(
                f"no CausalWorld dense reward for task {family!r}; known: {', '.join(REWARD_SPECS)}"
            )
        self.family = family
        self.spec = REWARD_SPECS[family]
        self.total = 0.0
        self.last_terms: list[float] = []
        #: the goal reward of the last step (``_goal_reward``), which fractional success derives from
        self.last_goal_reward: float | None = None
        self._previous: WorldState | None = None
        self._start: WorldState | None = None

    def reset(self, state: WorldState) -> None:
        """The task's ``_set_task_state``: remember the starting state; the total restarts at 0."""
        self._previous = self._start = state
        self.total = 0.0
        self.last_terms = []
        self.last_goal_reward = None

    def step(self, state: WorldState, dt: float = CONTROL_STEP_S) -> float:
        """The reward of the control step that ended in ``state``, scaled by its length ``dt`` (s) as
        ``causalworld.py step`` scales by ``self.dt`` = ``skip_frame`` x 4 ms, added to ``total``."""
        previous = self._previous
        if previous is None:
            self.reset(state)
            previous = state
        terms = self.terms(previous, state)
        goal = self.goal_reward(state)
        reward = (
            float(np.dot(terms, self.spec.weights)) if len(terms) else 0.0
        ) + goal * self.spec.fractional_weight
        reward *= dt
        self.last_terms = list(terms)
        self.last_goal_reward = goal
        self._previous = state
        self.total += reward
        return reward

    def goal_reward(self, state: WorldState) -> float:
        """base_task.py ``_goal_reward`` (reaching.py's for reaching)."""
        if self.family == "reaching":
            return reaching_error(state.tips, state.tip_goals)
        return box_overlap([b.aabb() for b in state.blocks], [g.aabb() for g in state.goals])

    def terms(self, before: WorldState, now: WorldState) -> list[float]:
        method = getattr(self, f"_{self.family}", None)
        return method(before, now) if method is not None else []

    # -- one method per task generator, in its own term order ------------------------------------

    @staticmethod
    def _pushing(before: WorldState, now: WorldState) -> list[float]:
        """pushing.py: fingers closer to the block, block closer to the goal, orientation closer."""
        block, old, goal = now.blocks[0], before.blocks[0], now.goals[0]
        return [
            float(np.linalg.norm(before.tips - old.position) - np.linalg.norm(now.tips - block.position)),
            float(
                np.linalg.norm(goal.position - old.position) - np.linalg.norm(goal.position - block.position)
            ),
            angle_to_goal(goal.orientation, old.orientation)
            - angle_to_goal(goal.orientation, block.orientation),
        ]

    @staticmethod
    def _picking(before: WorldState, now: WorldState) -> list[float]:
        """picking.py: height to the goal (delta, absolute), distance to the centre (delta, absolute),
        fingers to the block (delta, absolute), the two closest fingers outside the block's box, and
        the change of joint velocities."""
        block, old = now.blocks[0], before.blocks[0]
        target = now.goals[0].position[2]
        to_goal_before, to_goal = abs(old.position[2] - target), abs(block.position[2] - target)
        centre_before, centre = float(np.hypot(*old.position[:2])), float(np.hypot(*block.position[:2]))
        fingers_before = float(np.linalg.norm(before.tips - old.position))
        fingers = float(np.linalg.norm(now.tips - block.position))
        outside = np.abs(now.tips - block.position)
        outside[outside < block.size] = 0.0
        closest_two = np.sort(outside.mean(axis=1))[:2]
        return [
            to_goal_before - to_goal,
            -to_goal,
            centre_before - centre,
            -centre,
            fingers_before - fingers,
            -fingers,
            -float(closest_two.sum()),
            -float(np.linalg.norm(now.joint_velocities - before.joint_velocities)),
        ]

    def _pick_and_place(self, before: WorldState, now: WorldState) -> list[float]:
        """pick_and_place.py: fingers to the block, horizontal distance to the goal, height towards
        0.15 m while on the wrong side of the wall (else the goal's half height), orientation, and the
        change of joint velocities measured, as the source does, against the episode's start."""
        block, old, goal = now.blocks[0], before.blocks[0], now.goals[0]
        if np.sign(block.position[1]) != np.sign(goal.position[1]):
            height = PICK_AND_PLACE_CARRY_HEIGHT
        else:
            height = goal.size[2] / 2.0
        start = self._start if self._start is not None else before
        return [
            float(np.linalg.norm(before.tips - old.position) - np.linalg.norm(now.tips - block.position)),
            float(
                np.linalg.norm(goal.position[:2] - old.position[:2])
                - np.linalg.norm(goal.position[:2] - block.position[:2])
            ),
            abs(old.position[2] - height) - abs(block.position[2] - height),
            angle_to_goal(goal.orientation, old.orientation)
            - angle_to_goal(goal.orientation, block.orientation),
            -float(np.linalg.norm(now.joint_velocities - start.joint_velocities)),
        ]

    @staticmethod
    def _stacking2(before: WorldState, now: WorldState) -> list[float]:
        """stacking2.py: first bring the lower block to its goal (fingers to it, it to the goal); once
        within 2 cm, the fingers to the upper block, its height towards its goal unless already above
        the lower block, and (when higher than its goal) the horizontal gap between the two blocks."""
        terms = [0.0] * 5
        lower_goal, upper_goal = sorted(now.goals[:2], key=lambda g: g.position[2])
        b1, b2 = now.blocks[0].position, now.blocks[1].position
        o1, o2 = before.blocks[0].position, before.blocks[1].position
        if np.linalg.norm(b1 - lower_goal.position) >= STACKING2_PLACED:
            terms[0] = float(np.linalg.norm(before.tips - o1) - np.linalg.norm(now.tips - b1))
            terms[1] = float(
                np.linalg.norm(lower_goal.position - o1) - np.linalg.norm(lower_goal.position - b1)
            )
        else:
            terms[0] = float(np.linalg.norm(before.tips - o2) - np.linalg.norm(now.tips - b2))
            if np.linalg.norm(b1[:2] - b2[:2]) >= STACKING2_ABOVE:
                terms[2] = abs(o2[2] - upper_goal.position[2]) - abs(b2[2] - upper_goal.position[2])
            if b2[2] > upper_goal.position[2]:
                terms[3] = float(np.linalg.norm(o1[:2] - o2[:2]) - np.linalg.norm(b1[:2] - b2[:2]))
        terms[4] = -float(np.linalg.norm(now.joint_velocities - before.joint_velocities))
        return terms

    @staticmethod
    def _reaching(before: WorldState, now: WorldState) -> list[float]:
        """reaching.py: tips closer to their targets (delta, absolute), torque norm, velocity change."""
        goal = now.tip_goals.ravel()
        before_distance = float(np.linalg.norm(goal - before.tips.ravel()))
        distance = float(np.linalg.norm(goal - now.tips.ravel()))
        return [
            before_distance - distance,
            -distance,
            -float(np.linalg.norm(now.joint_torques)),
            -float(np.linalg.norm(np.abs(now.joint_velocities - before.joint_velocities))),
        ]
