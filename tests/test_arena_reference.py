"""The arena reference agent: planning on synthetic privileged states, then through the real loop.

The synthetic states follow the backend's privileged JSON contract exactly, so these tests pin
the planner's behaviour (routes round walls, up ramps, away from hazards; goal order) without a
simulator; the tests at the end drive the real pybullet arena through the loop.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from agentkit.actions import Script, format_script, parse_script
from agentkit.envs.animalai_common.planning_grid import MapSettings, build_map
from agentkit.envs.animalai_common.planning_motion import DEFAULT_MODEL, AgentState, turn_toward
from agentkit.envs.animalai_common.reference import ArenaReferencePolicy, typed_commands
from agentkit.envs.animalai_common.vocabulary import VOCABULARY


def _item(i, name, kind, pos, size, rot=0.0, reward=None):
    return {
        "id": i,
        "name": name,
        "kind": kind,
        "position": list(pos),
        "size": list(size),
        "rotation_deg": rot,
        "reward": reward,
        "active": True,
        "solid": kind in ("obstacle", "ramp", "movable"),
        "transparent": name.endswith("Transparent"),
    }


def _state(items, agent=(20.0, 0.0, 5.0), heading=0.0, step=0, t=250):
    return {
        "arena": {"size": 40.0, "pass_mark": 0.0, "t": t, "step": step},
        "agent": {
            "position": list(agent),
            "heading_deg": heading,
            "velocity": [0.0, 0.0, 0.0],
            "health": 100.0,
        },
        "items": items,
    }


def _route(plan, agent):
    return [(agent[0], agent[2]), *plan.waypoints]


def _crosses(route, inside) -> bool:
    """Whether any point sampled along the route satisfies ``inside(x, z)``."""
    for (ax, az), (bx, bz) in zip(route, route[1:]):
        for k in range(41):
            t = k / 40
            if inside(ax + (bx - ax) * t, az + (bz - az) * t):
                return True
    return False


def test_canonical_script_text_round_trips_through_the_parser():
    text = format_script(
        Script(tuple(typed_commands([("Think", 'say "hi" \\ go'), ("Turn", -30), ("Go", 8)]))), VOCABULARY
    )
    assert text == 'Think("say \\"hi\\" \\\\ go"); Turn(-30); Go(8);'


def test_turn_toward_uses_clockwise_headings_from_plus_z():
    here = AgentState(20, 20, 0.0)
    assert turn_toward(here, 20, 30) == 0
    assert turn_toward(here, 30, 20) == 90  # +x is to the right when facing +z
    assert turn_toward(here, 10, 20) == -90
    assert abs(turn_toward(here, 20, 10)) == 180
    assert turn_toward(AgentState(20, 20, 90.0), 20, 30) == -90


def test_route_goes_round_a_wall_between_agent_and_goal():
    wall = _item(1, "Wall", "obstacle", (20, 0, 20), (20, 2, 1))
    goal = _item(2, "GoodGoal", "goal", (20, 0, 30), (1, 1, 1), reward=1.0)
    plan = ArenaReferencePolicy().plan(_state([wall, goal]))
    assert plan.goal is goal
    route = _route(plan, (20, 0, 5))
    assert not _crosses(route, lambda x, z: 10 <= x <= 30 and 19.5 <= z <= 20.5)
    names = [name for name, _ in plan.commands]
    assert names[0] == "Think" and "Go" in names


def test_goal_on_a_platform_is_reached_by_its_ramp():
    platform = _item(1, "Wall", "obstacle", (20, 0, 30), (6, 2, 6))
    ramp = _item(3, "Ramp", "ramp", (20, 0, 24), (3, 2, 6), rot=180.0)  # climbs towards +z, onto the platform
    goal = _item(2, "GoodGoal", "goal", (20, 2, 31), (1, 1, 1), reward=1.0)
    plan = ArenaReferencePolicy().plan(_state([platform, ramp, goal], agent=(5.0, 0.0, 5.0)))
    assert plan.goal is goal
    route = _route(plan, (5.0, 0.0, 5.0))
    # Up the ramp: the route gets onto the ramp in its lower part, never over the platform's other sides.
    assert _crosses(route, lambda x, z: 18.5 <= x <= 21.5 and 21 <= z <= 23)
    assert not _crosses(route, lambda x, z: (x < 17.2 or x > 22.8) and 27 <= z <= 33)


def test_ramp_facing_away_leaves_the_platform_goal_unreachable_and_the_agent_waits():
    platform = _item(1, "Wall", "obstacle", (20, 0, 30), (6, 2, 6))
    ramp = _item(3, "Ramp", "ramp", (20, 0, 24), (3, 2, 6))  # rotation 0 climbs towards -z: away from it
    goal = _item(2, "GoodGoal", "goal", (20, 2, 31), (1, 1, 1), reward=1.0)
    plan = ArenaReferencePolicy().plan(_state([platform, ramp, goal]))
    assert plan.goal is None and plan.commands[0][0] == "Think"


def test_deathzone_and_red_goal_are_avoided():
    zone = _item(1, "DeathZone", "zone", (20, 0, 17), (12, 0.5, 4))  # zones are built 0.5 high
    bad = _item(3, "BadGoal", "goal", (14, 0, 25), (2, 2, 2), reward=-2.0)
    goal = _item(2, "GoodGoal", "goal", (20, 0, 30), (1, 1, 1), reward=1.0)
    plan = ArenaReferencePolicy().plan(_state([zone, bad, goal]))
    route = _route(plan, (20, 0, 5))
    assert plan.goal is goal
    assert not _crosses(route, lambda x, z: 13.5 <= x <= 26.5 and 14.5 <= z <= 19.5)
    assert not _crosses(route, lambda x, z: math.hypot(x - 14, z - 25) < 1.6)


def test_gold_goals_come_before_the_green_one_that_ends_the_episode():
    green = _item(2, "GoodGoal", "goal", (20, 0, 8), (1, 1, 1), reward=1.0)
    gold = _item(3, "GoodGoalMulti", "goal", (30, 0, 30), (1, 1, 1), reward=1.0)
    plan = ArenaReferencePolicy().plan(_state([green, gold]))
    assert plan.goal is gold


def test_gold_goals_rolling_behind_a_green_one_are_chased_not_waited_for():
    # 02-29-01: the goals roll off their rails one behind the other towards the fence. A straight
    # guess puts the gold ones on top of the green one (kept away from while gold is left); the
    # agent heads for where they are now instead of waiting until the script limit.
    def goals(z0):
        return [
            _item(6, "GoodGoal", "goal", (10, 0, z0), (1, 1, 1), reward=1.0),
            _item(7, "GoodGoalMulti", "goal", (10, 0, z0 + 1.35), (1, 1, 1), reward=1.0),
            _item(8, "GoodGoalMulti", "goal", (10, 0, z0 + 3.05), (1, 1, 1), reward=1.0),
        ]

    policy = ArenaReferencePolicy()
    policy.plan(_state(goals(4.6), agent=(39.0, 0.0, 39.0), step=144, t=500))
    plan = policy.plan(_state(goals(4.2), agent=(39.0, 0.0, 39.0), step=150, t=500))
    assert plan.goal is not None and plan.goal["name"] == "GoodGoalMulti"


def test_the_first_step_never_cuts_the_corner_of_a_post_the_agent_leans_on():
    # 02-29-01: pressed against a rail's thin post, the agent must not take the cell behind the
    # post as its first step (it then pushed into the post for twenty scripts).
    post = _item(1, "Wall", "obstacle", (9.6, 0, 10), (0.3, 2, 0.3))
    amap = build_map(_state([post]), MapSettings())
    assert amap.blocks_way((9.44, 10.65), (8.75, 9.25), 0.0)
    assert not amap.blocks_way((9.44, 10.65), (9.0, 11.5), 0.0)
    assert not amap.blocks_way((9.44, 10.65), (8.75, 9.25), 2.0)  # standing above the post's top


def test_a_script_that_left_the_agent_where_it_was_is_followed_by_backing_off():
    wall = _item(1, "Wall", "obstacle", (20, 0, 20), (20, 2, 1))
    goal = _item(2, "GoodGoal", "goal", (20, 0, 30), (1, 1, 1), reward=1.0)
    policy = ArenaReferencePolicy()
    first = policy.plan(_state([wall, goal], step=10))
    assert ("Go", -3) not in first.commands
    again = policy.plan(_state([wall, goal], step=40))  # thirty steps later, not a unit further
    assert again.commands[0][0] == "Think" and again.commands[1] == ("Go", -3)
    moved = policy.plan(_state([wall, goal], agent=(12.0, 0.0, 12.0), step=70))
    assert ("Go", -3) not in moved.commands


def test_a_goal_dropping_straight_down_is_waited_for():
    # Items start 0.01 above their spawn point: a goal placed at y 5 falls with no horizontal
    # speed. It is not settled, so the agent looks round (steps pass) instead of thinking alone.
    walls = [
        _item(1, "Wall", "obstacle", (20, 0, 30), (6, 6, 6)),
    ]

    def goal(y):
        return _item(2, "GoodGoalMulti", "goal", (20, y, 30), (1, 1, 1), reward=1.0)

    policy = ArenaReferencePolicy()
    policy.plan(_state([*walls, goal(9.0)], step=0))
    plan = policy.plan(_state([*walls, goal(8.3)], step=6))
    assert plan.goal is None and any(name == "Turn" for name, _ in plan.commands)


def test_bigger_green_goal_is_preferred():
    small = _item(2, "GoodGoal", "goal", (20, 0, 10), (1, 1, 1), reward=1.0)
    big = _item(3, "GoodGoal", "goal", (30, 0, 30), (3, 3, 3), reward=3.0)
    assert ArenaReferencePolicy().plan(_state([small, big])).goal is big


def test_gold_goal_skipped_when_time_runs_short():
    green = _item(2, "GoodGoal", "goal", (20, 0, 9), (1, 1, 1), reward=1.0)
    gold = _item(3, "GoodGoalMulti", "goal", (35, 0, 35), (1, 1, 1), reward=1.0)
    plan = ArenaReferencePolicy().plan(_state([green, gold], step=230, t=250))
    assert plan.goal is green


def test_blocked_goal_is_skipped_for_a_reachable_one():
    box = [
        _item(10 + k, "Wall", "obstacle", pos, size)
        for k, (pos, size) in enumerate(
            [
                ((30, 0, 28), (6, 3, 0.5)),
                ((30, 0, 34), (6, 3, 0.5)),
                ((27, 0, 31), (0.5, 3, 6)),
                ((33, 0, 31), (0.5, 3, 6)),
            ]
        )
    ]
    caged = _item(2, "GoodGoal", "goal", (30, 0, 31), (3, 3, 3), reward=3.0)
    free = _item(3, "GoodGoal", "goal", (10, 0, 20), (1, 1, 1), reward=1.0)
    assert ArenaReferencePolicy().plan(_state([*box, caged, free])).goal is free


def test_map_marks_platform_sides_blocked_and_ramp_cells_free():
    platform = _item(1, "Wall", "obstacle", (20, 0, 30), (6, 2, 6))
    ramp = _item(3, "Ramp", "ramp", (20, 0, 24), (3, 2, 6), rot=180.0)
    amap = build_map(_state([platform, ramp]), MapSettings())
    i, j = amap.cell_of(20.1, 22.1)
    assert amap.free[i, j] and 0.0 < amap.height[i, j] < 1.0
    i, j = amap.cell_of(16.6, 30.1)  # on the floor, pressed against the platform's side
    assert not amap.free[i, j]
    i, j = amap.cell_of(20.1, 30.1)  # on top of the platform
    assert amap.free[i, j] and amap.height[i, j] == pytest.approx(2.0)


def test_no_goal_at_all_is_not_a_crash():
    plan = ArenaReferencePolicy().plan(_state([]))
    assert plan.goal is None and plan.commands


def test_motion_model_is_monotone_and_coasts():
    start = AgentState(20, 5, 0.0)
    d = [DEFAULT_MODEL.go(start, n).z - 5 for n in (5, 10, 20, 35)]
    assert d == sorted(d) and all(x > 0 for x in d)
    moving = DEFAULT_MODEL.go(start, 10)
    assert DEFAULT_MODEL.turn(moving, 60).z > moving.z


# ---- against the real pybullet arena ---------------------------------------------------------

WALLED_GOAL = """\
!ArenaConfig
arenas:
  0: !Arena
    pass_mark: 0
    t: 250
    items:
    - !Item
      name: Agent
      positions:
      - !Vector3 {x: 20, y: 0, z: 5}
      rotations: [0]
    - !Item
      name: Wall
      positions:
      - !Vector3 {x: 20, y: 0, z: 20}
      rotations: [0]
      sizes:
      - !Vector3 {x: 20, y: 2, z: 1}
    - !Item
      name: GoodGoal
      positions:
      - !Vector3 {x: 20, y: 0, z: 30}
      sizes:
      - !Vector3 {x: 1, y: 1, z: 1}
"""

EMPTY_ARENA = """\
!ArenaConfig
arenas:
  0: !Arena
    pass_mark: 0
    t: 0
    items:
    - !Item
      name: Agent
      positions:
      - !Vector3 {x: 20, y: 0, z: 1}
      rotations: [0]
"""


class _Turns:
    def __init__(self) -> None:
        self.turns = []

    def add_turn(self, episode_id, turn) -> None:
        self.turns.append(turn)


def test_reference_agent_gets_the_goal_behind_a_wall_through_the_real_loop(tmp_path):
    from agentkit.config import RunConfig
    from agentkit.loop import run_episode
    from agentkit.records import EndReason
    from agentkit.runs.setup_episode import make_setup

    arena = tmp_path / "walled.yaml"
    arena.write_text(WALLED_GOAL)
    config = RunConfig(
        env="aai-arena", tasks=[str(arena)], include_images=False, backend_options={"frames": False}
    )
    setup = make_setup(config)
    sink = _Turns()
    try:
        result = run_episode(setup, str(arena), 0, sink=sink, episode_id="walled")
        vocabulary = setup.backend.vocabulary
    finally:
        setup.backend.close()
    assert result.success and result.end_reason == EndReason.GOAL and result.metrics["pass"]
    assert result.scripts <= 6
    # Every answer was ordinary script text in the canonical form, parsed without error.
    for turn in sink.turns:
        assert turn.parse_error is None and turn.answer.startswith("Think(") and turn.answer.endswith(";")
        assert [c.to_json() for c in parse_script(turn.answer, vocabulary)] == turn.script
    # Straight ahead is the wall: the first script already turns away to go round it.
    assert "Turn(" in sink.turns[0].answer


def test_motion_model_matches_the_arena(tmp_path):
    """The planner's calibration: Go(n) from rest and the roll during a Turn, measured on the arena."""
    from agentkit.envs.arena.backend import ArenaBackend

    arena = tmp_path / "empty.yaml"
    arena.write_text(EMPTY_ARENA)
    backend = ArenaBackend(frames=False)
    try:
        for n in (1, 3, 5, 10, 20, 30):  # Go(35) drives 40.4 units: more than the arena from z = 1
            backend.reset(str(arena), 0)
            for _ in range(3):  # from rest on the floor: the agent spawns 0.01 above it and lands first
                backend.step([0, 0])
            start = backend.privileged_state()["agent"]["position"][2]
            for _ in range(n):
                backend.step([1, 0])
            moved = backend.privileged_state()["agent"]["position"][2] - start
            predicted = DEFAULT_MODEL.go(AgentState(20, start, 0.0), n).z - start
            assert moved == pytest.approx(predicted, abs=0.05), n
        backend.reset(str(arena), 0)
        for _ in range(15):
            backend.step([1, 0])
        agent = backend.privileged_state()["agent"]
        scale = ArenaBackend.velocity_per_step
        state = AgentState(
            agent["position"][0],
            agent["position"][2],
            agent["heading_deg"],
            agent["velocity"][0] * scale,
            agent["velocity"][2] * scale,
        )
        for _ in range(10):
            backend.step([0, 1])  # Turn(60) while rolling
        after = backend.privileged_state()["agent"]
        predicted = DEFAULT_MODEL.turn(state, 60)
        assert after["position"][2] == pytest.approx(predicted.z, abs=0.05)
        assert after["heading_deg"] == pytest.approx(predicted.heading, abs=1e-6)
    finally:
        backend.close()


def test_reference_agent_passes_easy_testbed_tasks():
    """A few level-1 tasks (food in the open, a gold goal field) through the backend's own policy."""
    from agentkit.envs.arena.backend import ArenaBackend
    from agentkit.observers import Observer

    backend = ArenaBackend(frames=False)
    observer = Observer()
    try:
        for task in ("01-01-01", "01-04-03", "01-21-01"):
            observation, _ = _play_reference(backend, observer, task, 0)
            assert backend.episode_metrics(observation)["pass"], task
    finally:
        backend.close()


def _play_reference(backend: Any, observer: Any, task: str, seed: int) -> tuple[Any, list[str]]:
    """Play ``task`` with the backend's reference policy, at most 30 scripts, each run until the
    episode ends; the last observation and the answers given."""
    policy = backend.reference_policy()
    observation = observer.observe(backend.reset(task, seed))
    answers: list[str] = []
    for _ in range(30):
        answers.append(policy.next_answer(observation))
        done = False
        for command in parse_script(answers[-1], backend.vocabulary):
            for action in backend.compile(command):
                done = backend.step(action).done
                if done:
                    break
            if done:
                break
        observation = observer.observe(backend.observe())
        if observation.done:
            break
    return observation, answers


@pytest.mark.parametrize("goal", ["DecayGoal", "GrowGoal"])
def test_reference_agent_collects_the_changing_goals_of_v313(tmp_path, goal):
    """The planner knows goals by the sign of their reward in the catalogue, not by a list of names:
    a DecayGoal or GrowGoal (multi goals, the only good goal here) is collected and ends the episode."""
    from agentkit.config import RunConfig
    from agentkit.loop import run_episode
    from agentkit.runs.setup_episode import make_setup

    arena = tmp_path / "changing.yaml"
    arena.write_text(
        "!ArenaConfig\narenas:\n  0: !Arena\n    t: 250\n    pass_mark: 0\n    items:\n"
        "    - !Item\n      name: Agent\n      positions: [!Vector3 {x: 20, y: 0, z: 5}]\n      rotations: [0]\n"
        f"    - !Item\n      name: {goal}\n      positions: [!Vector3 {{x: 26, y: 0, z: 20}}]\n"
        "      delays: [1]\n"
    )
    config = RunConfig(
        env="aai-arena", tasks=[str(arena)], include_images=False, backend_options={"frames": False}
    )
    setup = make_setup(config)
    try:
        result = run_episode(setup, str(arena), 0, sink=_Turns(), episode_id="changing")
    finally:
        setup.backend.close()
    assert result.metrics["pass"] and result.reward > 0


# ---- tool use: pushing a box or a block so that a goal comes within reach ------------------------


def test_a_goal_on_a_pillar_too_high_is_knocked_down_with_the_box():
    """No route reaches a goal 2 up on a thin pillar; the planner pushes the 3-high box into it."""
    from agentkit.envs.animalai_common.tool_use import knock_pushes

    pillar = _item(1, "Wall", "obstacle", (20, 0, 20), (0.2, 2, 0.2))
    goal = _item(2, "GoodGoal", "goal", (20, 2, 20), (1, 1, 1), reward=1.0)
    box = _item(3, "Cardbox2", "movable", (12, 0, 15), (3, 3, 3), rot=304.0)
    low = _item(4, "Cardbox1", "movable", (30, 0, 10), (1, 1, 1))  # too low to reach the goal
    pushes = knock_pushes(_state([pillar, goal, box, low]), [goal])
    assert [p.box["id"] for p in pushes] == [3]
    push = pushes[0]
    # The push line runs from the box's centre through the goal, and the agent starts behind the box.
    ux, uz = push.direction
    assert math.isclose(ux * 5 - uz * 8, 0.0, abs_tol=1e-9) and ux > 0 and uz > 0
    gap, lateral = push.offset(*push.stand)
    assert gap == pytest.approx(0.3) and lateral == pytest.approx(0.0, abs=1e-9)
    plan = ArenaReferencePolicy().plan(_state([pillar, goal, box, low], agent=(17.0, 0.0, 10.0)))
    assert "push the box" in plan.commands[0][1] and ("Go", 0) not in plan.commands
    # A wall in the box's way leaves nothing to push.
    wall = _item(5, "Wall", "obstacle", (16, 0, 17.5), (1, 2, 1))
    assert knock_pushes(_state([pillar, goal, box, wall]), [goal]) == []


def test_a_goal_in_a_death_zone_is_scooped_out_by_pushing_the_u_block_from_inside_its_mouth():
    """10-16-01's layout: the U straddles the zone's edge, the goal lies in its mouth inside the zone."""
    from agentkit.envs.animalai_common.tool_scoop import scoop_pushes

    zone = _item(1, "DeathZone", "zone", (20, 0, 30), (39.86, 0.11, 19.88), reward=-1.0)
    u = _item(2, "UObject", "movable", (33, 0, 20), (5, 1, 10), rot=90.0)
    goal = _item(3, "GoodGoal", "goal", (30, 0, 22), (1, 1, 1), reward=1.0)
    pushes = scoop_pushes(_state([zone, u, goal]), [goal])
    assert len(pushes) == 1
    push = pushes[0]
    assert push.direction == pytest.approx((0.0, -1.0), abs=1e-9)  # out of the zone, the nearest way
    # The agent pushes the inner face of the U's lower arm, inside the mouth, on safe ground.
    assert 29.25 + 0.5 <= push.contact[0] <= 32.25 - 0.5 and push.contact[1] == pytest.approx(15.0, abs=0.01)
    assert push.stand[1] < 20.06 - 0.75
    # An L block with no part beyond the goal cannot sweep it.
    ell = _item(2, "LObject", "movable", (7, 0, 17), (5, 1, 4), rot=270.0)
    other = _item(3, "GoodGoal", "goal", (10, 0, 22), (1, 1, 1), reward=1.0)
    assert scoop_pushes(_state([zone, ell, other]), [other]) == []


PUSH_ARENA = """\
!ArenaConfig
arenas:
  0: !Arena
    t: 250
    pass_mark: 0
    items:
    - !Item
      name: Agent
      positions: [!Vector3 {x: 20, y: 0, z: 12.7}]
      rotations: [0]
    - !Item
      name: Cardbox2
      positions: [!Vector3 {x: 20, y: 0, z: 15}]
      rotations: [0]
      sizes: [!Vector3 {x: 3, y: 3, z: 3}]
"""


def test_the_push_kicks_a_box_about_as_far_as_the_planner_expects(tmp_path):
    """From the stand point (0.3 behind the box), Go(push_length(d)) moves the box at least d along
    the push line and not far off it: the kick model the tool-use planner relies on."""
    from agentkit.envs.animalai_common.tool_use import box_travel, push_length
    from agentkit.envs.arena.backend import ArenaBackend

    arena = tmp_path / "push.yaml"
    arena.write_text(PUSH_ARENA)
    backend = ArenaBackend(frames=False)
    try:
        for travel in (3.0, 6.0):
            backend.reset(str(arena), 0)
            n = push_length(travel)
            for command in parse_script(f"Go({n});", backend.vocabulary):
                for action in backend.compile(command):
                    backend.step(action)
            for _ in range(40):  # the kicked box slides on
                backend.step([0, 0])
            box = next(it for it in backend.privileged_state()["items"] if it["name"] == "Cardbox2")
            moved = box["position"][2] - 15.0
            assert travel <= moved <= box_travel(n) + 2.0, (travel, n, moved)
            assert abs(box["position"][0] - 20.0) < 0.5
    finally:
        backend.close()


@pytest.mark.parametrize(
    ("task", "seed"), [("05-15-01", 2), ("05-15-01", 3), ("10-16-01", 0), ("10-21-01", 0)]
)
def test_reference_agent_solves_the_tool_use_tasks(task, seed):
    """Knocking a goal off a pillar (05-15-01; 10-21-01, with the box first pushed off a ledge) and
    scooping one out of a DeathZone with a U block (10-16-01), with plain Think/Turn/Go scripts.
    At seed 3 of 05-15-01 the agent rolls into the box beside its stand point and must step off first."""
    from agentkit.envs.arena.backend import ArenaBackend
    from agentkit.observers import Observer

    backend = ArenaBackend(frames=False)
    observer = Observer()
    try:
        observation, answers = _play_reference(backend, observer, task, seed)
        assert backend.episode_metrics(observation)["pass"], answers
        assert any("push" in answer for answer in answers)
    finally:
        backend.close()
