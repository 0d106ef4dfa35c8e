"""Spawners as Animal-AI's GoalSpawner.cs and SpawnerStockpiler.cs run them: timing, sizes, places, doors."""

from __future__ import annotations

import math

import pytest

from agentkit.envs.animalai_common.config import ItemParams
from agentkit.envs.arena.dotnet_random import DotNetRandom
from agentkit.envs.arena.spawners import DoorSchedule, GoalSpawner

DT = 0.02


def run(spawner: GoalSpawner, seconds: float, occupied=None):
    events = []
    for _ in range(round(seconds / DT)):
        events.append(spawner.update(DT, occupied))
    return events


def test_dotnet_random_reproduces_system_random():
    assert DotNetRandom(0)._sample() == 1559595546  # new System.Random(0).Next()
    assert DotNetRandom(1)._sample() == 534011718  # new System.Random(1).Next()
    r = DotNetRandom(1)
    values = [r.next_double() for _ in range(1000)]
    assert all(0 <= v < 1 for v in values) and 0.45 < sum(values) / 1000 < 0.55
    assert DotNetRandom(7).next_int(3, 5) in (3, 4)


def test_a_tree_spawns_after_its_prefab_delay_and_then_every_interval_until_its_count_is_spent():
    tree = GoalSpawner(
        "tree", ItemParams(spawn_count=3, time_between_spawns=1.0, delay=0.0), (20.0, 0.0, 20.0)
    )
    times = []
    for n in range(400):
        if tree.update(DT).spawned:
            times.append(round(n * DT, 2))
    assert times == [2.0, 3.0, 4.0]  # the file's delay 0 comes too late: the wait of 2 s already started


def test_default_tree_fruit_hangs_grows_from_1_to_1_25_and_falls_after_6_s():
    tree = GoalSpawner("tree", ItemParams(), (20.0, 0.0, 20.0))
    assert (tree.spawn_count, tree.between, tree.ripen_time) == (-1, 4.0, 6.0)
    assert (tree.initial_size, tree.ripened_size, tree.noise) == (0.2, 1.0, pytest.approx(0.8))
    events = run(tree, 2.02)
    fruit = events[-1].spawned[0]
    assert fruit.value == pytest.approx(1.0) and fruit.reward == pytest.approx(0.999)
    assert fruit.diameter == pytest.approx(0.999 * 0.999)
    run(tree, 3.0)
    assert not fruit.released and fruit.value == pytest.approx(1.25)  # clamped at ripened + 0.25
    released = [f for e in run(tree, 3.02) for f in e.released]
    assert released == [fruit] and fruit.reward == pytest.approx(0.999 * 1.25)


def test_tree_fruit_appears_on_the_crown_sphere_in_the_same_places_every_episode():
    def places():
        tree = GoalSpawner("tree", ItemParams(time_between_spawns=0.1), (10.0, 0.0, 30.0))
        return [f.position for e in run(tree, 3.0) for f in e.spawned]

    first, again = places(), places()
    assert first == again and len(first) >= 8
    for x, y, z in first:
        distance = math.dist((x, y, z), (10.0 - 0.1, 4.3, 30.0 - 0.1))
        assert distance == pytest.approx(2.25, abs=1e-4)
        assert 4.3 + 2.25 * math.cos(0.8 * math.pi) - 1e-4 <= y <= 4.3 + 2.25 * math.cos(0.2 * math.pi) + 1e-4
    assert len({round(x, 3) for x, _, _ in first}) == len(first)


def test_tree_values_are_clamped_and_a_zero_ripen_time_drops_at_once():
    tree = GoalSpawner(
        "tree", ItemParams(initial_value=0.0, final_value=5.0, ripen_time=0.0), (20.0, 0.0, 20.0)
    )
    assert (tree.initial_size, tree.ripened_size) == (0.2, 3.0)
    events = run(tree, 2.04)
    spawned = [f for e in events for f in e.spawned]
    released = [f for e in events for f in e.released]
    assert spawned and released == spawned[:1] and spawned[0].value == pytest.approx(3.25)


def test_dispenser_defaults_spawn_without_end_at_its_top_with_a_constant_size():
    dispenser = GoalSpawner("dispenser", ItemParams(), (5.0, 0.0, 5.0))
    assert dispenser.spawn_count == -1 and dispenser.between == 1.5
    assert (dispenser.initial_size, dispenser.ripened_size) == (1.0, 0.5)  # 2.5 -> clamped to 0.2..1
    first = run(dispenser, 0.02)[0].spawned[0]
    assert first.position == (5.0, 3.65, 5.0) and first.value == 1.0  # sizeMin 1 > sizeMax 0.5: always 1
    events = run(dispenser, 5.98)
    assert not [f for e in events for f in e.released]  # the first hangs its 6 s ripening time
    assert [f.material for f in dispenser.fruits] == [True, False, False, False]  # the others wait
    events = run(dispenser, 0.02)
    # released, the first leaves the spawn point free (here nothing else is in the world): the next
    # waiting goal materialises, and falls at once
    assert [f.serial for f in events[0].released] == [0, 1] and [
        f.serial for f in events[0].materialised
    ] == [1]
    blocked = run(dispenser, 1.0, occupied=[((5.0, 3.65, 5.0), 1.0)])
    assert not [f for e in blocked for f in e.materialised]


def test_door_opens_after_the_prefab_delay_and_stays_open_by_default():
    door = DoorSchedule(1.0, None)
    seen = []
    for _ in range(200):
        door.advance(DT)
        seen.append(door.openness)
    assert seen[45] == 0.0 and 0 < seen[60] < 1 and seen[110] == 1.0 and seen[-1] == 1.0
    cycling = DoorSchedule(0.0, 5.0)  # open 1.5 s, shut 3.5 s, 1 s to move each way
    states = []
    for _ in range(round(14 / DT)):
        cycling.advance(DT)
        states.append(cycling.is_open)
    opened = [i for i in range(1, len(states)) if states[i] and not states[i - 1]]
    assert [round(i * DT, 1) for i in opened] == pytest.approx([1.0, 8.0], abs=0.05)
    short = DoorSchedule(0.0, 0.5)  # clamped to the minimum open time 1.4
    assert short.stays_open == 1.4 and short.stays_shut == 0.0
