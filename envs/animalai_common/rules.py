"""Animal-AI's reward, health and end-of-episode rules, apart from any physics.

Why apart: the rules are what scores are compared on, so they are plain arithmetic, tested alone.
They follow Animal-AI v3.1.3's ``TrainingAgent.cs``, ``TrainingArena.cs`` and ``Rewards/*.cs``, and
are applied once per 0.02 s physics update (three per environment step), because that is where
Unity applies them:

* Every update, before physics, ``OnActionReceived`` calls ``UpdateHealth(-1 / timeLimit)`` with
  ``timeLimit = t x decision interval``. The arena reads that interval from the agent prefab's
  ``DecisionRequester`` (5) in ``TrainingArena.Awake``, before ``AAI3EnvironmentManager`` sets it to
  the real decision period (3). So an update costs ``1 / (5 t)`` (0 when t = 0), a step 0.6 / t, and
  health (100, moving by 100 x reward, capped at 100) reaches 0 after 5 t updates: an episode of
  time limit t lasts ceil(5 t / 3) steps.
* A goal touched during an update gives ``sign x 0.999 x size`` (``Prefab.sizeAdjustement`` scales the
  size it is built with; ``BallGoal.SetSize`` sets the reward from that size): GoodGoal and BadGoal end
  the episode; GoodGoalMulti ends it when the number collected reaches the number of good goals
  spawned (GoodGoal and GoodGoalMulti, ``ArenaBuilders.updateGoodGoalsMulti``).
* A DeathZone (a Goal of reward -1) gives -1 and ends the episode.
* A HotZone adds ``min(10 x (-1 / timeLimit), -0.001)`` = ``min(-2 / t, -0.001)`` every update the agent
  is inside it (``HotZone.OnTriggerStay`` -> ``TrainingAgent.AddExtraReward``), on top of the normal
  cost; health reaching 0 there ends the episode (reported as a death).
* Health reaching 0 ends the episode whatever the cause.

Judgement: an episode passes when its final reward reaches the arena's pass mark (``suites.passed``,
the Testbed's criterion, also what ``TrainingAgent.UpdateHealth`` compares for its notification), however
it ended, so picking the smaller of two goals in a preference task fails even though it ends the episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agentkit.envs.animalai_common.motion import DECISION_PERIOD
from agentkit.envs.animalai_common.suites import passed
from agentkit.records import EndReason

MAX_HEALTH = 100.0  # TrainingAgent.cs: _maxHealth
CLOCK_DECISION_INTERVAL = 5  # AAI3Agent.prefab: DecisionRequester.DecisionPeriod, read by TrainingArena.Awake
HOT_ZONE_FACTOR = (
    10.0  # Rewards/HotZone.prefab: reward (the factor AddExtraReward multiplies the update cost by)
)
HOT_ZONE_MIN_COST = -0.001  # TrainingAgent.AddExtraReward: Math.Min(factor * rewardPerStep, -0.001f)
DEATH_ZONE_REWARD = -1.0  # Rewards/DeathZone.prefab: reward
_EPS = 1e-9


def update_cost(t: int) -> float:
    """Reward of one physics update in an arena of time limit ``t`` (TrainingAgent._rewardPerStep)."""
    return -1.0 / (t * CLOCK_DECISION_INTERVAL) if t > 0 else 0.0


def hot_zone_cost(t: int) -> float:
    """The extra reward of one update inside a HotZone."""
    return min(HOT_ZONE_FACTOR * update_cost(t), HOT_ZONE_MIN_COST)


def episode_steps(t: int) -> int | None:
    """Environment steps an idle episode of time limit ``t`` lasts (None when t = 0: no limit)."""
    if t <= 0:
        return None
    updates = t * CLOCK_DECISION_INTERVAL
    return -(-updates // DECISION_PERIOD)


@dataclass(frozen=True)
class GoalTouch:
    """A goal the agent touched: its reward and what it does to the episode."""

    reward: float  # sign x size as built
    good: bool
    multi: bool
    # A goal the arena builder never counted (a button's reward, a decoy) keeps its prefab's
    # Goal.numberOfGoals, 1; None: the arena's count of good goals.
    own_count: int | None = None
    exact_count: bool = False  # v3.1.3 Goal.cs ends a multi goal at collected == numberOfGoals, v4.1.0 at >=


@dataclass
class UpdateEvents:
    """What happened to the agent during one physics update."""

    touched: list[GoalTouch] = field(default_factory=list)
    in_death_zone: bool = False
    # HotZone charges: one per zone the agent is in, one more per zone entered in this update
    # (HotZone.OnTriggerStay and OnTriggerEnter both call TrainingAgent.AddExtraReward)
    hot_zone_charges: int = 0
    frozen: bool = (
        False  # TrainingAgent.UpdateHealth: while frozen no reward counts (the episode may still end)
    )


@dataclass(frozen=True)
class StepOutcome:
    reward: float
    done: bool
    success: bool
    end_reason: EndReason | None


class EpisodeRules:
    """Running health, reward and the end of one episode."""

    def __init__(self, t: int, pass_mark: float | None, good_goals: int) -> None:
        self.t = t
        self.pass_mark = pass_mark
        self.update_cost = update_cost(t)
        self.hot_cost = hot_zone_cost(t)
        self.health = MAX_HEALTH
        self.total_reward = 0.0
        self.steps = 0
        self.updates = 0
        self.good_goals = good_goals
        self.collected = 0
        self.done = False
        self._frozen = False
        self.success: bool | None = None
        self.end_reason: EndReason | None = None

    def add_good_goals(self, n: int) -> None:
        """Goals a spawner dropped join the good goals a multi goal waits for (AddToGoodGoalsMultiSpawned)."""
        self.good_goals += n

    def zone_reward(self, name: str) -> float:
        """What a zone gives (for the privileged state): -1 once for a DeathZone, per update for a HotZone."""
        return DEATH_ZONE_REWARD if name == "DeathZone" else self.hot_cost

    def advance(self, updates: Sequence[UpdateEvents]) -> StepOutcome:
        """Account for one environment step made of ``updates``; stops at the update that ends it."""
        if self.done:
            raise RuntimeError("the episode is over")
        self.steps += 1
        before = self.total_reward
        for update in updates:
            self.updates += 1
            self._frozen = update.frozen
            if self._apply(self.update_cost, EndReason.TIME_LIMIT):
                break
            if update.in_death_zone and self._apply(DEATH_ZONE_REWARD, EndReason.DIED, end=True):
                break
            if self._goals(update.touched):
                break
            if any(self._apply(self.hot_cost, EndReason.DIED) for _ in range(update.hot_zone_charges)):
                break
        return StepOutcome(self.total_reward - before, self.done, bool(self.success), self.end_reason)

    def _goals(self, touched: Sequence[GoalTouch]) -> bool:
        for goal in touched:
            if goal.good or goal.multi:  # Goal.OnCollisionEnter: every multi goal counts as collected
                self.collected += 1
            total = self.good_goals if goal.own_count is None else goal.own_count
            reached = self.collected == total if goal.exact_count else self.collected >= total
            ends = not goal.multi or reached
            reason = EndReason.GOAL if goal.good else EndReason.FAILED
            if self._apply(goal.reward, reason, end=ends):
                return True
        return False

    def _apply(self, reward: float, reason: EndReason, end: bool = False) -> bool:
        """``UpdateHealth``: add ``reward``; end the episode when asked to or when health runs out."""
        if self._frozen:  # TrainingAgent.UpdateHealth: a frozen agent's health and reward do not move
            reward = 0.0
        self.total_reward += reward
        self.health = min(MAX_HEALTH, self.health + 100.0 * reward)
        if self.health <= _EPS:
            self.health = 0.0
            self._end(reason)
        elif end:
            self._end(reason)
        return self.done

    def _end(self, reason: EndReason) -> None:
        self.done = True
        self.success = passed(self.total_reward, self.pass_mark)
        if reason == EndReason.GOAL and not self.success:
            reason = EndReason.FAILED
        self.end_reason = reason
