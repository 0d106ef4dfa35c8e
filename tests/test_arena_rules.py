"""Animal-AI's reward, health and lights rules, on their own (no physics)."""

from __future__ import annotations

import pytest

from agentkit.envs.animalai_common import motion
from agentkit.envs.animalai_common.lights import lights_on
from agentkit.envs.animalai_common.rules import (
    EpisodeRules,
    GoalTouch,
    UpdateEvents,
    episode_steps,
    hot_zone_cost,
    update_cost,
)
from agentkit.records import EndReason

GOOD = GoalTouch(reward=2.0, good=True, multi=False)
MULTI = GoalTouch(reward=1.0, good=True, multi=True)
BAD = GoalTouch(reward=-1.5, good=False, multi=False)
QUIET = [UpdateEvents() for _ in range(motion.DECISION_PERIOD)]


def step(*first: UpdateEvents) -> list[UpdateEvents]:
    """One environment step: the given updates first, quiet ones after, three in all."""
    return [*first, *[UpdateEvents() for _ in range(motion.DECISION_PERIOD - len(first))]]


def test_the_clock_helpers_follow_the_source():
    """TrainingArena.ResetArena: timeLimit = t x 5 (the agent prefab's DecisionRequester period, read
    before it is set to 3); TrainingAgent: -1 / timeLimit per update; AddExtraReward: min(10 x that, -0.001)."""
    assert update_cost(250) == pytest.approx(-1 / 1250) and update_cost(0) == 0.0
    assert hot_zone_cost(250) == pytest.approx(-0.008) and hot_zone_cost(5000) == pytest.approx(-0.001)
    assert hot_zone_cost(0) == pytest.approx(-0.001)
    assert episode_steps(250) == 417 and episode_steps(500) == 834 and episode_steps(1000) == 1667
    assert episode_steps(0) is None


def test_each_step_costs_0_6_over_t_and_health_runs_out_at_update_5t():
    rules = EpisodeRules(t=250, pass_mark=0, good_goals=1)
    for n in range(1, 417):
        outcome = rules.advance(QUIET)
        assert outcome.reward == pytest.approx(-0.6 / 250)
        assert not outcome.done, n
    assert rules.health == pytest.approx(100 - 416 * 0.24)
    last = rules.advance(QUIET)
    assert last.done and not last.success and last.end_reason == EndReason.TIME_LIMIT
    assert rules.updates == 1250  # the step's second update ends it
    assert rules.health == 0.0 and rules.total_reward == pytest.approx(-1.0)
    with pytest.raises(RuntimeError):
        rules.advance(QUIET)


def test_no_time_limit_means_no_step_cost():
    rules = EpisodeRules(t=0, pass_mark=0, good_goals=1)
    for _ in range(5000):
        assert rules.advance(QUIET).reward == 0.0
    assert not rules.done and rules.health == 100.0


def test_a_good_goal_gives_its_reward_and_ends_the_episode_in_its_update():
    rules = EpisodeRules(t=100, pass_mark=1, good_goals=1)
    outcome = rules.advance(step(UpdateEvents([GOOD])))
    assert outcome.reward == pytest.approx(2.0 - 1 / 500)  # one update's clock, then the goal
    assert outcome.done and outcome.success and outcome.end_reason == EndReason.GOAL
    assert rules.health == 100.0 and rules.updates == 1  # capped; the later updates never happen


def test_a_good_goal_below_the_pass_mark_ends_the_episode_as_a_failure():
    rules = EpisodeRules(t=100, pass_mark=3, good_goals=2)
    outcome = rules.advance(step(UpdateEvents([GOOD])))
    assert outcome.done and not outcome.success and outcome.end_reason == EndReason.FAILED


def test_multi_goals_end_the_episode_only_when_the_last_good_goal_is_taken():
    rules = EpisodeRules(t=0, pass_mark=2, good_goals=3)
    assert not rules.advance(step(UpdateEvents([MULTI]))).done
    assert not rules.advance(step(UpdateEvents(), UpdateEvents([MULTI]))).done
    last = rules.advance(step(UpdateEvents([MULTI])))
    assert last.done and last.success and rules.total_reward == pytest.approx(3.0)
    with_good_goal = EpisodeRules(t=0, pass_mark=0, good_goals=2)  # a GoodGoal counts as a good goal
    assert not with_good_goal.advance(step(UpdateEvents([MULTI]))).done
    assert with_good_goal.advance(step(UpdateEvents([GOOD]))).done
    two_in_one_update = EpisodeRules(t=0, pass_mark=0, good_goals=2)
    assert two_in_one_update.advance(step(UpdateEvents([MULTI, MULTI]))).done


def test_bad_goals_and_death_zones_end_the_episode():
    rules = EpisodeRules(t=100, pass_mark=0, good_goals=1)
    outcome = rules.advance(step(UpdateEvents(), UpdateEvents([BAD])))
    assert outcome.reward == pytest.approx(-1.5 - 2 / 500) and outcome.end_reason == EndReason.FAILED
    rules = EpisodeRules(t=100, pass_mark=0, good_goals=1)
    outcome = rules.advance(step(UpdateEvents([GOOD], in_death_zone=True)))  # the death zone prevails
    assert outcome.end_reason == EndReason.DIED and not outcome.success and outcome.done
    assert outcome.reward == pytest.approx(-1.0 - 1 / 500)


def test_a_hot_zone_adds_its_extra_every_update_on_top_of_the_clock():
    rules = EpisodeRules(t=100, pass_mark=0, good_goals=1)
    hot = [UpdateEvents(hot_zone_charges=1) for _ in range(motion.DECISION_PERIOD)]
    per_update = -1 / 500 + min(-10 / 500, -0.001)  # -0.022
    assert rules.advance(hot).reward == pytest.approx(3 * per_update)
    while not rules.done:
        rules.advance(hot)
    assert rules.end_reason == EndReason.DIED and rules.updates == 46  # 46 x 0.022 >= 1 > 45 x 0.022
    assert rules.steps == 16
    assert EpisodeRules(t=0, pass_mark=0, good_goals=1).advance(hot).reward == pytest.approx(-0.003)
    one_update = EpisodeRules(t=100, pass_mark=0, good_goals=1)
    assert one_update.advance(step(UpdateEvents(hot_zone_charges=1))).reward == pytest.approx(
        3 * -1 / 500 - 0.02
    )


def test_a_hot_zone_charges_twice_in_the_update_the_agent_enters_it():
    """HotZone.cs: OnTriggerEnter and OnTriggerStay both call TrainingAgent.AddExtraReward(10), i.e.
    UpdateHealth(Min(10 x -1/(5t), -0.001)); in the update the agent comes in both are called."""
    rules = EpisodeRules(t=100, pass_mark=0, good_goals=1)
    entering = [UpdateEvents(hot_zone_charges=2), UpdateEvents(hot_zone_charges=1), UpdateEvents()]
    assert rules.advance(entering).reward == pytest.approx(3 * -1 / 500 + 3 * min(10 * -1 / 500, -0.001))


def test_no_pass_mark_passes_on_a_positive_reward():
    rules = EpisodeRules(t=100, pass_mark=None, good_goals=1)
    assert rules.advance(step(UpdateEvents([GOOD]))).success


@pytest.mark.parametrize(
    ("blackouts", "dark"),
    [
        # Lights.cs: frame f toggles the lights at update 5 f (the decision interval the arena read, 5);
        # the observation after k steps is update 3 k, so a toggle shows from step ceil(5 f / 3).
        ((), []),
        ((15, 60), list(range(25, 100))),  # updates 75 and 300: steps 25 and 100
        ((5, 10, 15, 20, 25), [*range(9, 17), *range(25, 34), *range(42, 100)]),  # updates 25, 50, ..., 125
        ((-20,), [*range(34, 67)]),  # every 100 updates: steps 34, 67, 100, ...
        ((0, 50), list(range(0, 84))),  # updates 0 and 250
    ],
)
def test_blackouts_switch_the_lights_at_five_thirds_of_the_listed_frames(blackouts, dark):
    assert [f for f in range(100) if not lights_on(f, blackouts)] == dark


def test_motion_model_calibration():
    """The per-update model the world applies (TrainingAgent.MoveAgent, PhysX): the equations' numbers."""
    assert motion.free_distance(35) == pytest.approx(40.43, abs=0.01)
    assert motion.free_distance(9) == pytest.approx(4.98, abs=0.01)
    assert motion.TURN_DEGREES == 6.0
    assert motion.turn(358.0, 1) == 0.0 and motion.turn(0.0, 2) == 358.0  # 2 degrees per update
    vx, vy, vz = motion.drive((0.0, 0.0, 0.0), 90.0, 1, grounded=True)
    assert (vx, vy, vz) == pytest.approx(
        (1.0, 0.0, 0.0), abs=1e-12
    )  # 25 x 100 x 0.02 x 0.02: 1 unit/s per update
    assert motion.drive((1.0, 0.0, 2.0), 0.0, 0, grounded=True) == pytest.approx(
        (0.9, 0.0, 1.8)
    )  # quick stop
    assert motion.drive((0.5, -1.0, 0.0), 0.0, 1, grounded=False) == (0.5, -1.0, 0.0)  # no control in the air
    assert motion.integrate((1.0, 0.0, 0.0)) == pytest.approx((0.968, -9.81 * 0.02 * 0.968, 0.0))
    assert motion.steepest_climbable_slope() == pytest.approx(47.93, abs=0.01)
