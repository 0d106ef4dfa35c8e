"""Every Animal-AI v3.1.3 item (and v4.1.0's extra ones) loads, builds in pybullet and behaves as its
script does: one test per item, played through the real backend."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from agentkit.envs.animalai_common.items import ITEM_TYPES, version_names
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.records import EndReason

STEP_SECONDS = 0.06


def arena_file(tmp_path: Path, items: str, t: int = 0, name: str = "arena.yaml", header: str = "") -> str:
    path = tmp_path / name
    path.write_text(f"!ArenaConfig\n{header}arenas:\n  0: !Arena\n    t: {t}\n    items:\n{items}")
    return str(path)


def agent(x: float, z: float, rotation: float, extra: str = "") -> str:
    return (
        f"    - !Item\n      name: Agent\n      positions: [!Vector3 {{x: {x}, y: 0, z: {z}}}]\n"
        f"      rotations: [{rotation}]\n{extra}"
    )


def item(name: str, x: float, z: float, rotation: float = 0, size=None, extra: str = "", y: float = 0) -> str:
    text = (
        f"    - !Item\n      name: {name}\n      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n"
        f"      rotations: [{rotation}]\n"
    )
    if size is not None:
        text += f"      sizes: [!Vector3 {{x: {size[0]}, y: {size[1]}, z: {size[2]}}}]\n"
    return text + extra


@pytest.fixture
def backend():
    b = ArenaBackend(frames=False)
    yield b
    b.close()


def entries(backend, name: str) -> list[dict]:
    return [e for e in backend.privileged_state()["items"] if e["name"] == name]


def wait(backend, seconds: float, action=(0, 0)):
    result = None
    for _ in range(round(seconds / STEP_SECONDS)):
        result = backend.step(list(action))
        if result.done:
            break
    return result


def drive_to(backend, target_xz, steps: int = 200):
    """Turn towards a point and drive at it, step by step, until the episode ends or time runs out."""
    result = None
    for _ in range(steps):
        state = backend.privileged_state()
        x, _, z = state["agent"]["position"]
        bearing = math.degrees(math.atan2(target_xz[0] - x, target_xz[1] - z)) % 360
        turn = (bearing - state["agent"]["heading_deg"] + 540) % 360 - 180
        action = [1, 0] if abs(turn) < 8 else [0, 1 if turn > 0 else 2]
        result = backend.step(action)
        if result.done:
            break
    return result


@pytest.mark.parametrize("name", sorted(set(ITEM_TYPES) - {"Agent"}))
def test_every_catalogue_item_builds_and_the_agent_can_play_beside_it(backend, tmp_path, name):
    task = arena_file(tmp_path, agent(5, 5, 0) + item(name, 20, 20))
    obs = backend.reset(task, seed=0)
    (entry,) = [e for e in obs.privileged["items"] if e["name"] == name]
    assert entry["kind"] == ITEM_TYPES[name].kind and entry["active"]
    wait(backend, 0.6, (1, 0))
    assert backend.privileged_state()["agent"]["position"][2] > 5.5


@pytest.mark.parametrize("version", ["3.1.3", "4.1.0"])
def test_every_name_of_each_version_builds_under_that_version(tmp_path, version):
    b = ArenaBackend(frames=False, aai_version=version)
    try:
        for name in version_names(version):
            if name != "Agent":
                b.reset(arena_file(tmp_path, agent(5, 5, 0) + item(name, 20, 20)), seed=0)
                b.step([0, 0])
    finally:
        b.close()


def test_decay_goal_is_worth_its_decayed_reward_and_keeps_its_size(backend, tmp_path):
    extra = (
        "      initialValues: [3]\n      finalValues: [1]\n      changeRates: [-0.01]\n      delays: [50]\n"
    )
    task = arena_file(tmp_path, agent(20, 5, 0) + item("DecayGoal", 20, 10, extra=extra))
    backend.reset(task, seed=0)
    (goal,) = entries(backend, "DecayGoal")
    assert goal["reward"] == 3 and goal["size"][0] == pytest.approx(2.997)
    wait(backend, 3.0)  # 150 updates: 50 of delay, 100 of decay
    (goal,) = entries(backend, "DecayGoal")
    assert goal["reward"] == pytest.approx(2.0, abs=0.02) and goal["size"][0] == pytest.approx(2.997)
    result = drive_to(backend, (20, 10))
    assert result.done and result.end_reason == EndReason.GOAL  # the only good goal: collecting it ends
    # t = 0: no clock; the reward is what the goal was worth then: 3 - 0.01 per update after the 50 of delay
    updates = backend._rules.updates
    assert backend.observe().total_reward == pytest.approx(3 - 0.01 * (updates - 50), abs=0.021)


@pytest.mark.parametrize(("version", "start", "end"), [("3.1.3", 0.5, 2.5), ("4.1.0", 2.5, 0.5)])
def test_antidecay_goal_ripens_in_v313_and_v410s_ripen_goal_decays(tmp_path, version, start, end):
    b = ArenaBackend(frames=False, aai_version=version)
    try:
        b.reset(arena_file(tmp_path, agent(5, 5, 0) + item("RipenGoal", 20, 20)), seed=0)
        (goal,) = entries(b, "AntiDecayGoal")
        assert goal["reward"] == start and goal["size"][0] == pytest.approx(0.999 * 2.5)
        wait(b, 9.0)  # 450 updates: 2.0 / 0.005 = 400 of change
        assert entries(b, "AntiDecayGoal")[0]["reward"] == pytest.approx(end, abs=1e-6)
    finally:
        b.close()


def test_grow_goal_grows_its_body_until_blocked_and_is_worth_its_size(backend, tmp_path):
    extra = (
        "      initialValues: [1]\n      finalValues: [4]\n      changeRates: [0.02]\n      delays: [10]\n"
    )
    # a slab 2.2 above the floor over the second goal, on two posts (walls are dynamic: one in the air falls)
    roof = item("Wall", 30, 20, size=(4, 0.5, 4), y=2.2)
    roof += item("Wall", 28.25, 20, size=(0.5, 2.2, 0.5)) + item("Wall", 31.75, 20, size=(0.5, 2.2, 0.5))
    task = arena_file(
        tmp_path,
        agent(5, 5, 0) + item("GrowGoal", 20, 20, extra=extra) + item("GrowGoal", 30, 20, extra=extra) + roof,
    )
    backend.reset(task, seed=0)
    free, blocked = entries(backend, "GrowGoal")
    assert free["size"][0] == pytest.approx(0.999) and free["reward"] == pytest.approx(0.999)
    wait(backend, 1.8)  # 90 updates: 10 of delay, then +0.02 per update
    free, blocked = entries(backend, "GrowGoal")
    assert 2.2 < free["size"][0] < 2.9 and free["reward"] == pytest.approx(free["size"][0], abs=0.02)
    assert (
        blocked["size"][0] < 2.3
    )  # it stopped when its top met the slab (about 2.2 - its own height above the floor)
    wait(backend, 6.0)
    free, blocked = entries(backend, "GrowGoal")
    assert free["size"][0] == pytest.approx(0.999 * 4, abs=0.011) and blocked["size"][0] < 2.3


def test_grow_goal_without_a_delay_is_worth_nothing(backend, tmp_path):
    task = arena_file(tmp_path, agent(20, 5, 0) + item("GrowGoal", 20, 9), t=250)
    backend.reset(task, seed=0)
    assert entries(backend, "GrowGoal")[0]["reward"] == 0
    result = drive_to(backend, (20, 9))
    assert result.done and -0.1 < backend.observe().total_reward < 0.0  # the clock's cost only


def test_shrink_goal_shrinks(backend, tmp_path):
    extra = (
        "      initialValues: [3]\n      finalValues: [1]\n      changeRates: [-0.02]\n      delays: [1]\n"
    )
    backend.reset(arena_file(tmp_path, agent(5, 5, 0) + item("ShrinkGoal", 20, 20, extra=extra)), seed=0)
    assert entries(backend, "ShrinkGoal")[0]["size"][0] == pytest.approx(2.997)
    wait(backend, 3.0)
    (goal,) = entries(backend, "ShrinkGoal")
    assert goal["size"][0] == pytest.approx(0.999, abs=0.011) and goal["reward"] == pytest.approx(
        goal["size"][0]
    )


def test_spawner_tree_drops_ripe_fruit_that_counts_and_can_be_eaten(backend, tmp_path):
    extra = "      spawnCounts: [1]\n      ripenTimes: [0.5]\n"
    backend.reset(arena_file(tmp_path, agent(20, 32, 180) + item("SpawnerTree", 20, 20, extra=extra)), seed=0)
    assert entries(backend, "GoodGoalMulti") == []
    wait(backend, 2.1)  # the prefab's 2 s before the first spawn
    (fruit,) = entries(backend, "GoodGoalMulti")
    assert fruit["position"][1] > 4.5 and fruit["position"][2] == pytest.approx(21.571 - 0.5, abs=0.7)
    assert backend._rules.good_goals == 1
    wait(backend, 2.5)  # ripe after 0.5 s, then it falls
    (fruit,) = entries(backend, "GoodGoalMulti")
    assert fruit["position"][1] < 0.2 and fruit["reward"] == pytest.approx(0.999 * 1.25, abs=1e-4)
    result = drive_to(backend, (fruit["position"][0], fruit["position"][2]), steps=400)
    assert result is not None and result.done and result.end_reason == EndReason.GOAL


def test_spawner_dispenser_releases_goals_that_roll_out_of_its_open_door(backend, tmp_path):
    extra = "      spawnCounts: [1]\n      ripenTimes: [0.5]\n"
    backend.reset(
        arena_file(tmp_path, agent(5, 5, 0) + item("SpawnerDispenser", 20, 20, extra=extra)), seed=0
    )
    wait(backend, 0.3)
    assert (
        entries(backend, "GoodGoalMulti") == [] and backend._rules.good_goals == 1
    )  # spawned, hidden inside
    wait(backend, 4.0)
    (goal,) = entries(backend, "GoodGoalMulti")
    assert goal["position"][0] > 20.8 and goal["reward"] == pytest.approx(0.999)  # out through the +x door


def test_spawner_container_opens_its_door_over_its_goal(backend, tmp_path):
    backend.reset(
        arena_file(
            tmp_path, agent(5, 5, 0) + item("SpawnerContainer", 20, 20, extra="      spawnCounts: [1]\n")
        ),
        seed=0,
    )
    world = backend._world
    (spawner,) = world.items.spawners
    assert spawner.machine.door.openness == 0.0
    wait(backend, 2.2)  # the prefab's 1 s, then 1 s of sliding
    assert spawner.openness == 1.0
    (goal,) = entries(backend, "GoodGoalMulti")
    assert (
        math.dist((goal["position"][0], goal["position"][2]), (20, 20)) < 0.05
    )  # inside, at its spawn point


def test_sign_posterboard_shows_its_symbol_in_its_colour(tmp_path):
    b = ArenaBackend(render_size=128, frames=True)
    try:
        # at rotation 270 the board's symbol face (its local -x) looks at -z, at the agent
        sign = item(
            "SignPosterboard",
            20,
            8,
            rotation=270,
            extra='      symbolNames: ["square"]\n      colors: [!RGB {r: 255, g: 0, b: 0}]\n',
        )
        b.reset(arena_file(tmp_path, agent(20, 5, 0) + sign), seed=0)
        frame = b.frame().astype(int)
        centre = frame[48:72, 54:74]  # the middle of the view: the board, 3 units ahead
        red = (centre[..., 0] > 120) & (centre[..., 1] < 80) & (centre[..., 2] < 80)
        assert red.mean() > 0.2
        b.reset(
            arena_file(
                tmp_path,
                agent(20, 5, 0)
                + item("SignPosterboard", 20, 8, rotation=270, extra='      symbolNames: ["square"]\n'),
            ),
            seed=0,
        )
        frame = b.frame().astype(int)[48:72, 54:74]
        blue = (
            (frame[..., 2] > 120) & (frame[..., 0] < 100) & (frame[..., 1] < 60)
        )  # the prefab's (61, 0, 214)
        assert blue.mean() > 0.2
    finally:
        b.close()


def test_pillar_button_spawns_its_reward_after_a_press(backend, tmp_path):
    button = item(
        "Pillar-Button",
        17,
        10,
        extra="      moveDurations: [0.1]\n      resetDurations: [1.0]\n"
        '      rewardNames: ["GoodGoal", "BadGoal"]\n      rewardWeights: [1, 0]\n'
        "      rewardSpawnPos: !Vector3 {x: 20, y: 0, z: 35}\n",
    )
    backend.reset(arena_file(tmp_path, agent(14, 10.2, 90) + button), seed=0)
    for _ in range(40):
        backend.step([1, 0])
        if backend.privileged_state()["records"]["button_presses"]:
            if list(backend.privileged_state()["records"]["button_presses"].values())[0]:
                break
    records = backend.privileged_state()["records"]
    assert list(records["button_presses"].values()) == [1]
    assert entries(backend, "GoodGoal") == []
    wait(backend, 1.3, (2, 0))  # back off; the reward comes after the 0.1 s press and 1 s reset
    (goal,) = entries(backend, "GoodGoal")
    assert goal["position"][0] == pytest.approx(20) and goal["position"][2] == pytest.approx(35)
    assert goal["size"][0] == 1.0 and goal["reward"] == 1.0  # the Resources prefab as it is
    assert backend.privileged_state()["records"]["button_spawns"] == {0: {"GoodGoal": 1}}


def test_data_zone_records_entries_and_exits_and_gives_nothing(tmp_path):
    zone = item("DataZone", 20, 12, size=(4, 1, 4), extra='      triggerZoneID: ["middle"]\n')
    rewards = []
    for items in (agent(20, 5, 0) + zone, agent(20, 5, 0)):
        b = ArenaBackend(frames=False)
        try:
            b.reset(arena_file(tmp_path, items, t=500), seed=0)
            wait(b, 1.8, (1, 0))
            rewards.append(b.observe().total_reward)
            events = b.privileged_state()["records"]["data_zone_events"]
            metrics = b.episode_metrics(b.observe())
        finally:
            b.close()
        if items.count("DataZone"):
            assert [(e["zone_id"], e["event"]) for e in events] == [("middle", "enter"), ("middle", "exit")]
            assert events[0]["update"] < events[1]["update"] and metrics["data_zone_visits"] == {"middle": 1}
        else:
            assert "data_zone_visits" not in metrics
    assert rewards[0] == pytest.approx(rewards[1])


def test_decoy_goal_ends_a_v410_episode_with_nothing(tmp_path):
    b = ArenaBackend(frames=False, aai_version="4.1.0")
    try:
        b.reset(
            arena_file(
                tmp_path, agent(20, 5, 0) + item("DecoyGoal", 20, 8) + item("GoodGoal", 30, 30), t=250
            ),
            seed=0,
        )
        result = drive_to(b, (20, 8))
        assert result.done and result.end_reason == EndReason.FAILED
        assert -0.05 < b.observe().total_reward < 0  # the clock only
    finally:
        b.close()


def test_the_agent_stays_frozen_for_its_frozen_agent_delay(backend, tmp_path):
    task = arena_file(tmp_path, agent(20, 5, 0, extra="      frozenAgentDelays: [1.2]\n"), t=100)
    backend.reset(task, seed=0)
    wait(backend, 1.2, (1, 1))
    state = backend.privileged_state()
    assert (
        state["agent"]["position"][2] == pytest.approx(5.01, abs=0.02) and state["agent"]["heading_deg"] == 0
    )
    assert state["agent"]["health"] == 100 and backend.observe().total_reward == 0
    wait(backend, 0.6, (1, 0))
    state = backend.privileged_state()
    assert state["agent"]["position"][2] > 5.5 and state["agent"]["health"] < 100


def test_a_file_with_several_arenas_plays_them_in_order_and_names_one_with_a_suffix(backend, tmp_path):
    text = "!ArenaConfig\narenas:\n"
    for index, t in ((0, 100), (2, 200), (5, 300)):
        text += f"  {index}: !Arena\n    t: {t}\n    items:\n" + agent(20, 5, 0).replace("    ", "    ", 1)
    path = tmp_path / "three.yaml"
    path.write_text(text)
    played = []
    for seed in range(4):
        obs = backend.reset(str(path), seed=seed)
        played.append((obs.privileged["arena"]["index"], obs.privileged["arena"]["t"]))
    assert played == [(0, 100), (2, 200), (5, 300), (0, 100)]
    assert backend.episode_metrics(backend.observe())["arena"] == 0
    assert backend.reset(f"{path}#5", seed=0).privileged["arena"]["t"] == 300
    assert backend.reset(f"{path}#5", seed=1).privileged["arena"]["index"] == 5
    with pytest.raises(ValueError, match="has no arena 3"):
        backend.reset(f"{path}#3", seed=0)
    random_text = text.replace("!ArenaConfig\n", "!ArenaConfig\nrandomizeArenas: true\n")
    (tmp_path / "random.yaml").write_text(random_text)
    order = [
        backend.reset(str(tmp_path / "random.yaml"), seed=s).privileged["arena"]["index"] for s in range(12)
    ]
    assert set(order) == {0, 2, 5} and all(a != b for a, b in zip(order, order[1:]))


def test_the_docs_example_files_play(backend):
    folder = Path(__file__).parent / "data" / "animalai_configs"
    for path in sorted(folder.glob("*.y*ml")):
        backend.reset(str(path), seed=0)
        for _ in range(20):
            if backend.step([1, 0]).done:
                break
        assert np.isfinite(backend.observe().total_reward)


# The names Animal-AI's own object definitions list, typed here from the docs (repository
# Kinds-of-Intelligence-CFI/animal-ai), not read from our catalogue, so a name the catalogue lacks fails:
# docs/definitionsOfObjects.md at tag v3.1.3 (1ab5911, 30 Sep 2023), with each documented size range
# (min, max; spheres use x only); ...
DOCS_V313 = {
    "Wall": ((0.1, 0.1, 0.1), (40, 10, 40)),
    "WallTransparent": ((0.1, 0.1, 0.1), (40, 10, 40)),
    "Ramp": ((0.5, 0.1, 0.5), (40, 10, 40)),
    "CylinderTunnel": ((2.5, 2.5, 2.5), (10, 10, 10)),
    "CylinderTunnelTransparent": ((2.5, 2.5, 2.5), (10, 10, 10)),
    "Cardbox1": ((0.5, 0.5, 0.5), (10, 10, 10)),
    "Cardbox2": ((0.5, 0.5, 0.5), (10, 10, 10)),
    "UObject": ((1, 0.3, 3), (5, 2, 20)),
    "LObject": ((1, 0.3, 3), (5, 2, 20)),
    "LObject2": ((1, 0.3, 3), (5, 2, 20)),
    "GoodGoal": ((0.5,) * 3, (5,) * 3),
    "GoodGoalBounce": ((0.5,) * 3, (5,) * 3),
    "BadGoal": ((0.5,) * 3, (5,) * 3),
    "BadGoalBounce": ((0.5,) * 3, (5,) * 3),
    "GoodGoalMulti": ((0.5,) * 3, (5,) * 3),
    "GoodGoalMultiBounce": ((0.5,) * 3, (5,) * 3),
    "DeathZone": ((1, 0.5, 1), (40, 10, 40)),
    "HotZone": ((1, 0.5, 1), (40, 10, 40)),
    "DecayGoal": None,  # sized by its reward (test_decay_goal_...)
    "AntiDecayGoal": None,
    "GrowGoal": None,
    "ShrinkGoal": None,
    "SpawnerTree": None,  # fixed size
    "SpawnerDispenser": None,
    "SpawnerContainer": None,
    "SignPosterboard": None,
}
# ... the same file at tag v3.1.4 (b6d66cc, 13 Dec 2023) adds Pillar-Button; docs/Arena-Object-Definitions.md
# of 22 Jan 2024 (e335749, "in line with the paper") adds the later spellings and v4 names.
DOCS_LATER = [
    "Pillar-Button",
    "CardBox1",
    "CardBox2",
    "LightBlock",
    "HeavyBlock",
    "UBlock",
    "LBlock",
    "JBlock",
    "RipenGoal",
    "SignBoard",
    "SpawnerButton",
    "SpawnerDispenserShort",
    "SpawnerDispenserTall",
]
# A request below each minimum across, above each maximum up: Prefab.SetSize clamps it into the range.
_UNDER_OVER = (0.05, 50.0, 0.05)


@pytest.mark.parametrize("name", [*DOCS_V313, *DOCS_LATER])
def test_every_name_in_animal_ai_s_object_definitions_loads_and_plays(backend, tmp_path, name):
    size_range = DOCS_V313.get(name)
    task = arena_file(tmp_path, agent(5, 5, 0) + item(name, 20, 20, size=_UNDER_OVER if size_range else None))
    obs = backend.reset(task, seed=0)
    built = [e for e in obs.privileged["items"] if e["name"] not in ("Agent",)]
    assert built, f"{name} was not built"
    if size_range is not None:
        (entry,) = built
        low, high = size_range
        expected = [0.999 * low[0], 0.999 * high[1], 0.999 * low[2]]
        if entry["kind"] == "goal":  # a sphere of the x size
            expected = [0.999 * low[0]] * 3
        across = [0, 2] if entry["kind"] == "zone" else [0, 1, 2]  # a zone reports its reach, not its y
        assert [entry["size"][i] for i in across] == pytest.approx([expected[i] for i in across], abs=1e-3)
    wait(backend, 0.6, (1, 0))
    assert backend.privileged_state()["agent"]["position"][2] > 5.5
