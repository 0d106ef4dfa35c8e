"""The Pillar-Button (SpawnerButton) as Spawner_InteractiveButton.cs runs it: presses, timing, choices, limits."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from agentkit.envs.animalai_common.config import ItemParams, Vector3
from agentkit.envs.arena.buttons import SpawnerButton

DT = 0.02


def press_and_wait(button: SpawnerButton, rng: random.Random, seconds: float = 2.5):
    """Enter the trigger for one update, leave, and run ``seconds``; the spawns that happened."""
    spawns = [button.update(DT, True, rng)]
    spawns += [button.update(DT, False, rng) for _ in range(round(seconds / DT))]
    return [s for s in spawns if s is not None]


def test_a_press_spawns_the_reward_after_the_move_and_reset_durations_at_the_given_place():
    params = ItemParams(
        move_duration=0.1,
        reset_duration=1.0,
        reward_names=("GoodGoal", "BadGoal", "GoodGoalMulti"),
        reward_weights=(1.0, 0.0, 0.0),
        reward_spawn_pos=Vector3(20, 0, 35),
    )
    button = SpawnerButton(params)
    rng = random.Random(0)
    assert button.update(DT, True, rng) is None and button.presses == 1 and button.moving
    updates = 1
    spawn = None
    while spawn is None:
        spawn = button.update(DT, True, rng)  # staying inside does not press again
        updates += 1
    assert updates * DT == pytest.approx(1.12, abs=0.021)  # press, then 0.1 s in and 1.0 s out
    assert spawn.name == "GoodGoal" and spawn.position == (20.0, 0.0, 35.0) and button.presses == 1
    assert not button.moving and button.travel == 0.0


def test_presses_while_the_button_moves_are_ignored_and_a_new_press_needs_a_new_entry():
    button = SpawnerButton(ItemParams(reward_names=("GoodGoal",), reward_weights=(1.0,)))
    rng = random.Random(1)
    button.update(DT, True, rng)
    for _ in range(20):
        button.update(DT, False, rng)
        button.update(DT, True, rng)  # re-entries during the 2 s movement
    assert button.presses == 1 and 0 < button.travel <= 1
    assert len(press_and_wait(button, rng, 3.0)) == 1  # the first press's reward (this entry is ignored)
    assert len(press_and_wait(button, rng, 2.1)) == 1 and button.presses == 2


def test_rewards_follow_their_weights_and_their_maximum_counts():
    params = ItemParams(
        move_duration=0.02,
        reset_duration=0.02,
        reward_names=("GoodGoal", "BadGoal"),
        reward_weights=(3.0, 1.0),
        max_reward_counts=(-1, 5),
    )
    button = SpawnerButton(params)
    rng = random.Random(2)
    names = Counter(s.name for _ in range(400) for s in press_and_wait(button, rng, 0.1))
    assert names["BadGoal"] == 5  # limited to 5
    assert 250 < names["GoodGoal"] < 350  # about 3/4 of 400 presses
    assert button.presses == 400


def test_spawn_probability_and_random_places():
    params = ItemParams(
        move_duration=0.02,
        reset_duration=0.02,
        reward_names=("GoodGoalMulti",),
        reward_weights=(1.0,),
        spawn_probability=0.25,
        reward_spawn_pos=Vector3(-1, -1, 12),
    )
    button = SpawnerButton(params)
    rng = random.Random(3)
    spawns = [s for _ in range(400) for s in press_and_wait(button, rng, 0.1)]
    assert 70 < len(spawns) < 130
    assert all(0 <= s.position[0] <= 40 and 0 <= s.position[1] <= 100 and s.position[2] == 12 for s in spawns)
    floor = SpawnerButton(
        ItemParams(move_duration=0.02, reset_duration=0.02, reward_names=("GoodGoal",), reward_weights=(1.0,))
    )
    (spawn,) = press_and_wait(floor, rng, 0.1)
    assert spawn.position[1] == 0.0 and 0 <= spawn.position[0] <= 40 and 0 <= spawn.position[2] <= 40


@pytest.mark.parametrize(
    ("params", "version"),
    [
        (ItemParams(), "3.1.3"),  # no reward names
        (
            ItemParams(reward_names=("GoodGoal", "BadGoal"), reward_weights=(1.0,)),
            "3.1.3",
        ),  # weights do not match
        (
            ItemParams(reward_names=("DecoyGoal",), reward_weights=(1.0,)),
            "3.1.3",
        ),  # not in v3.1.3's Resources
        (ItemParams(reward_names=("GoodGoal",), reward_weights=(1.0,), spawn_probability=0.0), "3.1.3"),
    ],
)
def test_buttons_that_cannot_spawn_spawn_nothing(params, version):
    button = SpawnerButton(params, version)
    assert press_and_wait(button, random.Random(4)) == [] and button.presses == 1


def test_v410_buttons_may_spawn_decoys():
    button = SpawnerButton(ItemParams(reward_names=("DecoyGoal",), reward_weights=(1.0,)), "4.1.0")
    assert [s.name for s in press_and_wait(button, random.Random(5))] == ["DecoyGoal"]
