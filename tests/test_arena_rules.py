"""Animal-AI's reward, health and lights rules, on their own (no physics)."""

from __future__ import annotations

import pytest

from agentkit.envs.arena import motion
from agentkit.envs.arena.lights import lights_on
from agentkit.envs.arena.rules import EpisodeRules, GoalTouch
from agentkit.records import EndReason

GOOD = GoalTouch(reward=2.0, good=True, multi=False)
MULTI = GoalTouch(reward=1.0, good=True, multi=True)
BAD = GoalTouch(reward=-1.5, good=False, multi=False)


def test_each_step_costs_one_over_t_and_health_runs_out_exactly_at_t():
    rules = EpisodeRules(t=250, pass_mark=0, good_goals=1)
    for step in range(1, 250):
        outcome = rules.advance()
        assert outcome.reward == pytest.approx(-1 / 250)
        assert not outcome.done, step
    assert rules.health == pytest.approx(100 / 250)
    last = rules.advance()
    assert last.done and not last.success and last.end_reason == EndReason.TIME_LIMIT
    assert rules.health == 0.0 and rules.total_reward == pytest.approx(-1.0)
    with pytest.raises(RuntimeError):
        rules.advance()


def test_no_time_limit_means_no_step_cost():
    rules = EpisodeRules(t=0, pass_mark=0, good_goals=1)
    for _ in range(5000):
        assert rules.advance().reward == 0.0
    assert not rules.done and rules.health == 100.0


def test_a_good_goal_gives_its_size_and_ends_the_episode():
    rules = EpisodeRules(t=100, pass_mark=1, good_goals=1)
    outcome = rules.advance([GOOD])
    assert outcome.reward == pytest.approx(2.0 - 0.01)
    assert outcome.done and outcome.success and outcome.end_reason == EndReason.GOAL
    assert rules.health == 100.0  # capped


def test_a_good_goal_below_the_pass_mark_ends_the_episode_as_a_failure():
    rules = EpisodeRules(t=100, pass_mark=3, good_goals=2)
    outcome = rules.advance([GOOD])
    assert outcome.done and not outcome.success and outcome.end_reason == EndReason.FAILED


def test_multi_goals_end_the_episode_only_when_the_last_good_goal_is_taken():
    rules = EpisodeRules(t=0, pass_mark=2, good_goals=3)
    assert not rules.advance([MULTI]).done
    assert not rules.advance([MULTI]).done
    last = rules.advance([MULTI])
    assert last.done and last.success and rules.total_reward == pytest.approx(3.0)
    with_good_goal = EpisodeRules(t=0, pass_mark=0, good_goals=2)  # a GoodGoal counts as a good goal
    assert not with_good_goal.advance([MULTI]).done
    assert with_good_goal.advance([GOOD]).done


def test_bad_goals_and_death_zones_end_the_episode():
    rules = EpisodeRules(t=100, pass_mark=0, good_goals=1)
    outcome = rules.advance([BAD])
    assert outcome.reward == pytest.approx(-1.5 - 0.01) and outcome.end_reason == EndReason.FAILED
    rules = EpisodeRules(t=100, pass_mark=0, good_goals=1)
    outcome = rules.advance([GOOD], in_death_zone=True)  # the death zone prevails
    assert outcome.end_reason == EndReason.DIED and not outcome.success
    assert outcome.reward == pytest.approx(-1.0 + 2.0 - 0.01)


def test_a_hot_zone_drains_ten_times_faster():
    rules = EpisodeRules(t=100, pass_mark=0, good_goals=1)
    assert rules.advance(in_hot_zone=True).reward == pytest.approx(-0.1)
    for _ in range(8):
        rules.advance(in_hot_zone=True)
    last = rules.advance(in_hot_zone=True)
    assert last.done and last.end_reason == EndReason.DIED and rules.steps == 10
    assert EpisodeRules(t=0, pass_mark=0, good_goals=1).advance(in_hot_zone=True).reward < 0


def test_no_pass_mark_passes_on_a_positive_reward():
    rules = EpisodeRules(t=100, pass_mark=None, good_goals=1)
    assert rules.advance([GOOD]).success


@pytest.mark.parametrize(
    ("blackouts", "dark"),
    [
        ((), []),
        ((15, 60), list(range(15, 60))),
        ((5, 10, 15, 20, 25), [*range(5, 10), *range(15, 20), *range(25, 100)]),
        ((-20,), [*range(20, 40), *range(60, 80)]),
        ((0, 50), list(range(0, 50))),
    ],
)
def test_blackouts_switch_the_lights_at_the_listed_frames(blackouts, dark):
    assert [f for f in range(100) if not lights_on(f, blackouts)] == dark


def test_motion_model_calibration():
    """The numbers the script language promises: Go(35) from rest ~38 units, 6 degrees per turn step."""
    assert motion.free_distance(35) == pytest.approx(38.0, abs=0.05)
    assert 7 < motion.free_distance(10) < 9
    assert motion.turn(354.0, 1) == 0.0 and motion.turn(0.0, 2) == 354.0
    vx, vz = motion.drive(0.0, 0.0, 90.0, 1, grounded=True)
    assert vx == pytest.approx(motion.ACCEL) and vz == pytest.approx(0.0, abs=1e-12)
    assert motion.drive(0.01, 0.0, 0.0, 0, grounded=True) == (0.0, 0.0)  # an idle agent stops
    assert motion.drive(0.5, 0.0, 0.0, 1, grounded=False) == (0.5, 0.0)  # no control in the air
