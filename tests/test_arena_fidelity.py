"""The arena measured against Animal-AI v3.1.3's own equations (issue 14, "Done when").

Why a file of its own: researchers compare models with children who played the Unity Animal-AI, so
each quantity that decides an outcome (how far a Go(n) carries the agent, how fast health drains,
what a goal gives, when the lights go out, where the agent starts, which slopes it climbs, how wide
the camera sees) is checked here on the real pybullet simulation, through ``ArenaBackend``, against
a value computed independently in this file from the constants of the Unity project (v3.1.3, commit
4cfeca1, 30 Sep 2023), each named with the file and field it comes from. The module under test is
not asked for its own constants, so a wrong constant there cannot make its test pass.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from agentkit.actions import Command
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.records import EndReason

# -- Animal-AI v3.1.3's constants ------------------------------------------------------------------
DT = 0.02  # ProjectSettings/TimeManager.asset: Fixed Timestep
UPDATES_PER_STEP = (
    3  # AAI3EnvironmentManager.cs: defaultDecisionPeriod (DecisionRequester repeats the action)
)
SPEED = 25.0  # TrainingAgent.cs: speed (AAI3Arena.prefab overrides the agent prefab's 30 with 25)
ROTATION_SPEED = 100.0  # TrainingAgent.cs: rotationSpeed, degrees per second (AAI3Arena.prefab: 100)
QUICK_STOP = 0.9  # TrainingAgent.cs: quickStopRatio (velocity x 0.9 per update when b0 = 0)
DRAG = 1.6  # AAI3Arena.prefab: m_Drag override of the agent's Rigidbody (AAI3Agent.prefab says 1.2)
GRAVITY = 9.81  # ProjectSettings/DynamicsManager.asset: m_Gravity y = -9.81
FRICTION = 0.6  # DynamicsManager.asset m_DefaultMaterial: none, so Unity's default material (0.6, average)
CLOCK_INTERVAL = (
    5  # AAI3Agent.prefab: DecisionRequester.DecisionPeriod, read by TrainingArena.Awake into timeLimit
)
HOT_ZONE_FACTOR = 10.0  # Rewards/HotZone.prefab: reward (TrainingAgent.AddExtraReward's factor)
HOT_ZONE_FLOOR = -0.001  # TrainingAgent.AddExtraReward: Math.Min(factor * _rewardPerStep, -0.001f)
DEATH_ZONE_REWARD = -1.0  # Rewards/DeathZone.prefab: reward
SIZE_ADJUSTMENT = 0.999  # Prefab.cs: sizeAdjustement
ZONE_CENTRE_Y = -0.15  # DeathZone.cs / HotZone.cs: AdjustY returns -0.15 (the trigger cube's centre)
FLOOR_TOP_Y = (
    -0.01
)  # AAI3Arena.prefab: Ground m_LocalPosition y -0.51, a unit cube of scale y 1 (items rest here)
FIELD_OF_VIEW = 100.0  # AAI3Agent.prefab: AgentCamMid Camera "field of view" (vertical; square frames)
AGENT_RADIUS = 0.5  # AAI3Agent.prefab: SphereCollider m_Radius; AgentCamMid sits at its centre

ACCELERATION = (
    SPEED * 100.0 * DT
)  # TrainingAgent.MoveAgent: AddForce(forward * speed * 100 * dt, Acceleration)
DAMPING = 1.0 - DRAG * DT  # PhysX: velocity *= 1 - drag * dt each update
FRICTION_PER_UPDATE = (
    FRICTION * GRAVITY * DT * DAMPING
)  # Coulomb: mu x the normal impulse per unit mass on flat ground


# -- the source's equations, written out here ------------------------------------------------------


def source_run(forward_steps: int) -> tuple[float, float, int]:
    """Units driven by ``forward_steps`` steps of b0 = 1 from rest on flat ground, units coasted after
    them under b0 = 0, and the no-op steps until the agent stands still: update by update,
    v <- (v + a dt)(1 - drag dt) - mu g dt (1 - drag dt) while driving, v <- 0.9 v (1 - drag dt) - the same
    friction while braking (never below 0); the position moves by v dt after each update (PhysX)."""
    v = driven = coasted = 0.0
    for _ in range(forward_steps * UPDATES_PER_STEP):
        v = max(0.0, (v + ACCELERATION * DT) * DAMPING - FRICTION_PER_UPDATE)
        driven += v * DT
    updates = 0
    while v > 0.0:
        v = max(0.0, v * QUICK_STOP * DAMPING - FRICTION_PER_UPDATE)
        coasted += v * DT
        updates += 1
    return driven, coasted, math.ceil(updates / UPDATES_PER_STEP)


def update_cost(t: int) -> float:
    """TrainingAgent.Initialize: _rewardPerStep = -1 / timeLimit, timeLimit = t x 5 (TrainingArena.ResetArena)."""
    return -1.0 / (t * CLOCK_INTERVAL) if t > 0 else 0.0


def hot_zone_extra(t: int) -> float:
    """HotZone.OnTriggerStay -> TrainingAgent.AddExtraReward(10), once per update inside."""
    return min(HOT_ZONE_FACTOR * update_cost(t), HOT_ZONE_FLOOR)


def zone_top(size_y: float) -> float:
    """How high above the floor a DeathZone's or HotZone's trigger reaches: a cube of the built size
    (0.999 y) centred at y = -0.15, over a floor whose top is at -0.01."""
    return SIZE_ADJUSTMENT * size_y / 2 + ZONE_CENTRE_Y - FLOOR_TOP_Y


def steepest_slope_from_rest() -> float:
    """On a slope of angle s the horizontal drive a gives a cos s uphill against g sin s, and presses
    with a sin s + g cos s, so friction takes mu times that: the agent starts up while
    a cos s - g sin s > mu (g cos s + a sin s), i.e. tan s < (a - mu g) / (g + mu a)."""
    return math.degrees(math.atan((ACCELERATION - FRICTION * GRAVITY) / (GRAVITY + FRICTION * ACCELERATION)))


# -- arenas ---------------------------------------------------------------------------------------


def agent(x: float, z: float, rotation: float = 0, y: float = 0) -> str:
    return (
        f"    - !Item\n      name: Agent\n      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n"
        f"      rotations: [{rotation}]\n"
    )


def item(name: str, x: float, z: float, size=(1, 1, 1), rotation: float = 0, y: float = 0, color=None) -> str:
    sx, sy, sz = size
    text = (
        f"    - !Item\n      name: {name}\n      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n"
        f"      rotations: [{rotation}]\n      sizes: [!Vector3 {{x: {sx}, y: {sy}, z: {sz}}}]\n"
    )
    if color is not None:
        text += f"      colors: [!RGB {{r: {color[0]}, g: {color[1]}, b: {color[2]}}}]\n"
    return text


@pytest.fixture
def arena_file(tmp_path):
    """Write an arena to a YAML file (which ``reset`` accepts as a task) and return its path."""
    count = iter(range(1000))

    def write(items: str, t: int = 0, extra: str = "") -> str:
        path = tmp_path / f"arena{next(count)}.yaml"
        path.write_text(
            f"!ArenaConfig\narenas:\n  0: !Arena\n    t: {t}\n    pass_mark: 0\n{extra}    items:\n{items}"
        )
        return str(path)

    return write


@pytest.fixture
def backend():
    b = ArenaBackend(frames=False)
    yield b
    b.close()


def agent_state(backend: ArenaBackend) -> dict:
    return backend.observe().privileged["agent"]


def items_named(backend: ArenaBackend, name: str) -> list[dict]:
    return [i for i in backend.observe().privileged["items"] if i["name"] == name]


def closest_update_count(reward: float, base: float, t: int) -> float:
    """How far ``reward`` is from ``base`` plus the clock of 1, 2 or 3 updates (an episode may end in any)."""
    return min(abs(reward - (base + j * update_cost(t))) for j in range(1, UPDATES_PER_STEP + 1))


# -- motion -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("steps", [1, 5, 9, 10, 20, 35])
def test_go_n_from_rest_and_the_coast_follow_the_source_equations(backend, arena_file, steps):
    if steps == 35:  # 40.4 + 3.1 units: longer than the arena along an axis, so along its diagonal
        start, heading = (1.0, 1.0), 45.0
    else:
        start, heading = (20.0, 1.0), 0.0
    backend.reset(arena_file(agent(*start, rotation=heading)), seed=0)
    for _ in range(3):  # at rest on the floor first: it spawns 0.01 above (TrainingAgent.GetPosition)
        backend.step([0, 0])
    actions = backend.compile(Command("Go", (steps,)))
    assert actions == [[1, 0]] * steps
    for action in actions:
        backend.step(action)
    x1, y1, z1 = agent_state(backend)["position"]
    coast_steps = 0
    while math.hypot(*agent_state(backend)["velocity"]) > 1e-3 and coast_steps < 50:
        backend.step([0, 0])
        coast_steps += 1
    x2, _, z2 = agent_state(backend)["position"]
    driven, coasted, rest_steps = source_run(steps)
    assert math.hypot(x1 - start[0], z1 - start[1]) == pytest.approx(driven, rel=0.01)
    assert math.hypot(x2 - x1, z2 - z1) == pytest.approx(coasted, rel=0.02)
    assert abs(coast_steps - rest_steps) <= 1
    assert y1 == pytest.approx(0.0, abs=0.01)  # on the ground throughout
    fx, fz = math.sin(math.radians(heading)), math.cos(math.radians(heading))
    assert (x2 - start[0]) * fz - (z2 - start[1]) * fx == pytest.approx(
        0.0, abs=0.01
    )  # straight along the heading


def test_the_source_distances_are_the_ones_the_issue_quotes():
    """Guards the equations above: Go(9) about 5.0 units, Go(35) 40.4 (issue 14's table)."""
    assert source_run(9)[0] == pytest.approx(4.98, abs=0.01)
    assert source_run(35)[0] == pytest.approx(40.43, abs=0.01)
    assert source_run(1)[0] == pytest.approx(0.100, abs=0.001)


def test_a_full_turn_takes_60_steps(backend, arena_file):
    # TrainingAgent.MoveAgent: Rotate(up, dt x rotationSpeed) each update
    per_step = ROTATION_SPEED * DT * UPDATES_PER_STEP
    assert 360 / per_step == pytest.approx(60)
    backend.reset(arena_file(agent(20, 20, rotation=30)), seed=0)
    for k in range(1, 61):
        backend.step([0, 1])
        if k in (1, 15, 59):
            assert agent_state(backend)["heading_deg"] == pytest.approx((30 + k * per_step) % 360, abs=1e-6)
    state = agent_state(backend)
    assert state["heading_deg"] == pytest.approx(30.0, abs=1e-6)
    assert state["position"] == pytest.approx([20.0, 0.0, 20.0], abs=0.01)
    for _ in range(15):
        backend.step([0, 2])
    assert agent_state(backend)["heading_deg"] == pytest.approx(300.0, abs=1e-6)


# -- health clock -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("t", "length"), [(250, 417), (1000, 1667)])
def test_health_drains_0_6_over_t_per_step_and_an_idle_episode_lasts_ceil_5t_over_3(
    backend, arena_file, t, length
):
    per_step = UPDATES_PER_STEP * update_cost(t)  # -0.6 / t
    assert per_step == pytest.approx(-0.6 / t)
    assert length == math.ceil(t * CLOCK_INTERVAL / UPDATES_PER_STEP)
    backend.reset(arena_file(agent(20, 20), t=t), seed=0)
    total = 0.0
    for step in range(1, length + 1):
        result = backend.step([0, 0])
        total += result.reward
        if step < length:
            assert not result.done, step
            assert result.reward == pytest.approx(per_step, abs=1e-9)
        if step in (1, length // 2):
            assert backend.observe().health == pytest.approx(100.0 + 100.0 * step * per_step, abs=1e-6)
    assert result.done and not result.success and result.end_reason == EndReason.TIME_LIMIT
    obs = backend.observe()
    assert obs.health == 0.0 and obs.step == length
    assert obs.total_reward == pytest.approx(-1.0, abs=1e-6) and total == pytest.approx(-1.0, abs=1e-6)


# -- goals and zones --------------------------------------------------------------------------------


def run_into_goal(backend: ArenaBackend, limit: int = 40):
    for _ in range(limit):
        result = backend.step([1, 0])
        if result.done:
            return result
    raise AssertionError("the goal was never reached")


def test_a_goal_of_size_2_gives_0_999_x_2(backend, arena_file):
    t = 250
    backend.reset(arena_file(agent(20, 1) + item("GoodGoal", 20, 8, (2, 2, 2)), t=t), seed=0)
    goal = items_named(backend, "GoodGoal")[0]
    built = SIZE_ADJUSTMENT * 2  # BallGoal.SetSize: reward = sign x clipped size x 0.999
    assert goal["size"][0] == pytest.approx(built, abs=1e-4) and goal["reward"] == pytest.approx(
        built, abs=1e-4
    )
    last = run_into_goal(backend)
    assert last.success and last.end_reason == EndReason.GOAL and last.info["touched"] == ["GoodGoal"]
    assert closest_update_count(last.reward, built, t) < 1e-9
    obs = backend.observe()
    clock = UPDATES_PER_STEP * obs.step * update_cost(t)  # the last step may end in its first update
    assert obs.total_reward == pytest.approx(built + clock, abs=2 * abs(update_cost(t)) + 1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_random_size_goal_gives_its_size_as_drawn(backend, arena_file, seed):
    """BallGoal.SetSize: a -1 size draws one diameter in [0.5, 5] and the reward is that diameter (no 0.999)."""
    t = 250
    yaml = agent(20, 1) + (
        "    - !Item\n      name: GoodGoal\n      positions: [!Vector3 {x: 20, y: 0, z: 10}]\n"
        "      sizes: [!Vector3 {x: -1, y: -1, z: -1}]\n"
    )
    backend.reset(arena_file(yaml, t=t), seed=seed)
    goal = items_named(backend, "GoodGoal")[0]
    size = goal["size"][0]
    assert 0.5 <= size <= 5.0 and goal["size"] == [size, size, size] and goal["reward"] == size
    last = run_into_goal(backend)
    assert last.end_reason == EndReason.GOAL
    assert closest_update_count(last.reward, size, t) < 2e-4  # the privileged size is rounded to 1e-4


@pytest.mark.parametrize("t", [250, 5000, 0])
def test_a_hot_zone_costs_its_extra_every_update_on_top_of_the_clock(backend, arena_file, t):
    per_step = UPDATES_PER_STEP * (update_cost(t) + hot_zone_extra(t))  # t = 250: 3/1250 + 3 x 0.008 = 0.0264
    backend.reset(arena_file(agent(20, 10) + item("HotZone", 20, 10, (10, 1, 10)), t=t), seed=0)
    for _ in range(5):
        assert backend.step([0, 0]).reward == pytest.approx(per_step, abs=1e-9)
    assert items_named(backend, "HotZone")[0]["reward"] == pytest.approx(hot_zone_extra(t), abs=1e-4)


def test_a_hot_zone_runs_health_out_and_the_episode_ends_as_a_death(backend, arena_file):
    t = 250
    per_update = update_cost(t) + hot_zone_extra(t)  # -0.0088
    updates = math.ceil(-1.0 / per_update)  # 114: health 100 + 100 x reward reaches 0
    backend.reset(arena_file(agent(20, 10) + item("HotZone", 20, 10, (10, 1, 10)), t=t), seed=0)
    for step in range(1, 200):  # noqa: B007 - the count is read after the loop
        result = backend.step([0, 0])
        if result.done:
            break
    assert step == math.ceil(updates / UPDATES_PER_STEP) == 38
    assert result.end_reason == EndReason.DIED and not result.success
    assert backend.observe().total_reward == pytest.approx(updates * per_update, abs=1e-6)


def test_outside_a_hot_zone_only_the_clock_runs(backend, arena_file):
    t = 250
    backend.reset(arena_file(agent(20, 2) + item("HotZone", 20, 10, (10, 1, 10)), t=t), seed=0)
    assert backend.step([0, 0]).reward == pytest.approx(UPDATES_PER_STEP * update_cost(t), abs=1e-9)


def test_walking_into_a_death_zone_gives_minus_1_and_ends_the_episode(backend, arena_file):
    t = 250
    near_edge = 8.0  # the zone spans z 8..12 (size 4 x 0.999, centred on 10)
    backend.reset(arena_file(agent(20, 1) + item("DeathZone", 20, 10, (10, 1, 4)), t=t), seed=0)
    zone = items_named(backend, "DeathZone")[0]
    top = zone_top(1.0)  # 0.3595
    assert zone["size"][1] == pytest.approx(top, abs=1e-4)
    # The agent's sphere meets the zone's top face this far (horizontally) ahead of its centre.
    reach = math.sqrt(AGENT_RADIUS**2 - (AGENT_RADIUS - top) ** 2)
    before = agent_state(backend)["position"][2]
    for _ in range(20):
        result = backend.step([1, 0])
        if result.done:
            break
        before = agent_state(backend)["position"][2]
    assert result.done and not result.success and result.end_reason == EndReason.DIED
    assert closest_update_count(result.reward, DEATH_ZONE_REWARD, t) < 1e-9
    assert before + reach < near_edge + SIZE_ADJUSTMENT * 0.002 + 1e-3  # alive a step before touching it
    assert agent_state(backend)["position"][2] + reach > near_edge - 0.01


@pytest.mark.parametrize(
    ("platform", "zone_y", "dies"),
    [
        (0.5, 0.5, False),  # a low zone (top 0.10975) under a platform: the agent on it is safe
        (1.3, 3.0, True),  # Testbed 04-13's tall zone (top 1.3585) reaches an agent standing at 1.2987
        (1.4, 3.0, False),  # ... but not one standing at 1.3986
    ],
)
def test_a_death_zone_is_a_volume_reaching_0_999_y_over_2_minus_0_15(
    backend, arena_file, platform, zone_y, dies
):
    t = 250
    top = zone_top(zone_y)
    yaml = (
        agent(20, 20, y=platform)
        + item("Wall", 20, 20, (3, platform, 3))
        + item("DeathZone", 20, 20, (10, zone_y, 10))
    )
    backend.reset(arena_file(yaml, t=t), seed=0)
    assert items_named(backend, "DeathZone")[0]["size"][1] == pytest.approx(top, abs=1e-4)
    assert agent_state(backend)["position"][1] == pytest.approx(SIZE_ADJUSTMENT * platform, abs=0.01)
    first = backend.step([0, 0])
    if dies:
        assert first.done and first.end_reason == EndReason.DIED
        assert first.reward == pytest.approx(
            update_cost(t) + DEATH_ZONE_REWARD, abs=1e-9
        )  # in the first update
    else:
        assert not first.done and first.reward == pytest.approx(UPDATES_PER_STEP * update_cost(t), abs=1e-9)
        for _ in range(10):
            assert not backend.step([0, 0]).done


# -- lights -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("blackouts", "dark"),
    [
        # Lights.cs LightStatus toggles at update StepCount == frame x 5 (the decision interval the arena
        # read, see CLOCK_INTERVAL); the observation after k steps (update 3k) is dark after an odd
        # number of toggles, i.e. from step ceil(5 f / 3): frames 10 and 20 -> steps 17 .. 33.
        ("[10, 20]", [*range(17, 34)]),
        # [-20]: a toggle every 20 frames = 100 updates: dark 34..66, lit 67..99, dark 100..133.
        ("[-20]", [*range(34, 67), *range(100, 134)]),
    ],
)
def test_blackouts_follow_the_five_update_frame_clock(backend, arena_file, blackouts, dark):
    frames = [int(f) for f in blackouts.strip("[]").split(",")]
    if frames[0] > 0:
        assert dark[0] == math.ceil(frames[0] * CLOCK_INTERVAL / UPDATES_PER_STEP)
        assert dark[-1] == math.ceil(frames[1] * CLOCK_INTERVAL / UPDATES_PER_STEP) - 1
    backend.reset(arena_file(agent(20, 20), extra=f"    blackouts: {blackouts}\n"), seed=0)
    seen = []
    for step in range(0, 140):
        if step:
            backend.step([0, 0])
        if backend.observe().status["lights"] == "off":
            seen.append(step)
    assert seen == dark


# -- spawning ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "start", "inside"),
    [
        # Walls at x = 15 and 25 (rotated 90: x 14.5..15.5 and 24.5..25.5), z = 15 and 25: the agent at
        # (16, 16) touches two of them from inside (ArenaBuilders.InstantiateSpawnables: agent first).
        ("06-01-01", (16.0, 16.0), (15.5, 24.5, 15.5, 24.5)),
        # Walls x 14.5..15.5 and 24.5..25.5 (z 15..25), z 15..16 and 24..25: agent at (16, 20) against the west wall.
        ("03-30-01", (16.0, 20.0), (15.5, 24.5, 16.0, 24.0)),
        ("06-27-01", (16.0, 20.0), (15.5, 24.5, 16.0, 24.0)),
    ],
)
def test_a_given_agent_is_spawned_first_inside_its_enclosure(backend, task, start, inside):
    x0, x1, z0, z1 = inside
    for seed in (0, 1, 2):
        backend.reset(task, seed=seed)
        assert len(items_named(backend, "Wall")) == 4
        x, y, z = agent_state(backend)["position"]
        assert (x, z) == pytest.approx(start, abs=0.02) and y == pytest.approx(0.0, abs=0.02)
        for _ in range(10):
            backend.step([0, 1])
        x, _, z = agent_state(backend)["position"]
        assert x0 + AGENT_RADIUS - 0.05 <= x <= x1 - AGENT_RADIUS + 0.05
        assert z0 + AGENT_RADIUS - 0.05 <= z <= z1 - AGENT_RADIUS + 0.05


# -- ramps ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("degrees", "climbs"), [(45, True), (54, False)])
def test_a_ramp_is_climbed_from_rest_up_to_the_source_limit(backend, arena_file, degrees, climbs):
    limit = steepest_slope_from_rest()
    assert limit == pytest.approx(47.9, abs=0.05)
    assert (degrees < limit) == climbs
    height = 3.0
    length = height / math.tan(math.radians(degrees))  # atan(y / z) = degrees (both built 0.999 smaller)
    centre = 10.0 + length / 2
    low_edge = centre - SIZE_ADJUSTMENT * length / 2
    # Ramps rise towards their local -z (geometry.py): at rotation 180 the slope climbs towards +z.
    yaml = agent(20, low_edge - AGENT_RADIUS - 0.02) + item(
        "Ramp", 20, centre, (4, height, length), rotation=180
    )
    backend.reset(arena_file(yaml), seed=0)
    assert len(items_named(backend, "Ramp")) == 1
    highest = 0.0
    for _ in range(80):
        backend.step([1, 0])
        highest = max(highest, agent_state(backend)["position"][1])
    if climbs:
        assert highest >= 0.95 * SIZE_ADJUSTMENT * height
    else:
        assert highest < 0.25 * height


# -- camera -----------------------------------------------------------------------------------------


def red_run(frame: np.ndarray) -> int:
    """Width in pixels of the red wall in the frame's middle row (the eye's height)."""
    row = frame[frame.shape[0] // 2].astype(int)
    red = (row[:, 0] > 100) & (row[:, 1] < 70) & (row[:, 2] < 70)
    return int(red.sum())


def test_the_camera_sees_100_degrees_vertically_on_a_square_frame(arena_file):
    size, width = 256, 4.0
    b = ArenaBackend(frames=True, render_size=size)
    try:
        for distance in (6.0, 3.0):
            depth = 0.2
            # The camera is at the agent's centre (AgentCamMid's local position is 0), facing +z.
            wall_z = 5.0 + distance + SIZE_ADJUSTMENT * depth / 2
            yaml = agent(20, 5) + item("Wall", 20, wall_z, (width, 3, depth), color=(255, 0, 0))
            frame = b.reset(arena_file(yaml), seed=0).frames["camera"]
            half = math.tan(
                math.radians(FIELD_OF_VIEW / 2)
            )  # square frame: the horizontal FOV equals the vertical
            expected = size * (SIZE_ADJUSTMENT * width / 2) / (distance * half)
            assert red_run(frame) == pytest.approx(expected, abs=2.0), distance
    finally:
        b.close()


# -- versions ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "mass"), [("3.1.3", 2.0), ("4.1.0", 420.0)])
def test_the_heavy_block_weighs_what_its_version_says(arena_file, version, mass):
    """Moveable/Cardbox2.prefab m_Mass 2 (v3.1.3), Moveable/HeavyBlock.prefab m_Mass 420 (v4.1.0): the
    agent (mass 100, drive force 100 x 50) shoves the light v3 box along at nearly its own speed and
    moves the v4 one far less in the same 30 forward steps."""
    from agentkit.envs.pybullet_support.bullet import p

    backend = ArenaBackend(frames=False, aai_version=version)
    try:
        backend.reset(arena_file(agent(20, 5) + item("Cardbox2", 20, 8, (2, 2, 2))), seed=0)
        (box,) = backend._world.bodies
        assert p.getDynamicsInfo(box.body, -1, physicsClientId=backend._world.client)[0] == mass
        start = items_named(backend, "Cardbox2")[0]["position"][2]
        for _ in range(30):
            backend.step([1, 0])
        moved = items_named(backend, "Cardbox2")[0]["position"][2] - start
    finally:
        backend.close()
    # Pushed together from rest (drive 5000 N; the box slides with friction 0.425 x its weight, the agent
    # with 0.6 x its own), v3's box hardly slows the agent: it goes about as far as Go(30) alone, 23.6
    # units less the gap; v4's 420 kg box makes the pair about 5 times heavier and 3 times more braked.
    if version == "3.1.3":
        assert moved > 15.0
    else:
        assert 4.0 < moved < 10.0
