"""The typed pose and world map (``agentkit.observers.Pose``, ``WorldMap``, ``WorldShape``).

Every backend builds them (the real simulators here, no fakes), their stored JSON is what
transcripts already hold, and rows written before the types existed still read and still draw.
"""

from __future__ import annotations

import json

from agentkit.envs.animalai.backend import AnimalAIBackend
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.envs.gridworld.backend import GridworldBackend
from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.messages import Message
from agentkit.observers import Observer, ObserverConfig, Pose, WorldMap, WorldShape
from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptStore
from agentkit.viewer import ViewerApp, open_readonly
from agentkit.viewer.trajectory import pose_of

# A map and observations as stored before these types existed: the dicts the backends returned.
OLD_MAP = {
    "bounds": [0.0, 0.0, 40.0, 40.0],
    "y_up": True,
    "shapes": [
        {"kind": "circle", "x": 20.0, "y": 30.0, "r": 0.999, "fill": "#00ff00", "label": "GoodGoal"},
        {
            "kind": "rect",
            "x": 10.0,
            "y": 10.0,
            "w": 4.995,
            "h": 4.995,
            "angle": 45.0,
            "fill": "#ff0000",
            "label": "DeathZone",
            "opacity": 0.45,
        },
    ],
}
OLD_ARENA_POSE = {"position": [20.0, 0.0, 1.1], "heading": 30.0}
OLD_TRIFINGER_POSE = {"position": [0.05, -0.02], "heading": 12.5, "label": "block 0"}
OLD_GRID_POSE = {"position": [6, 5], "heading": "west"}


def _json(value):
    return json.loads(json.dumps(value))


def test_stored_rows_read_back_and_write_the_same_json():
    for row in (OLD_ARENA_POSE, OLD_TRIFINGER_POSE, OLD_GRID_POSE):
        pose = Pose.from_json(row)
        assert pose is not None and pose.to_json() == row
    assert Pose.from_json(OLD_ARENA_POSE) == Pose(20.0, 1.1, 30.0)  # x and z on the floor
    assert Pose.from_json(OLD_ARENA_POSE).height == 0.0
    assert Pose.from_json(OLD_TRIFINGER_POSE).label == "block 0"
    drawing = WorldMap.from_json(OLD_MAP)
    assert drawing is not None and drawing.to_json() == OLD_MAP
    assert drawing.shapes[1] == WorldShape(
        "rect", 10.0, 10.0, w=4.995, h=4.995, angle=45.0, fill="#ff0000", opacity=0.45, label="DeathZone"
    )
    for bad in (None, {}, {"position": [1]}, {"position": ["a", 2]}, {"position": [1, 2, 3, 4]}):
        assert Pose.from_json(bad) is None
    assert Pose.from_json({"position": [1, 2], "heading": {"x": 1}}) == Pose(1.0, 2.0, None)


def test_an_old_structured_view_with_orientation_still_gives_the_pose():
    """The structured view names the heading "orientation" (the word models are shown); a row with
    only that view, stored before observations kept a pose, still places the agent."""
    old = {"step": 3, "structured": {"position": [2, 7], "orientation": "north", "grid_size": {}}}
    assert pose_of(old) == Pose(2.0, 7.0, "north")
    both = {"structured": {"position": [20.0, 0.0, 1.1], "orientation": 30.0}, "pose": OLD_TRIFINGER_POSE}
    assert pose_of(both) == Pose(20.0, 1.1, 30.0, label="block 0")


def _roundtrip(backend, task):
    """The observation a backend makes after reset, through the observer and JSON as stored."""
    raw = backend.reset(task, 0)
    observation = Observer(ObserverConfig(views=["structured"])).observe(raw)
    return raw, _json(observation.to_json())


def test_the_arena_builds_a_typed_map_and_pose():
    backend = ArenaBackend(frames=False)
    try:
        raw, stored = _roundtrip(backend, "07-16-01")
        drawing = backend.world_map()
    finally:
        backend.close()
    assert isinstance(drawing, WorldMap) and (drawing.x1, drawing.y1, drawing.y_up) == (40.0, 40.0, True)
    assert {s.label for s in drawing.shapes} >= {"GoodGoal", "DeathZone"}
    assert WorldMap.from_json(_json(drawing.to_json())) == drawing
    assert isinstance(raw.pose, Pose) and isinstance(raw.pose.heading, float)
    assert stored["pose"] == raw.pose.to_json() and len(stored["pose"]["position"]) == 3
    assert stored["structured"]["orientation"] == raw.pose.heading  # the structured view's word
    assert pose_of(stored) == raw.pose


def test_the_unity_backends_builtin_build_draws_the_arenas_map_and_a_pose_without_heading():
    backend = AnimalAIBackend(aai_build="builtin", frames=False)
    try:
        raw, stored = _roundtrip(backend, "07-16-01")
        drawing = backend.world_map()
    finally:
        backend.close()
    assert isinstance(drawing, WorldMap) and any(s.label == "GoodGoal" for s in drawing.shapes)
    assert isinstance(raw.pose, Pose) and raw.pose.heading is None and raw.pose.height is not None
    assert stored["pose"] == {"position": raw.pose.to_json()["position"], "heading": None}


def test_trifinger_draws_its_floor_and_poses_block_0():
    backend = TriFingerBackend(cameras=False)
    try:
        raw, stored = _roundtrip(backend, "pushing")
        drawing = backend.world_map()
    finally:
        backend.close()
    assert isinstance(drawing, WorldMap) and drawing.shapes[0].label == "arena floor"
    assert all(isinstance(s, WorldShape) for s in drawing.shapes)
    assert WorldMap.from_json(_json(drawing.to_json())) == drawing
    assert isinstance(raw.pose, Pose) and raw.pose.label == "block 0" and raw.pose.height is None
    assert 0.0 <= raw.pose.heading < 360.0
    assert stored["pose"]["label"] == "block 0"


def test_the_gridworld_poses_in_cells_and_compass_words_and_draws_no_map():
    backend = GridworldBackend(frame="none")
    try:
        raw, stored = _roundtrip(backend, "MiniGrid-Empty-8x8-v0")
        assert backend.world_map() is None  # its map is the ASCII view of every turn
    finally:
        backend.close()
    assert raw.pose == Pose(1, 1, "east")
    assert stored["pose"] == {"position": [1, 1], "heading": "east"}  # integers, as stored before


def test_an_old_stored_map_and_poses_still_render(tmp_path):
    """Rows written before the types existed (the backends' dicts) draw the same page parts."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    with TranscriptStore(url) as store:
        run = store.create_run("aai-arena", ["07-16-01"], "m", {}, {"system.j2": "s"})
        episode = store.start_episode(run, "07-16-01", 0)
        for i in range(2):
            pose = {"position": [20.0, 0.0, 1.1 + 3 * i], "heading": 30.0 * i}
            record = TurnRecord(
                index=i,
                observation={
                    "step": i,
                    "status_text": f"Step: {i}",
                    "structured": {"position": pose["position"], "orientation": 30.0 * i},
                    "pose": pose,
                },
                messages=[Message("user", f"turn {i}")],
                answer="Wait(1);",
                usage=Usage(),
                latency_s=0.0,
                cached=False,
                script=None,
                parse_error=None,
                compile_error=None,
                actions=[],
                reward=0.0,
                total_reward=0.0,
                health=None,
                done=False,
                timings={},
                prompt_context={"time_limit": 100} if i == 0 else None,  # the first turn's
                world_map=OLD_MAP if i == 0 else None,
            )
            store.add_turn(episode, record)
        assert store.get_world_map(episode) == WorldMap.from_json(OLD_MAP)
    html = ViewerApp(open_readonly(url)).handle("GET", f"/episodes/{episode}?turn=1").body.decode()
    the_map = html[html.index('class="map"') :]
    the_map = the_map[: the_map.index("</svg>")]
    assert "<title>GoodGoal</title></circle>" in the_map and "<title>DeathZone</title></rect>" in the_map
    assert 'transform="rotate(45.0 ' in the_map and 'class="agent"' in the_map and "<polygon" in the_map
