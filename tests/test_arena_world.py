"""The arena's world follows Animal-AI's physics where tasks depend on it.

Walls are heavy dynamic bodies that fall under gravity (a bar on posts of unequal height slopes, and goals
roll down it: Testbed 02-29), but the agent cannot move them; zones are volumes centred below the
floor (a low wall across a DeathZone is a safe bridge when it stands above the zone's top: Testbed 04-22).
"""

from __future__ import annotations

import pytest
from arena_yaml import agent, arena_writer, item

from agentkit.envs.animalai_common.items import zone_height
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.records import EndReason


@pytest.fixture
def backend():
    b = ArenaBackend(frames=False)
    yield b
    b.close()


@pytest.fixture
def arena_file(tmp_path):
    return arena_writer(tmp_path)


def items_named(obs, name: str) -> list[dict]:
    return [i for i in obs.privileged["items"] if i["name"] == name]


def test_a_wall_placed_in_the_air_falls_onto_what_holds_it(backend, arena_file):
    backend.reset(
        arena_file(agent(5, 5) + item("Wall", 20, 20, (4, 1, 4)) + item("Wall", 20, 20, (2, 1, 2), y=4)),
        seed=0,
    )
    lower, upper = items_named(backend.observe(), "Wall")
    # the first frame: nothing has fallen yet but the reset's one update (spawned at y + 0.01)
    assert lower["position"][1] == pytest.approx(0.01, abs=0.005)
    assert upper["position"][1] == pytest.approx(4.01, abs=0.005)
    for _ in range(20):  # 1.2 s: a fall of 3 units takes 0.78 s
        backend.step([0, 0])
    lower, upper = items_named(backend.observe(), "Wall")
    assert lower["position"][1] == pytest.approx(0.0, abs=0.02)
    assert upper["position"][1] == pytest.approx(1.0, abs=0.02)  # came down from y = 4 onto the lower wall


def test_goals_roll_down_a_rail_resting_on_posts_of_unequal_height(backend):
    """Testbed 02-29-01: the rails lie on a 3-high post and a 2-high one; the goals must reach the floor."""
    backend.reset("02-29-01", seed=0)
    for _ in range(10):  # the rails fall from where they were given onto the posts
        backend.step([0, 0])
    rails = [w for w in items_named(backend.observe(), "Wall") if w["size"][2] > 20]
    assert all(2.3 < r["position"][1] < 2.7 for r in rails)  # centre between the two post heights: sloping
    for _ in range(140):
        backend.step([0, 0])
    goals = items_named(backend.observe(), "GoodGoal") + items_named(backend.observe(), "GoodGoalMulti")
    assert len(goals) == 3
    assert all(g["position"][1] < 0.05 for g in goals)  # all three rolled off the low end onto the floor


def test_the_agent_cannot_push_or_topple_a_thin_wall(backend, arena_file):
    backend.reset(arena_file(agent(20, 1) + item("Wall", 20, 20, (10, 2, 0.1))), seed=0)
    for _ in range(80):
        backend.step([1, 0])
    obs = backend.observe()
    wall = items_named(obs, "Wall")[0]
    assert wall["position"] == pytest.approx([20.0, 0.0, 20.0], abs=0.01)
    assert obs.privileged["agent"]["position"][2] < 19.6


def test_zones_are_volumes_centred_below_the_floor():
    """DeathZone.cs / HotZone.cs: a cube of the built size centred at y = -0.15, over a floor whose top is
    at -0.01 (AAI3Arena.prefab: Ground at y -0.51, scale 1): it reaches 0.999 y / 2 - 0.14 above the floor."""
    assert zone_height("DeathZone", 3 * 0.999) == pytest.approx(1.3585)
    assert zone_height("HotZone", 0.5 * 0.999) == pytest.approx(0.10975)
    assert zone_height("HotZone", 4.0) == pytest.approx(1.86)


def test_a_low_wall_across_a_death_zone_is_a_safe_bridge(backend, arena_file):
    """Testbed 04-22-01's layout: a low wall over a DeathZone the width of the arena (y 0, built 0.5 x 0.999,
    reaching 0.10975 above the floor). The bridge here is 0.2 high: Testbed 04-22-01's own is 0.1 (built
    0.0999), which by the source's geometry lies 0.0099 inside the zone, so an agent on it dies."""
    bridge = arena_file(
        agent(20, 5)
        + item("DeathZone", 20, 20, (40, 0, 20))
        + item("Wall", 20, 20, (10, 0.2, 22))
        + item("GoodGoal", 20, 35),
        t=250,
    )
    obs = backend.reset(bridge, seed=0)
    zone = items_named(obs, "DeathZone")[0]
    assert zone["position"][1] == 0.0 and zone["size"][1] == pytest.approx(0.5 * 0.999 / 2 - 0.14, abs=1e-4)
    result = None
    for _ in range(60):
        result = backend.step([1, 0])
        if result.done:
            break
    assert result is not None and result.done and result.success and result.end_reason == EndReason.GOAL

    # Beside the bridge, the same zone kills.
    beside = arena_file(
        agent(10, 5) + item("DeathZone", 20, 20, (40, 0, 20)) + item("Wall", 20, 20, (10, 0.2, 22)), t=250
    )
    backend.reset(beside, seed=0)
    for _ in range(40):
        result = backend.step([1, 0])
        if result.done:
            break
    assert result.done and result.end_reason == EndReason.DIED


@pytest.mark.parametrize("goal_z", [5.0, 6.3, 7.7, 9.1])
def test_a_goal_counts_on_the_step_the_agent_first_touches_it(backend, arena_file, goal_z):
    """No step may end with the agent touching a goal that was not collected on that step."""
    import math

    backend.reset(arena_file(agent(20, 1) + item("GoodGoal", 20, goal_z), t=250), seed=0)
    goal = items_named(backend.observe(), "GoodGoal")[0]["position"]
    for _ in range(30):
        result = backend.step([1, 0])
        if result.done:
            break
        a = backend.privileged_state()["agent"]["position"]
        gap = math.dist((a[0], a[1] + 0.5, a[2]), (goal[0], goal[1] + 0.5, goal[2])) - 1.0
        assert gap > 0.0, f"touching (gap {gap:.3f}) at step {backend.observe().step} without collecting"
    assert result.done and result.success


def test_a_single_go_step_moves_the_agent_a_little_and_keeps_it_on_the_ground(backend, arena_file):
    backend.reset(arena_file(agent(20, 1)), seed=0)
    for _ in range(3):  # at rest on the floor first: it spawns 0.01 above (TrainingAgent.GetPosition)
        backend.step([0, 0])
    heights, zs = [], []
    for action in [[1, 0]] + [[0, 0]] * 8:
        backend.step(action)
        a = backend.privileged_state()["agent"]["position"]
        heights.append(a[1])
        zs.append(a[2])
    # Go(1): 0.100 units in its three updates, then 0.164 of coast while braking (the per-update
    # equations of TrainingAgent.MoveAgent and PhysX; test_arena_fidelity.py derives them)
    assert zs[-1] - 1.0 == pytest.approx(0.1003 + 0.1644, abs=0.005)
    assert zs[-1] == zs[-2]  # and then it stands still
    assert max(heights) < 0.01


# The prefabs' BoxColliders (Animal-AI v3.1.3, Assets/Prefabs/Moveable/*.prefab): (size, centre) in the
# unscaled frame; the root is scaled by size x ratioSize (0.3, 1, 0.1) and turned 90 degrees about y.
_PREFAB_COLLIDERS = {
    "u": [((1, 1, 10), (0, 0, 0)), ((3, 1, 1), (1, 0, 5.5)), ((3, 1, 1), (1, 0, -5.5))],  # UObject
    "l_left": [((1, 1, 10), (0, 0, 0)), ((3, 1, 1), (1, 0, -5.5))],  # LObject
    "l_right": [((1, 1, 10), (0, 0, 0)), ((3, 1, 1), (-1, 0, -5.5))],  # LObject2
}
_RATIO = (0.3, 1.0, 0.1)


def _prefab_boxes(shape, size):
    """The colliders as (x0, x1, z0, z1) in the item's frame: scaled, then turned 90 degrees about y
    (Unity: a local +z vector points to +x, a local +x vector to -z)."""
    scale = [s * r for s, r in zip(size, _RATIO)]
    boxes = []
    for (bx, _, bz), (cx, _, cz) in _PREFAB_COLLIDERS[shape]:
        x0, x1 = (cx - bx / 2) * scale[0], (cx + bx / 2) * scale[0]
        z0, z1 = (cz - bz / 2) * scale[2], (cz + bz / 2) * scale[2]
        boxes.append((z0, z1, -x1, -x0))  # item x = prefab z, item z = -prefab x
    return sorted(boxes)


@pytest.mark.parametrize("shape", ["u", "l_left", "l_right"])
def test_u_and_l_shapes_follow_animal_ai_prefabs(shape):
    """A U/L block of size (5, 1, 10) has the prefab's colliders: a U 12 long with a 10-wide mouth,
    LObject2's one arm at the same (-x) end as LObject's, reaching forward instead of back."""
    from agentkit.envs.animalai_common.geometry import footprint_size, local_parts

    size = (5.0, 1.0, 10.0)
    ours = sorted((p.ox - p.hx, p.ox + p.hx, p.oz - p.hz, p.oz + p.hz) for p in local_parts(shape, size))
    expected = _prefab_boxes(shape, size)
    assert [list(b) for b in ours] == [pytest.approx(b) for b in expected]
    extent_x = max(b[1] for b in expected) - min(b[0] for b in expected)
    extent_z = max(b[3] for b in expected) - min(b[2] for b in expected)
    assert footprint_size(shape, size) == pytest.approx((extent_x, 1.0, extent_z))
    if shape == "u":
        assert extent_x == pytest.approx(12.0)  # 1.2 x size.z; the mouth between the arms is 10


def test_the_agent_can_drive_into_the_mouth_of_a_u(backend, arena_file):
    backend.reset(arena_file(agent(20, 5) + item("UObject", 20, 20, (5, 1, 10))), seed=0)
    for _ in range(14):
        backend.step([1, 0])
    for _ in range(10):
        backend.step([0, 0])
    state = backend.privileged_state()
    x, _, z = state["agent"]["position"]
    assert abs(x - 20) < 0.1 and 17.0 < z < 19.3  # between the arms (which start at z = 16.25), up to the bar


def test_a_large_goal_run_into_at_speed_is_collected_not_pushed_along(backend):
    """Testbed 04-16-01: across a HotZone to a size-5 goal; the agent meets it low on its side, shoves it
    within a substep, and must collect it then (before the zone's cost has used up its health). The
    agent drives off its 1-high platform and cannot drive while in the air (about 9 steps), so Go(45)."""
    from agentkit.actions import Command

    backend.reset("04-16-01", seed=0)
    actions = backend.compile(Command("Turn", (-18,))) + backend.compile(Command("Go", (45,)))
    for steps, action in enumerate(actions, start=1):  # noqa: B007 - the count is read after the loop
        result = backend.step(action)
        if result.done:
            break
    assert (
        result.done and result.success and result.info == {"touched": ["GoodGoal"]} and steps < len(actions)
    )
