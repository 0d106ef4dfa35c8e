"""The arena's bodies and contacts against Animal-AI v3.1.3's own (issue 27, items 2-8).

Each expectation is built from the Unity project's numbers (prefabs, scripts), named beside it:
wall and ramp masses and materials, the first frame, the sticky ``_isGrounded`` of
``TrainingAgent.cs``, the agent's friction on what moves, and the HotZone's entry charge.
"""

from __future__ import annotations

import math

import pytest
from arena_yaml import agent, arena_writer, item

from agentkit.envs.animalai_common import motion
from agentkit.envs.animalai_common.items import ITEM_TYPES
from agentkit.envs.arena.backend import ArenaBackend

GRAVITY = 9.81  # ProjectSettings/DynamicsManager.asset
DT = 0.02  # TimeManager.asset Fixed Timestep
DEFAULT = 0.6  # Unity's default PhysicMaterial (walls, ramps, the agent: m_Material fileID 0)
CARDBOARD = (DEFAULT + 0.25) / 2  # LowFriction.physicMaterial 0.25, averaged (frictionCombine 0)


@pytest.fixture
def backend():
    b = ArenaBackend(frames=False)
    yield b
    b.close()


@pytest.fixture
def arena_file(tmp_path):
    return arena_writer(tmp_path)


def items_named(backend: ArenaBackend, name: str) -> list[dict]:
    return [i for i in backend.observe().privileged["items"] if i["name"] == name]


def idle(backend: ArenaBackend, steps: int) -> None:
    for _ in range(steps):
        backend.step([0, 0])


# -- item 3: the first frame ------------------------------------------------------------------------


def test_the_first_frame_of_02_21_01_shows_its_goal_in_the_air(backend):
    """02-21-01 gives its GoodGoal at y = 3 (size 3) above a ramp; Unity observes the arena before it
    runs any physics but the reset's own update, so the goal is still up there in the first frame."""
    backend.reset("02-21-01", seed=0)
    (goal,) = items_named(backend, "GoodGoal")
    assert goal["position"][1] == pytest.approx(3.0 + 0.01, abs=0.006)  # Prefab.AdjustY: y + 0.01
    idle(backend, 20)
    (goal,) = items_named(backend, "GoodGoal")
    assert goal["position"][1] < 2.0  # and then it falls


# -- items 4 and 8: walls and ramps are dynamic ----------------------------------------------------


def test_ramps_weigh_1000_and_fall_onto_what_holds_them(backend, arena_file):
    """Immoveable/Ramp.prefab: Rigidbody m_Mass 1000, not kinematic, gravity on."""
    assert ITEM_TYPES["Ramp"].mass == 1000.0
    backend.reset(arena_file(agent(5, 5) + item("Ramp", 20, 20, (4, 1, 4), y=2)), seed=0)
    (ramp,) = items_named(backend, "Ramp")
    assert ramp["position"][1] == pytest.approx(2.01, abs=0.006)
    idle(backend, 40)  # a 2-unit fall: Bullet lets it sink on impact, then pushes it back out
    (ramp,) = items_named(backend, "Ramp")
    assert ramp["position"][1] == pytest.approx(0.0, abs=0.02)


def test_a_wall_falls_again_when_what_held_it_goes(backend, arena_file):
    """Immoveable/Wall.prefab: a Rigidbody of mass 10000 for the whole episode. A wall slab lying on a
    goal rests there (the goal carries it), and falls when the agent collects the goal."""
    backend.reset(
        arena_file(
            agent(20, 12)
            + item("GoodGoalMulti", 20, 20)
            + item("GoodGoalMulti", 35, 35)
            + item("Wall", 20, 20, (3, 0.2, 1), y=1)
        ),
        seed=0,
    )
    idle(backend, 10)
    (wall,) = items_named(backend, "Wall")
    assert wall["position"][1] == pytest.approx(1.0, abs=0.03)  # on the goal
    for _ in range(14):
        backend.step([1, 0])
    left = [g for g in items_named(backend, "GoodGoalMulti") if g["active"]]
    assert [g["position"][0] for g in left] == [35.0]  # the goal under the slab is collected
    idle(backend, 20)
    (wall,) = items_named(backend, "Wall")
    assert wall["position"][1] < 0.9  # and the slab has come down


def test_the_agent_driving_into_a_thin_wall_leaves_it_standing(backend, arena_file):
    """5000 N of drive (mass 100 x 50 units/s^2) against a 10000 kg wall: PhysX keeps it standing."""
    backend.reset(arena_file(agent(20, 1) + item("Wall", 20, 20, (10, 2, 0.1))), seed=0)
    for _ in range(60):
        backend.step([1, 0])
    (wall,) = items_named(backend, "Wall")
    assert wall["position"] == pytest.approx([20.0, 0.0, 20.0], abs=0.01)


# -- item 2: friction on the top of a wall ---------------------------------------------------------


def _slide(backend: ArenaBackend, name: str, speed: float) -> float:
    """Give the named box a velocity change along +z and return how far it slides."""
    world = backend._world
    assert world is not None
    (box,) = items_named(backend, name)
    start = box["position"][2]
    world.push_goal(box["id"], (0.0, 0.0, speed))
    idle(backend, 40)
    (box,) = items_named(backend, name)
    return box["position"][2] - start


def test_a_box_slides_on_a_wall_top_as_on_the_floor_with_the_average_friction(backend, arena_file):
    """PhysX averages frictions: cardboard on a wall (default material) 0.425, as on the floor. A box
    given 3 units/s stops after v^2 / (2 mu g) = 1.08 units (Bullet's product would give 0.255: 1.80)."""
    expected = 3.0**2 / (2 * CARDBOARD * GRAVITY)
    backend.reset(
        arena_file(agent(5, 5) + item("Wall", 20, 20, (6, 1, 10)) + item("Cardbox1", 20, 18, (1, 1, 1), y=1)),
        seed=0,
    )
    idle(backend, 10)
    on_wall = _slide(backend, "Cardbox1", 3.0)
    backend.reset(arena_file(agent(5, 5) + item("Cardbox1", 20, 18, (1, 1, 1))), seed=0)
    idle(backend, 10)
    on_floor = _slide(backend, "Cardbox1", 3.0)
    assert on_wall == pytest.approx(expected, rel=0.1)
    assert on_floor == pytest.approx(expected, rel=0.1)


# -- item 6: the agent's friction on movable bodies -----------------------------------------------


def _run(friction: float, steps: int) -> float:
    """TrainingAgent.MoveAgent's drive and PhysX's drag and Coulomb friction, update by update."""
    v = driven = 0.0
    damping = 1 - 1.6 * DT  # AAI3Arena.prefab agent m_Drag 1.6
    for _ in range(steps * 3):
        v = max(0.0, (v + 50 * DT) * damping - friction * GRAVITY * DT * damping)
        driven += v * DT
    return driven


def test_the_agent_drives_over_a_cardboard_box_with_the_pair_friction(arena_file):
    """On top of a large box the agent slides with 0.425 (its default 0.6 averaged with the box's
    LowFriction 0.25), not with the floor's 0.6 and not without friction. (v4.1.0's HeavyBlock, mass
    420: Bullet lets a 100 kg agent press v3.1.3's 2 kg box into the floor.)"""
    backend = ArenaBackend(frames=False, aai_version="4.1.0")
    try:
        backend.reset(arena_file(agent(20, 16, y=1) + item("HeavyBlock", 20, 20, (10, 1, 10))), seed=0)
        idle(backend, 3)
        start = backend.observe().privileged["agent"]["position"]
        for _ in range(5):
            backend.step([1, 0])
        end = backend.observe().privileged["agent"]["position"]
    finally:
        backend.close()
    driven = math.dist(start, end)
    assert driven == pytest.approx(_run(CARDBOARD, 5), rel=0.02)
    assert abs(_run(CARDBOARD, 5) - _run(DEFAULT, 5)) > 0.05  # the test tells 0.425 from 0.6 ...
    assert abs(_run(CARDBOARD, 5) - _run(0.0, 5)) > 0.05  # ... and from none


# -- item 5: the sticky grounded flag ----------------------------------------------------------------


def _backing_speed(backend: ArenaBackend, path: str, forward: int) -> float:
    """Speed after three steps of backing up, from rest (after ``forward`` steps into whatever is ahead)."""
    backend.reset(path, seed=0)
    idle(backend, 3)
    for _ in range(forward):
        backend.step([1, 0])
    assert backend.observe().privileged["agent"]["velocity"][2] == pytest.approx(0.0, abs=1e-3)
    for _ in range(3):
        backend.step([2, 0])
    return -backend.observe().privileged["agent"]["velocity"][2]


def test_leaving_a_wall_costs_a_drive_update(backend, arena_file):
    """TrainingAgent.OnCollisionExit clears _isGrounded when the last contact stored pointed up: an
    agent backing away from a wall it leaned on (touching the floor, then the wall) loses the drive of
    the update after it leaves the wall: 50 units/s^2 x 0.02 s = 1 unit/s slower than from open floor."""
    against_wall = _backing_speed(backend, arena_file(agent(20, 18.9) + item("Wall", 20, 20, (10, 2, 1))), 5)
    in_the_open = _backing_speed(backend, arena_file(agent(20, 18.9)), 0)
    # one update's 1 unit/s, less the drag of the updates after it (0.968 each): 0.8 here; 0 if not sticky
    assert 0.6 < in_the_open - against_wall < 1.05


# -- item 7: the HotZone's entry --------------------------------------------------------------------


def test_a_hot_zone_charges_twice_in_the_update_the_agent_comes_in(backend, arena_file, monkeypatch):
    """HotZone.OnTriggerEnter and OnTriggerStay both charge: the update the agent enters is charged
    twice, every later update once."""
    backend.reset(arena_file(agent(20, 10) + item("HotZone", 20, 20, (10, 1, 10)), t=250), seed=0)
    world = backend._world
    assert world is not None
    charges: list[int] = []
    step = world.step

    def recording(b0: int, b1: int):
        events = step(b0, b1)
        charges.extend(update.hot_zone_charges for update in events.updates)
        return events

    monkeypatch.setattr(world, "step", recording)
    for _ in range(12):
        backend.step([1, 0])
    first = next(i for i, n in enumerate(charges) if n)
    assert charges[first] == 2 and set(charges[first + 1 :]) == {1}
    assert motion.DECISION_PERIOD == 3
