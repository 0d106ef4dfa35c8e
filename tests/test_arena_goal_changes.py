"""Decay, AntiDecay (Ripen), Grow and Shrink goals as Animal-AI's DecayGoal.cs and SizeChangeGoal.cs run them."""

from __future__ import annotations

import pytest

from agentkit.envs.animalai_common.config import ItemParams
from agentkit.envs.animalai_common.goal_changes import initial_diameter, reward_change, size_change


def run(state, updates: int, **kwargs):
    for _ in range(updates):
        state.update(**kwargs)
    return state


def test_a_decay_goal_waits_its_delay_then_loses_its_rate_every_update_down_to_the_final_value():
    goal = reward_change(
        "decay", ItemParams(initial_value=4, final_value=3, delay=250, change_rate=-0.003), "3.1.3"
    )
    assert goal.reward == 4 and goal.diameter == pytest.approx(3.996)  # built at the initial value x 0.999
    run(goal, 250)
    assert goal.reward == 4  # the delay counts down 250 updates
    run(goal, 1)
    assert goal.reward == pytest.approx(3.997)  # the 251st update starts the decay and applies the rate
    run(goal, 99)
    assert goal.reward == pytest.approx(4 - 100 * 0.003)
    run(goal, 1000)
    assert (
        goal.reward == 3 and not goal.changing and goal.diameter == pytest.approx(3.996)
    )  # the size never changes


def test_decay_defaults_are_the_builders_not_the_prefabs_and_a_positive_rate_is_turned_down():
    goal = reward_change("decay", ItemParams(change_rate=0.01), "3.1.3")
    assert (goal.initial, goal.final, goal.delay, goal.rate) == (2.5, 0.5, 0, -0.01)
    run(goal, 1)
    assert goal.reward == pytest.approx(2.49)  # no delay: the docs' 150 frames are overwritten by 0
    assert reward_change("decay", ItemParams(), "3.1.3").rate == -0.005


def test_a_decay_goal_may_not_grow_and_values_are_clamped_to_0_5():
    grows = reward_change("decay", ItemParams(initial_value=1, final_value=3), "3.1.3")
    assert grows.final == 1 and run(grows, 500).reward == 1
    big = reward_change("decay", ItemParams(initial_value=9, final_value=-2), "3.1.3")
    assert (big.initial, big.final, big.diameter) == (5, 0, pytest.approx(4.995))


def test_an_antidecay_goal_ripens_at_its_final_size_and_v410_ripen_goals_decay():
    ripe = reward_change("ripen", ItemParams(delay=10), "3.1.3")
    assert (ripe.initial, ripe.final, ripe.reward) == (0.5, 2.5, 0.5) and ripe.rate == 0.005
    assert ripe.diameter == pytest.approx(2.4975)  # built at the final value
    assert ripe.color == (100, 100, 100) and ripe.proportion == 0.0  # grey while unripe
    run(ripe, 10 + 401)  # 400 steps of 0.005, one more for the rounding of the sums
    assert ripe.reward == 2.5 and ripe.proportion == 1.0
    v4 = reward_change("ripen", ItemParams(), "4.1.0")  # RipenGoal.prefab v4.1.0: flipDecayDirection 0
    assert (v4.initial, v4.final, v4.ripen) == (2.5, 0.5, False) and v4.diameter == pytest.approx(2.4975)
    assert run(v4, 1000).reward == 0.5
    frozen = reward_change("ripen", ItemParams(initial_value=0.5, final_value=2.5), "4.1.0")
    assert run(frozen, 1000).reward == 0.5


def test_decay_colour_goes_from_purple_to_grey():
    goal = reward_change("decay", ItemParams(initial_value=1, final_value=0, change_rate=-0.1), "3.1.3")
    assert goal.color == (142, 0, 255)
    run(goal, 20)
    assert goal.color == (100, 100, 100)


def test_a_grow_goal_with_a_delay_grows_to_just_short_of_its_final_size_and_is_worth_its_size():
    goal = size_change(
        "grow", ItemParams(initial_value=1, final_value=3.5, delay=100, change_rate=0.01), "3.1.3"
    )
    assert goal.diameter == pytest.approx(0.999) and goal.reward == pytest.approx(0.999)
    run(goal, 100)
    assert goal.diameter == pytest.approx(0.999)
    run(goal, 1)
    assert goal.diameter == pytest.approx(0.999 * (0.999 + 0.01))  # SetSize((height + rate)) x 0.999
    run(goal, 3000)
    assert goal.diameter == pytest.approx(0.999 * 3.5) and goal.reward == pytest.approx(0.999 * 3.5)


def test_a_growing_goal_stops_while_blocked():
    goal = size_change("grow", ItemParams(initial_value=1, final_value=3, delay=1, change_rate=0.05), "3.1.3")
    run(goal, 1)
    run(goal, 50, free_to_grow=False)
    assert goal.diameter == pytest.approx(0.999)
    run(goal, 1)
    assert goal.diameter > 1.0


def test_a_shrink_goal_shrinks_to_its_final_size_and_finishes():
    goal = size_change(
        "shrink", ItemParams(initial_value=2.5, final_value=1.5, delay=5, change_rate=-0.007), "3.1.3"
    )
    assert goal.rate == -0.007 and goal.shrinking
    run(goal, 5 + 1000, free_to_grow=False)  # blocking never stops a shrink
    assert (
        goal.finished and goal.diameter == pytest.approx(0.999 * 1.5) and goal.reward == pytest.approx(1.4985)
    )


def test_grow_and_shrink_goals_without_a_delay_are_worth_nothing_as_in_animal_ai():
    grow = size_change("grow", ItemParams(initial_value=1, final_value=3), "3.1.3")
    assert grow.reward == 0 and grow.diameter == pytest.approx(0.999)
    run(grow, 1000)
    assert grow.diameter == pytest.approx(2.997) and grow.reward == 0
    assert size_change("shrink", ItemParams(), "4.1.0").reward == 0
    assert size_change("shrink", ItemParams(delay=1), "4.1.0").reward == pytest.approx(0.999 * 2.5)


def test_initial_diameters():
    assert initial_diameter("decay", ItemParams(initial_value=3), "3.1.3") == pytest.approx(2.997)
    assert initial_diameter("ripen", ItemParams(), "3.1.3") == pytest.approx(2.4975)
    assert initial_diameter("grow", ItemParams(), "3.1.3") == pytest.approx(0.4995)
    assert initial_diameter("shrink", ItemParams(initial_value=9), "3.1.3") == pytest.approx(7.992)
