"""The arena's top-down map in the viewer: what stands where, with the agent's path and heading on it.

The arena describes its spawned layout as plain footprints (``Backend.world_map``); the loop stores
that drawing with an episode's first turn, and the viewer draws it under the trajectory. Stored
maps are data: odd values are left out or neutralised, never passed into the page as markup.
"""

from __future__ import annotations

import re

import pytest

from agentkit.envs.arena.backend import ArenaBackend
from agentkit.observers import Pose, WorldMap
from agentkit.testing.cli_runner import run_json
from agentkit.viewer import ViewerApp, open_readonly
from agentkit.viewer.svg import map_svg


def test_the_arena_draws_its_spawned_items_from_above():
    backend = ArenaBackend(frames=False)
    try:
        backend.reset("07-16-01", 0)  # a GoodGoal beyond a DeathZone turned 45 degrees
        drawing = backend.world_map().to_json()  # as stored
        state = backend.privileged_state()
    finally:
        backend.close()
    assert drawing["bounds"] == [0.0, 0.0, 40.0, 40.0] and drawing["y_up"] is True
    goals = [s for s in drawing["shapes"] if s["label"] == "GoodGoal"]
    zones = [s for s in drawing["shapes"] if s["label"] == "DeathZone"]
    assert len(goals) == 1 and goals[0]["kind"] == "circle"
    goal = next(i for i in state["items"] if i["name"] == "GoodGoal")
    assert (goals[0]["x"], goals[0]["y"]) == pytest.approx(
        (goal["position"][0], goal["position"][2]), abs=0.01
    )
    assert goals[0]["r"] == pytest.approx(goal["size"][0] / 2, abs=0.01)
    (zone,) = zones
    assert zone["kind"] == "rect" and (zone["w"], zone["h"], zone["angle"]) == (
        4.995,
        4.995,
        45.0,
    )  # built x 0.999
    assert zone["opacity"] < 1  # a floor zone, drawn see-through
    assert all(re.fullmatch(r"#[0-9a-f]{6}", s["fill"]) for s in drawing["shapes"])


@pytest.fixture(scope="module")
def arena_db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("world-map")
    db = f"sqlite:///{folder / 'arena.db'}"
    data = run_json(["run", "--env", "aai-arena", "--task", "07-16-01", "--db", db], folder)
    return db, data["episodes"][0]["episode_id"]


def test_the_map_is_stored_once_with_the_first_turn_and_poses_with_every_turn(arena_db):
    db, episode_id = arena_db
    store = open_readonly(db)
    drawing = store.get_world_map(episode_id).to_json()
    assert drawing and any(s["label"] == "GoodGoal" for s in drawing["shapes"])
    turns = store.get_turns(episode_id, with_messages=False)
    assert len(turns) > 1
    assert all(isinstance(t.observation["pose"]["heading"], float) for t in turns)  # kept for viewers
    assert store.get_world_map("no-such-episode") is None


def test_the_episode_page_draws_the_items_under_the_path_with_the_agents_heading(arena_db):
    db, episode_id = arena_db
    app = ViewerApp(open_readonly(db))
    page = app.handle("GET", f"/episodes/{episode_id}?turn=1").body.decode()
    the_map = page[page.index('class="map"') :]
    the_map = the_map[: the_map.index("</svg>")]
    assert "<title>GoodGoal</title></circle>" in the_map and "<title>DeathZone</title></rect>" in the_map
    assert 'transform="rotate(45.0 ' in the_map  # the zone turned 45 degrees
    assert 'class="agent"' in the_map and "<polygon" in the_map  # an arrow: the heading is known
    assert the_map.index("GoodGoal") < the_map.index("<polyline")  # items under the path


def test_compass_headings_point_the_right_way_on_a_map_with_y_up():
    """0 degrees faces +y (up on the drawing), 90 faces +x (right): the arrow's tip says so."""
    drawing = WorldMap.from_json({"bounds": [0, 0, 10, 10], "y_up": True, "shapes": []})
    centre = 5.0 * 48.0  # 480 px for 10 units
    for heading, (dx, dy) in {0.0: (0, -1), 90.0: (1, 0), 180.0: (0, 1), 270.0: (-1, 0)}.items():
        svg = str(map_svg(None, [Pose(5.0, 5.0, heading)], 0, world=drawing))
        tip = [float(v) for v in re.search(r'<polygon points="([^"]+)"', svg).group(1).split()[0].split(",")]
        assert (round((tip[0] - centre) / 5), round((tip[1] - centre) / 5)) == (dx, dy), (heading, tip)


def test_stored_maps_are_data_not_markup():
    hostile = {
        "bounds": [0, 0, 40, 40],
        "y_up": True,
        "shapes": [
            {
                "kind": "rect",
                "x": 1,
                "y": 1,
                "w": 2,
                "h": 2,
                "fill": '#fff" onmouseover="alert(1)',
                "label": "<script>x</script>",
            },
            {"kind": "circle", "x": "1", "y": 2, "r": 1},  # not a number: left out
            {"kind": "polygon", "x": 1, "y": 1},  # unknown kind: left out
            {"kind": "circle", "x": 3, "y": 3, "r": float("nan")},  # not finite: left out
            "nonsense",
        ],
    }
    drawing = WorldMap.from_json(hostile)
    assert drawing is not None and len(drawing.shapes) == 1 and drawing.shapes[0].fill == "#999999"
    svg = str(map_svg(None, [Pose(2.0, 2.0, None)], 0, world=drawing))
    assert "onmouseover" not in svg and "<script>" not in svg and "&lt;script&gt;" in svg
    for bad in (None, {}, {"bounds": [0, 0, 0, 10]}, {"bounds": [0, 0, "a", 1]}, {"bounds": [0, 0, 1]}):
        assert WorldMap.from_json(bad) is None


def test_the_unity_connector_draws_the_map_where_it_is_known(tmp_path):
    """The builtin build spawns as the arena does: same map for the seed. A Unity build's own random
    placements are unknown, so its map is drawn only when the file fixes every placement."""
    from agentkit.envs.animalai.backend import AnimalAIBackend

    direct = ArenaBackend(frames=False)
    builtin = AnimalAIBackend(aai_build="builtin", frames=False)
    try:
        direct.reset("07-16-01", 3)
        builtin.reset("07-16-01", 3)
        assert builtin.world_map() == direct.world_map()
    finally:
        builtin.close()
        direct.close()

    build = tmp_path / "AnimalAI.x86_64"
    build.write_text("#!/bin/sh\nexit 0\n")
    build.chmod(0o755)
    unity = AnimalAIBackend(aai_build=str(build))
    fixed = tmp_path / "fixed.yaml"
    fixed.write_text(
        "!ArenaConfig\narenas:\n  0: !Arena\n    t: 100\n    items:\n"
        "    - !Item\n      name: GoodGoal\n      positions: [!Vector3 {x: 10, y: 0, z: 30}]\n"
        "      sizes: [!Vector3 {x: 2, y: 2, z: 2}]\n"
    )
    random = tmp_path / "random.yaml"
    random.write_text(
        "!ArenaConfig\narenas:\n  0: !Arena\n    t: 100\n    items:\n    - !Item\n      name: GoodGoal\n"
    )
    from agentkit.envs.animalai_common.tasks import load_task

    try:
        assert unity.world_map() is None  # no episode yet
        unity._arena_spec, unity._seed = load_task(str(fixed)).first(), 7  # as reset() leaves them
        (goal,) = unity.world_map().to_json()["shapes"]
        assert (goal["x"], goal["y"], goal["r"]) == (10.0, 30.0, 0.999)  # a size-2 goal is built 1.998 wide
        unity._arena_spec = load_task(str(random)).first()
        assert unity.world_map() is None
    finally:
        unity.close()
