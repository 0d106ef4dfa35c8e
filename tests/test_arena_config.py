"""Animal-AI arena YAML: the typed loader, its one-line errors, and the spawning rules (layout)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentkit.envs.animalai_common import tasks as arena_tasks
from agentkit.envs.animalai_common.items import canonical_name, version_names
from agentkit.envs.animalai_common.layout import build_layout
from agentkit.envs.arena import ArenaConfigError, load_arena_config, parse_arena_config


def arena(items: str, header: str = "t: 250\n    pass_mark: 1") -> str:
    """A one-arena config; ``items`` is the YAML of the item list, indented by four spaces."""
    return f"!ArenaConfig\narenas:\n  0: !Arena\n    {header}\n    items:\n{items}"


AGENT_IN_FENCE = "    - !Item\n      name: Agent\n      positions: [!Vector3 {x: 0, y: 0, z: 20}]\n"
GOAL_AND_AGENT = """\
    - !Item
      name: Agent
      positions:
      - !Vector3 {x: 20, y: 0, z: 5}
      rotations: [0]
    - !Item
      name: GoodGoal
      positions:
      - !Vector3 {x: 20, y: 0, z: 30}
      sizes:
      - !Vector3 {x: 2, y: 2, z: 2}
"""


def test_all_900_testbed_files_load_with_their_items():
    ids = arena_tasks.packaged_task_ids()
    assert len(ids) == 900 and len(arena_tasks.task_infos()) == 900
    names = set()
    for task in ids:
        spec = arena_tasks.load_task(task).first()
        assert spec.t in (250, 500, 1000)
        names.update(item.name for item in spec.items)
    assert names == {
        "Agent",
        "Wall",
        "WallTransparent",
        "Ramp",
        "CylinderTunnel",
        "CylinderTunnelTransparent",
        "Cardbox1",
        "Cardbox2",
        "UObject",
        "LObject",
        "LObject2",
        "GoodGoal",
        "GoodGoalBounce",
        "GoodGoalMulti",
        "GoodGoalMultiBounce",
        "BadGoal",
        "BadGoalBounce",
        "DeathZone",
        "HotZone",
    }
    assert arena_tasks.load_task("10-22-02").first().pass_mark is None
    assert arena_tasks.load_task("07-01-01").first().blackouts  # a blackout task


def test_a_file_reads_into_typed_values():
    config = parse_arena_config(arena(GOAL_AND_AGENT))
    spec = config.first()
    assert spec.t == 250 and spec.pass_mark == 1.0 and spec.blackouts == ()
    agent, goal = spec.items
    assert agent.name == "Agent" and agent.rotations == (0.0,)
    assert goal.sizes[0].as_tuple() == (2.0, 2.0, 2.0) and goal.positions[0].z == 30.0


def test_v4_key_names_and_aliases_are_accepted():
    text = arena(
        "    - !Item\n      name: LightBlock\n",
        header="timeLimit: 100\n    passMark: 2.5\n    blackouts: [-20]",
    )
    spec = parse_arena_config(text).first()
    assert spec.t == 100 and spec.pass_mark == 2.5 and spec.blackouts == (-20,)
    assert spec.items[0].name == "Cardbox1"


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (
            "    - !Item\n      name: Agent\n    - !Item\n      name: Wall\n    - !Item\n      name: GoodGoall\n",
            "x.yaml: arena 0, item 2 'GoodGoall': unknown item (known: Agent, Wall,",
        ),
        (
            "    - !Item\n      name: Agent\n    - !Itme\n      name: GoodGoal\n",
            "x.yaml: arena 0, item 1: unknown tag '!Itme' at line 9",
        ),
        (
            "    - !Item\n      name: Wall\n      positions:\n      - !Vector4 {x: 1, y: 0, z: 1}\n",
            "x.yaml: arena 0, item 0 'Wall': unknown tag '!Vector4'",
        ),
        (
            "    - !Item\n      name: Wall\n      positon: []\n",
            "x.yaml: arena 0, item 0 'Wall': unknown field 'positon' (known: name, positions,",
        ),
        (
            "    - !Item\n      name: Wall\n      rotations: [zero]\n",
            "x.yaml: arena 0, item 0 'Wall': 'rotations' must hold numbers, got 'zero'",
        ),
        (
            "    - !Item\n      name: Wall\n      sizes:\n      - !RGB {r: 1, g: 2, b: 3}\n",
            "x.yaml: arena 0, item 0 'Wall': an entry of 'sizes' is tagged '!RGB', expected '!Vector3'",
        ),
        (
            "    - !Item\n      name: Wall\n      colors:\n      - !RGB {r: 300, g: 2, b: 3}\n",
            "x.yaml: arena 0, item 0 'Wall': colour components must be 0..256",
        ),
        (
            "    - !Item\n      name: Ramp\n      positions:\n      - !Vector3 {x: 1, y: 2 z: 3}\n",
            "x.yaml: arena 0, item 0 'Ramp': YAML syntax error at line 10",
        ),
        (
            "    - !Item\n      name: Agent\n    - !Item\n      name: Ramp\n      sizes:\n"
            "        - !Vector3 {x: 1, y: 0, z: 1}\n       - !Vector3 {x: 1, y: 0, z: 1}\n",
            "x.yaml: arena 0, item 1 'Ramp': YAML syntax error at line 13",
        ),
    ],
)
def test_errors_name_the_file_the_arena_and_the_item(items, expected):
    with pytest.raises(ArenaConfigError) as info:
        parse_arena_config(arena(items), source="x.yaml")
    message = str(info.value)
    assert message.startswith(expected), message
    assert "\n" not in message


def test_arena_level_errors_and_file_names(tmp_path):
    with pytest.raises(ArenaConfigError, match=r"^bad\.yaml: arena 3: 't' must be at least 0"):
        parse_arena_config("!ArenaConfig\narenas:\n  3: !Arena\n    t: -5\n", source="bad.yaml")
    with pytest.raises(ArenaConfigError, match=r"blackouts' frames must increase"):
        parse_arena_config(arena("", header="blackouts: [10, 5]"))
    with pytest.raises(ArenaConfigError, match=r"one negative period"):
        parse_arena_config(arena("", header="blackouts: [-10, 5]"))
    with pytest.raises(ArenaConfigError, match=r"^x\.yaml: the file is tagged '!Arena'"):
        parse_arena_config("!Arena\narenas: {}\n", source="x.yaml")
    path = tmp_path / "mine.yaml"
    path.write_text(arena("    - !Item\n      name: Goal\n"))
    with pytest.raises(ArenaConfigError, match=r"^mine\.yaml: arena 0, item 0 'Goal': unknown item"):
        load_arena_config(path)


def test_the_loader_never_builds_python_objects():
    text = arena("    - !!python/object/apply:os.system ['echo hacked']\n")
    with pytest.raises(
        ArenaConfigError, match=r"arena 0, item 0: unknown tag 'tag:yaml.org,2002:python/object"
    ):
        parse_arena_config(text)


# -- the v3.1.3 / v4.1.0 catalogue: every name and every field ------------------------------

CONFIGS = Path(__file__).parent / "data" / "animalai_configs"

# The prefab names of Animal-AI v3.1.3's scene (AAI3Arena.prefab: allPrefabs) and of v4.1.0's.
V313_NAMES = (
    "Agent",
    "CylinderTunnel",
    "CylinderTunnelTransparent",
    "Ramp",
    "Wall",
    "WallTransparent",
    "Cardbox1",
    "Cardbox2",
    "LObject",
    "LObject2",
    "UObject",
    "BadGoal",
    "BadGoalBounce",
    "DeathZone",
    "GoodGoal",
    "GoodGoalBounce",
    "GoodGoalMulti",
    "GoodGoalMultiBounce",
    "HotZone",
    "DecayGoal",
    "AntiDecayGoal",
    "GrowGoal",
    "ShrinkGoal",
    "SpawnerTree",
    "SpawnerDispenser",
    "SpawnerContainer",
    "SignPosterboard",
    "Pillar-Button",
)
V410_NAMES = (
    "CylinderTunnel",
    "CylinderTunnelTransparent",
    "Ramp",
    "Wall",
    "WallTransparent",
    "LightBlock",
    "HeavyBlock",
    "LBlock",
    "JBlock",
    "UBlock",
    "BadGoal",
    "BadGoalBounce",
    "DeathZone",
    "GoodGoal",
    "GoodGoalBounce",
    "GoodGoalMulti",
    "GoodGoalMultiBounce",
    "HotZone",
    "DecayGoal",
    "RipenGoal",
    "GrowGoal",
    "ShrinkGoal",
    "SpawnerTree",
    "SpawnerDispenserTall",
    "SpawnerContainerShort",
    "SignBoard",
    "SpawnerButton",
    "DecoyGoal",
    "DecoyGoalBounce",
    "DataZone",
    "DecayGoalEpEnding",
    "RipenGoalEpEnding",
)


@pytest.mark.parametrize("name", sorted(set(V313_NAMES + V410_NAMES)))
def test_every_v313_and_v410_name_loads_and_lays_out(name):
    text = arena(f"    - !Item\n      name: {name}\n      positions: [!Vector3 {{x: 20, y: 0, z: 20}}]\n")
    spec = parse_arena_config(text).first()
    layout = build_layout(spec, seed=0)
    if name != "Agent":
        assert len(layout.items) == 1 and layout.items[0].type.name == spec.items[0].name


def test_the_catalogue_knows_exactly_each_versions_names():
    assert set(V313_NAMES) == set(version_names("3.1.3"))
    assert set(V410_NAMES) - {"Agent"} <= set(version_names("4.1.0"))
    assert canonical_name("RipenGoal") == "AntiDecayGoal"  # v4.1.0 AliasMapper: AntiDecayGoal -> RipenGoal
    assert (
        canonical_name("SpawnerButton") == "Pillar-Button"
        and canonical_name("SignBoard") == "SignPosterboard"
    )


def test_the_docs_example_configs_of_the_v3_era_all_load():
    files = sorted(CONFIGS.glob("*.y*ml"))
    assert len(files) >= 9
    names = set()
    for path in files:
        config = load_arena_config(path)
        for spec in config.arenas.values():
            names.update(item.name for item in spec.items)
            build_layout(spec, seed=0)
    assert {"SpawnerTree", "Pillar-Button", "SignPosterboard", "DecayGoal", "AntiDecayGoal"} <= names


def test_colour_component_256_loads_and_builds_as_full_intensity():
    items = (
        "    - !Item\n      name: Wall\n      positions: [!Vector3 {x: 5, y: 0, z: 5}]\n"
        "      sizes: [!Vector3 {x: 1, y: 1, z: 1}]\n      colors:\n"
        "      - !RGB {r: 256, g: 0, b: 255}\n"
    )
    spec = parse_arena_config(arena(items)).first()
    assert spec.items[0].colors[0].as_tuple() == (256, 0, 255)
    assert build_layout(spec, seed=0).items[0].color == (255, 0, 255)


def test_every_optional_item_field_is_read_and_typed():
    items = """\
    - !Item
      name: Pillar-Button
      positions: [!Vector3 {x: 20, y: 0, z: 20}]
      moveDurations: [0.1]
      resetDurations: [1]
      rewardNames: ["GoodGoal", "BadGoal"]
      rewardWeights: [1, 0]
      spawnProbability: 0.5
      rewardSpawnPos: !Vector3 {x: 20, y: 0, z: 35}
      maxRewardCounts: [3, -1]
    - !Item
      name: SpawnerTree
      delays: [2]
      initialValues: [0.4]
      finalValues: [1.5]
      spawnCounts: [5]
      spawnColors: [!RGB {r: 255, g: 0, b: 0}]
      timesBetweenSpawns: [3]
      ripenTimes: [2]
      doorDelays: [4]
      timesBetweenDoorOpens: [5]
      changeRates: [-0.01]
    - !Item
      name: SignPosterboard
      symbolNames: ["left-arrow", "0101/1010"]
    - !Item
      name: Agent
      skins: ["panda"]
      frozenAgentDelays: [2.5]
    - !Item
      name: DataZone
      triggerZoneID: ["zone-a"]
      zoneVisibility: false
"""
    button, tree, sign, agent, zone = parse_arena_config(arena(items)).first().items
    assert button.move_durations == (0.1,) and button.reset_durations == (1.0,)
    assert button.reward_names == ("GoodGoal", "BadGoal") and button.reward_weights == (1.0, 0.0)
    assert button.spawn_probability == 0.5 and button.reward_spawn_pos.as_tuple() == (20.0, 0.0, 35.0)
    assert button.max_reward_counts == (3, -1) and isinstance(button.max_reward_counts[0], int)
    params = tree.params(0)
    assert (params.delay, params.initial_value, params.final_value, params.spawn_count) == (2.0, 0.4, 1.5, 5)
    assert params.spawn_color.as_tuple() == (255, 0, 0) and params.time_between_spawns == 3.0
    assert (params.ripen_time, params.door_delay, params.time_between_door_opens) == (2, 4, 5)
    assert params.change_rate == -0.01
    assert tree.params(1).delay is None
    assert sign.count == 2 and sign.params(1).symbol_name == "0101/1010"  # one board per symbol name
    assert agent.skins == ("panda",) and agent.frozen_agent_delays == (2.5,)
    assert zone.params(0).trigger_zone_id == "zone-a" and zone.zone_visibility is False


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("spawnCounts: [1.5]", "'spawnCounts' must be a whole number, got 1.5"),
        ("spawnProbability: 2", "'spawnProbability' must be in 0..1, got 2"),
        ("symbolNames: [[1, 2]]", "'symbolNames' must hold names"),
        ("zoneVisibility: maybe", "'zoneVisibility' must be true or false"),
        ("rewardSpawnPos: [1, 2, 3]", "'rewardSpawnPos' entries must be !Vector3"),
        ("delay: [3]", "unknown field 'delay'"),
    ],
)
def test_optional_fields_of_the_wrong_type_are_one_line_errors(field, expected):
    with pytest.raises(ArenaConfigError) as info:
        parse_arena_config(arena(f"    - !Item\n      name: SpawnerTree\n      {field}\n"), source="x.yaml")
    assert str(info.value).startswith("x.yaml: arena 0, item 0 'SpawnerTree': " + expected), str(info.value)


def test_arena_and_file_options_of_both_versions_are_read():
    v3 = parse_arena_config(
        "!ArenaConfig\nrandomizeArenas: true\narenas:\n  0: !Arena\n    t: 10\n"
        "    random_seed: 7\n    showNotification: true\n    canResetEpisode: false\n"
        "    canChangePerspective: false\n    defaultPerspective: 2\n"
    )
    assert v3.randomize_arenas and v3.first().random_seed == 7 and v3.first().show_notification
    assert not v3.first().can_reset_episode and not v3.first().can_change_perspective
    v4 = parse_arena_config(
        "!ArenaConfig\nshowNotification: true\narenas:\n  0: !Arena\n    timeLimit: 10\n"
        "    randomSeed: 3\n    mergeNextArena: true\n"
    )
    assert v4.first().random_seed == 3 and v4.first().merge_next_arena and not v4.randomize_arenas
    with pytest.raises(ArenaConfigError, match="both 'random_seed' and 'randomSeed'"):
        parse_arena_config("!ArenaConfig\narenas:\n  0: !Arena\n    random_seed: 1\n    randomSeed: 2\n")


# -- layout: Animal-AI's spawning rules -------------------------------------------------------


def test_item_i_takes_entry_i_of_each_list_and_missing_ones_are_random():
    items = """\
    - !Item
      name: Wall
      positions:
      - !Vector3 {x: 5, y: 0, z: 5}
      - !Vector3 {x: 15, y: 0, z: 5}
      - !Vector3 {x: 25, y: 0, z: 5}
      rotations: [0, 90]
      sizes:
      - !Vector3 {x: 2, y: 3, z: 4}
      colors:
      - !RGB {r: 0, g: 0, b: 255}
"""
    # ArenaBuilders.InstantiateSpawnable: a missing entry is -1, i.e. random (Prefab.SetSize, SetColor,
    # GetRotation); a given size is built 0.999 smaller (Prefab.sizeAdjustement); items rise 0.01 (AdjustY).
    layout = build_layout(parse_arena_config(arena(items)).first(), seed=9)  # a seed where all three fit
    first, second, third = layout.items
    assert first.size == pytest.approx((2 * 0.999, 3 * 0.999, 4 * 0.999)) and first.color == (0, 0, 255)
    assert first.rotation == 0.0 and first.position == (5.0, 0.01, 5.0)
    assert second.rotation == 90.0 and second.size != (1.0, 1.0, 1.0)
    assert all(lo <= v <= hi for v, lo, hi in zip(second.size, (0.1, 0.1, 0.1), (40.0, 10.0, 40.0)))
    assert second.color != (153, 153, 153) and all(0 <= c <= 255 for c in second.color)
    assert 0.0 <= third.rotation < 360.0 and third.rotation != 0.0  # no rotation given: random, from the seed


def test_random_components_come_from_the_seed():
    items = """\
    - !Item
      name: GoodGoal
      positions:
      - !Vector3 {x: -1, y: 0, z: 10}
      - !Vector3 {x: 10, y: 0, z: -1}
    - !Item
      name: Wall
      sizes:
      - !Vector3 {x: 2, y: -1, z: 2}
"""
    spec = parse_arena_config(arena(items)).first()
    a, b, c = build_layout(spec, 5), build_layout(spec, 5), build_layout(spec, 6)
    assert a == b and a != c
    goal_x, goal_z = a.items[0].position, a.items[1].position
    assert goal_x[2] == 10.0 and 0.5 <= goal_x[0] <= 39.5
    assert goal_z[0] == 10.0 and 0.5 <= goal_z[2] <= 39.5
    wall = a.items[2]
    assert (
        wall.size[0] == pytest.approx(1.998)
        and 0.1 <= wall.size[1] <= 10.0
        and wall.size[2] == pytest.approx(1.998)
    )


def test_sizes_are_clamped_and_goals_are_spheres_of_size_x():
    items = """\
    - !Item
      name: CylinderTunnel
      positions: [!Vector3 {x: 20, y: 0, z: 20}]
      sizes: [!Vector3 {x: 20, y: 1, z: 4}]
    - !Item
      name: GoodGoal
      positions: [!Vector3 {x: 5, y: 0, z: 5}]
      sizes: [!Vector3 {x: 2, y: 7, z: 0.1}]
"""
    tunnel, goal = build_layout(parse_arena_config(arena(items)).first(), 0).items
    assert tunnel.size == pytest.approx((10.0 * 0.999, 2.5 * 0.999, 4.0 * 0.999))  # clamped, then 0.999
    assert goal.size == pytest.approx((1.998, 1.998, 1.998))


def test_overlapping_items_are_not_spawned_but_zones_and_touching_items_are():
    items = """\
    - !Item
      name: Wall
      positions:
      - !Vector3 {x: 10, y: 0, z: 10}
      - !Vector3 {x: 11, y: 0, z: 10}
      - !Vector3 {x: 10, y: 2, z: 10}
      - !Vector3 {x: 14, y: 0, z: 10}
      rotations: [0, 0, 0, 0]
      sizes:
      - !Vector3 {x: 4, y: 2, z: 4}
      - !Vector3 {x: 4, y: 2, z: 4}
      - !Vector3 {x: 4, y: 1, z: 4}
      - !Vector3 {x: 4, y: 2, z: 4}
    - !Item
      name: DeathZone
      positions: [!Vector3 {x: 10, y: 0, z: 10}]
      sizes: [!Vector3 {x: 8, y: 0, z: 8}]
    - !Item
      name: GoodGoal
      positions: [!Vector3 {x: 10, y: 0, z: 15}]
"""
    layout = build_layout(parse_arena_config(arena(items)).first(), 0)
    placed = [(i.name, i.position) for i in layout.items]
    # positions are the centres of the items' bases, 0.01 above the given y (Prefab.AdjustY)
    assert ("Wall", (11.0, 0.01, 10.0)) not in placed  # overlaps the first wall
    assert ("Wall", (10.0, 2.01, 10.0)) in placed  # stands on it
    assert ("Wall", (14.0, 0.01, 10.0)) in placed  # touches it
    assert ("DeathZone", (10.0, 0.0, 10.0)) in placed  # a zone may overlap items
    assert ("GoodGoal", (10.0, 0.01, 15.0)) in placed  # and items may stand in a zone
    assert layout.skipped == 1


def test_goals_may_sit_above_the_low_part_of_a_ramp():
    """Ramps are wedges (rising towards local -z): a goal over the low end spawns, one inside the high end not."""
    items = """\
    - !Item
      name: Ramp
      positions: [!Vector3 {x: 20, y: 0, z: 20}]
      rotations: [0]
      sizes: [!Vector3 {x: 4, y: 2, z: 10}]
    - !Item
      name: GoodGoal
      positions:
      - !Vector3 {x: 20, y: 1, z: 24}
      - !Vector3 {x: 20, y: 1, z: 16}
"""
    layout = build_layout(parse_arena_config(arena(items)).first(), 0)
    assert [i.position for i in layout.items if i.name == "GoodGoal"] == [(20.0, 1.01, 24.0)]


def test_a_given_agent_is_placed_first_and_items_overlapping_it_are_dropped():
    """ArenaBuilders.InstantiateSpawnables: an Agent in the file is spawned before everything else."""
    items = """\
    - !Item
      name: Agent
      positions: [!Vector3 {x: 10, y: 0, z: 10}]
      rotations: [90]
    - !Item
      name: Wall
      positions: [!Vector3 {x: 10, y: 0, z: 10}]
      sizes: [!Vector3 {x: 3, y: 3, z: 3}]
"""
    layout = build_layout(parse_arena_config(arena(items)).first(), 3)
    assert layout.items == () and layout.skipped == 1  # the wall would overlap the agent
    assert layout.agent.position == (10.0, 0.01, 10.0) and layout.agent.rotation == 90.0
    free = build_layout(parse_arena_config(arena(GOAL_AND_AGENT)).first(), 3)
    assert free.agent.position == (20.0, 0.01, 5.0)
    # A place inside the fence cannot be built (Unity would fail): the agent is moved to a free place.
    walled = build_layout(parse_arena_config(arena(AGENT_IN_FENCE)).first(), 3)
    x, _, z = walled.agent.position
    assert 0.5 <= x <= 39.5 and 0.5 <= z <= 39.5 and (x, z) != (0.0, 20.0)
    random_agent = build_layout(parse_arena_config(arena("    - !Item\n      name: Agent\n")).first(), 3)
    assert 0.5 <= random_agent.agent.position[0] <= 39.5 and 0 <= random_agent.agent.rotation < 360


@pytest.mark.parametrize(
    "name", ["HollowBox", "BadGoalMulti", "DecoyGoalMulti", "BadGoalMultiBounce", "DecayGoalBounce"]
)
def test_an_item_of_a_later_animal_ai_is_left_out_with_a_warning_as_v313_and_v410_do(caplog, name):
    """The docs' Arena-Objects.yaml (from their v4.1.0 tag on) lists items Unity v4.1.0's arena has no
    prefab for; v3.1.3 and v4.1.0 build the rest of such a file, and so does the loader."""
    later = f"    - !Item\n      name: {name}\n      positions: [!Vector3 {{x: 30, y: 0, z: 30}}]\n"
    with caplog.at_level("WARNING"):
        config = parse_arena_config(arena(GOAL_AND_AGENT + later), source="later.yaml")
    assert [i.name for i in config.arenas[0].items] == ["Agent", "GoodGoal"]
    assert f"later.yaml: arena 0, item 2 '{name}'" in caplog.text and "left out" in caplog.text
    # a misspelling of one is still refused
    with pytest.raises(ArenaConfigError, match=r"unknown item"):
        parse_arena_config(arena(GOAL_AND_AGENT + later.replace(name, name + "s")), source="later.yaml")
