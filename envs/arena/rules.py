"""Animal-AI's reward, health and end-of-episode rules, apart from any physics.

Why apart: the rules are what scores are compared on, so they are plain arithmetic, tested alone.
Per step (``data/README.md``, Animal-AI 3 docs):

* the step costs ``-1/t`` (0 when t = 0); inside a HotZone it costs ten times that (``-10/t``, or
  ``-1e-5`` when t = 0), instead of the normal cost;
* health starts at 100, moves by 100 x reward, is capped at 100, and the episode ends at 0: with no
  goal that happens exactly at step t (reported as a time limit; in a HotZone as death);
* a goal gives sign x size (its diameter): GoodGoal +size and ends the episode; GoodGoalMulti +size,
  ending it only when it was the last good goal (GoodGoals count too, as in Animal-AI); BadGoal
  -size and ends it; a DeathZone gives -1 and ends it (it prevails over everything else that step).

An episode ended by good goals succeeds when its total reward reaches the arena's pass mark (the
Testbed's criterion, ``suites.passed``), so picking the smaller of two goals in a preference task is
a failure even though it ends the episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentkit.envs.arena.suites import passed
from agentkit.records import EndReason

MAX_HEALTH = 100.0
HOT_FACTOR = 10.0
HOT_COST_UNTIMED = -1e-5
DEATH_ZONE_REWARD = -1.0
_EPS = 1e-9


@dataclass(frozen=True)
class GoalTouch:
    """A goal the agent touched this step: its reward and what it does to the episode."""

    reward: float  # sign x size
    good: bool
    multi: bool


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
        self.step_cost = -1.0 / t if t > 0 else 0.0
        self.hot_cost = HOT_FACTOR * self.step_cost if t > 0 else HOT_COST_UNTIMED
        self.health = MAX_HEALTH
        self.total_reward = 0.0
        self.steps = 0
        self.good_left = good_goals
        self.done = False
        self.success: bool | None = None
        self.end_reason: EndReason | None = None

    def zone_reward(self, name: str) -> float:
        """What a zone gives (for the privileged state): -1 once for a DeathZone, the step cost for a HotZone."""
        return DEATH_ZONE_REWARD if name == "DeathZone" else self.hot_cost

    def advance(self, touched: Sequence[GoalTouch] = (), in_death_zone: bool = False,
                in_hot_zone: bool = False) -> StepOutcome:
        """Account for one step in which the agent touched ``touched`` and stood where it stood."""
        if self.done:
            raise RuntimeError("the episode is over")
        self.steps += 1
        reward = self.hot_cost if in_hot_zone else self.step_cost
        reward += sum(g.reward for g in touched)
        if in_death_zone:
            reward += DEATH_ZONE_REWARD
        self.total_reward += reward
        self.health = min(MAX_HEALTH, self.health + 100.0 * reward)
        self.good_left -= sum(1 for g in touched if g.good)
        bad = any(not g.good for g in touched)
        good_end = any(g.good and not g.multi for g in touched) or (
            any(g.good for g in touched) and self.good_left <= 0
        )
        if in_death_zone:
            self._end(False, EndReason.DIED)
        elif bad:
            self._end(False, EndReason.FAILED)
        elif self.health <= _EPS:
            self.health = 0.0
            self._end(False, EndReason.DIED if in_hot_zone else EndReason.TIME_LIMIT)
        elif good_end:
            ok = passed(self.total_reward, self.pass_mark)
            self._end(ok, EndReason.GOAL if ok else EndReason.FAILED)
        self.health = max(self.health, 0.0)
        return StepOutcome(reward, self.done, bool(self.success), self.end_reason)

    def _end(self, success: bool, reason: EndReason) -> None:
        self.done = True
        self.success = success
        self.end_reason = reason
