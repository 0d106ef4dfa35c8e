"""Observers: image encoding, ASCII map, English description, structured dict, status, Observer."""

from __future__ import annotations

import hashlib
import io
import json

import numpy as np
import pytest
from PIL import Image
from pydantic import ValidationError

from agentkit.observers import (
    Cell,
    GridView,
    Observer,
    ObserverConfig,
    RawObservation,
    ascii_map,
    describe_grid,
    encode_image,
    render_ascii,
    status_text,
    structured_view,
)

WALL = Cell("wall")


def room(width: int = 7, height: int = 7) -> list[list[Cell | None]]:
    """A walled room of empty floor, cells[y][x]."""
    return [
        [WALL if x in (0, width - 1) or y in (0, height - 1) else None for x in range(width)]
        for y in range(height)
    ]


def place(cells, x: int, y: int, cell: Cell):
    cells[y][x] = cell
    return cells


# -- images --------------------------------------------------------------------------------------


def frame(height: int, width: int) -> np.ndarray:
    yy, xx = np.mgrid[0:height, 0:width]
    return np.stack([xx % 256, yy % 256, (xx + yy) % 256], axis=-1).astype(np.uint8)


def test_jpeg_keeps_small_frames_and_hashes_the_bytes():
    image = encode_image(frame(512, 512), "view")
    assert image.media_type == "image/jpeg" and image.data[:2] == b"\xff\xd8"
    assert (image.width, image.height) == (512, 512)
    assert image.sha256 == hashlib.sha256(image.data).hexdigest()
    assert Image.open(io.BytesIO(image.data)).size == (512, 512)
    assert image.data_url().startswith("data:image/jpeg;base64,")


def test_large_frames_are_downscaled_keeping_aspect():
    image = encode_image(frame(768, 1024), "view", max_side=512)
    assert (image.width, image.height) == (512, 384)
    assert Image.open(io.BytesIO(image.data)).size == (512, 384)
    tall = encode_image(frame(900, 300), "view", max_side=300)
    assert (tall.width, tall.height) == (100, 300)


def test_png_is_lossless():
    pixels = frame(64, 48)
    image = encode_image(pixels, "map", fmt="png")
    assert image.media_type == "image/png" and image.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(image.data))), pixels)


def test_jpeg_quality_changes_size():
    pixels = frame(256, 256)
    assert len(encode_image(pixels, "v", quality=30).data) < len(encode_image(pixels, "v", quality=95).data)


@pytest.mark.parametrize(
    ("pixels", "fmt"), [(np.zeros((8, 8), np.uint8), "jpeg"), (np.zeros((8, 8, 3), np.uint8), "gif")]
)
def test_bad_frames_and_formats_are_refused(pixels, fmt):
    with pytest.raises(ValueError):
        encode_image(pixels, "v", fmt=fmt)


# -- ASCII ---------------------------------------------------------------------------------------


def test_ascii_symbols_and_legend_list_only_what_is_shown():
    cells = room()
    place(cells, 2, 2, Cell("key", "red"))
    place(cells, 4, 2, Cell("ball", "blue"))
    place(cells, 2, 4, Cell("box", "green"))
    place(cells, 6, 3, Cell("door", "yellow", "locked"))
    view = ascii_map(GridView(cells, agent_pos=(3, 3), agent_dir="south"))
    assert view.rows[2] == "#.r.B.#"
    assert view.rows[3] == "#..v..="
    assert view.rows[4] == "#.2...#"
    legend = dict(view.legend)
    assert set(legend) == {"#", ".", "v", "r", "B", "2", "="}  # no '?', no other colours or kinds
    assert set("".join(view.rows)) == set(legend)
    assert legend["r"] == "red key" and legend["B"] == "blue ball" and legend["2"] == "green box"
    assert legend["="] == "locked door, yellow"
    assert legend["v"].startswith("you, facing south, at x=3, y=3")


@pytest.mark.parametrize(
    ("direction", "arrow"), [("east", ">"), ("south", "v"), ("west", "<"), ("north", "^")]
)
def test_agent_arrow(direction, arrow):
    view = ascii_map(GridView(room(), agent_pos=(2, 2), agent_dir=direction))
    assert view.rows[2][2] == arrow


def test_unseen_cells_stay_hidden():
    cells = place(room(), 5, 1, Cell("key", "purple"))
    seen = np.zeros((7, 7), dtype=bool)
    seen[3:, :] = True  # the top half is unknown, including the purple key
    grid = GridView(cells, agent_pos=(3, 4), agent_dir="north", seen=seen)
    view = ascii_map(grid)
    assert all(set(row) == {"?"} for row in view.rows[:3])
    text = render_ascii(grid)
    assert "p" not in "".join(view.rows) and "purple" not in text
    assert dict(view.legend)["?"] == "not seen yet"


def test_doors_of_several_colours_are_told_apart_by_position():
    cells = place(place(room(), 0, 3, Cell("door", "red", "closed")), 6, 3, Cell("door", "blue", "closed"))
    legend = dict(ascii_map(GridView(cells, agent_pos=(3, 3), agent_dir="east")).legend)
    assert legend["+"] == "closed door: red at (0, 3); blue at (6, 3)"


def test_agent_legend_says_what_it_stands_on():
    cells = place(room(), 3, 3, Cell("door", "red", "open"))
    legend = dict(ascii_map(GridView(cells, agent_pos=(3, 3), agent_dir="east")).legend)
    assert "standing on open red door" in legend[">"]
    assert "/" not in legend


def test_unknown_kinds_get_a_spare_symbol():
    cells = place(room(), 2, 2, Cell("crate", "orange"))
    legend = dict(ascii_map(GridView(cells, agent_pos=(3, 3), agent_dir="east")).legend)
    assert legend["&"] == "crate, orange"


# -- language ------------------------------------------------------------------------------------


def test_language_gives_relative_directions_and_distances():
    cells = room(9, 9)
    place(cells, 5, 6, Cell("key", "red"))  # agent at (4, 4) facing south: 2 ahead, 1 to the left
    place(cells, 1, 4, Cell("door", "yellow", "closed"))  # 3 to the right (west when facing south)
    place(cells, 7, 1, Cell("ball", "green"))  # behind
    text = describe_grid(GridView(cells, agent_pos=(4, 4), agent_dir="south", carrying=Cell("key", "blue")))
    assert "a red key 2 steps ahead and 1 to the left" in text
    assert "a closed yellow door 3 steps to your right" in text
    assert "a green ball 3 steps behind and 3 to the left" in text
    assert "carry" not in text  # the status block says it (Carrying:), once
    assert "You face south" in text and "walk 3 steps, then a wall" in text


def test_language_names_a_wall_directly_ahead_and_hides_the_unseen():
    cells = place(room(), 5, 5, Cell("ball", "purple"))
    seen = np.ones((7, 7), dtype=bool)
    seen[5, 5] = False
    text = describe_grid(GridView(cells, agent_pos=(1, 3), agent_dir="west", seen=seen))
    assert "directly in front of you is a wall" in text
    assert "purple" not in text and "You have not seen any objects yet." in text


def test_language_mentions_the_mission_object_once_seen():
    """On a real BabyAI level: not described before it is seen, described after."""
    from agentkit.envs.gridworld import GridworldBackend

    backend = GridworldBackend(frame="none")
    policy = backend.reference_policy()
    observer = Observer(ObserverConfig(views=("language",)))
    for seed in range(50):
        raw = backend.reset("BabyAI-GoToLocal-v0", seed)
        target = raw.mission.removeprefix("go to the ").removeprefix("go to a ")
        kind, color = target.split()[-1], target.split()[0]
        targets = [o["pos"] for o in raw.privileged["objects"] if (o["kind"], o["color"]) == (kind, color)]
        if any(raw.grid.seen[y][x] for x, y in targets):
            continue  # pick an episode where the target starts out of sight
        assert target not in observer.observe(raw).language
        for _ in range(30):
            for command in policy.next_commands():
                for action in backend.compile(command):
                    backend.step(action)
            raw = backend.observe()
            if any(raw.grid.seen[y][x] for x, y in targets) or raw.done:
                break
        assert target in observer.observe(raw).language
        backend.close()
        return
    pytest.fail("every episode showed its target at the start")


# -- structured, status --------------------------------------------------------------------------


def test_structured_view_is_json_with_offsets_and_only_seen_entities():
    cells = place(place(room(), 5, 3, Cell("key", "red")), 1, 1, Cell("box", "grey"))
    seen = np.ones((7, 7), dtype=bool)
    seen[1, 1] = False
    grid = GridView(cells, agent_pos=(3, 3), agent_dir="east", carrying=Cell("ball", "blue"), seen=seen)
    view = json.loads(json.dumps(structured_view(grid, step=5, mission="pick up the red key")))
    assert view["position"] == [3, 3] and view["orientation"] == "east" and view["step"] == 5
    assert view["grid_size"] == {"width": 7, "height": 7}
    assert view["carrying"] == {"kind": "ball", "color": "blue", "state": None}
    assert view["entities"] == [
        {
            "kind": "key",
            "color": "red",
            "state": None,
            "position": [5, 3],
            "offset": {"ahead": 2, "right": 0},
            "distance": 2,
        }
    ]
    assert view["front"] == {"kind": "empty"}


def test_status_text_lists_the_facts_and_extras():
    raw = RawObservation(
        step=12,
        reward=0.5,
        total_reward=1.25,
        health=80.0,
        mission="go to the red ball",
        status={"steps_left": 52, "carrying": "nothing"},
    )
    text = status_text(raw)
    for line in [
        "Step: 12",
        "Reward since last turn: 0.5",
        "Total reward: 1.25",
        "Health: 80",
        "Mission: go to the red ball",
        "Steps left: 52",
        "Carrying: nothing",
    ]:
        assert line in text
    assert "Health" not in status_text(RawObservation(step=0))
    assert "Episode over: success" in status_text(RawObservation(step=3, done=True, success=True))


# -- the Observer --------------------------------------------------------------------------------


def test_observer_fills_requested_views_only():
    raw = RawObservation(
        step=1, frames={"view": frame(600, 600)}, grid=GridView(room(), (3, 3), "east"), mission="m"
    )
    full = Observer(ObserverConfig(max_side=300, image_format="png")).observe(raw)
    assert [(i.label, i.media_type, i.width) for i in full.images] == [("view", "image/png", 300)]
    assert full.ascii and full.language and full.structured and full.status_text.startswith("Step: 1")
    ascii_only = Observer(ObserverConfig(views=("ascii",))).observe(raw)
    assert ascii_only.images == [] and ascii_only.language is None and ascii_only.structured is None
    assert ascii_only.ascii == render_ascii(raw.grid)


def test_observer_skips_views_the_backend_cannot_feed():
    obs = Observer().observe(RawObservation(step=0, frames={"cam": frame(32, 32)}))
    assert obs.ascii is None and obs.language is None and obs.structured is None
    assert [i.label for i in obs.images] == ["cam"]


def test_observer_config_is_validated():
    with pytest.raises(ValidationError):
        ObserverConfig(views=("smell",))
    with pytest.raises(ValidationError):
        ObserverConfig(quality=0)


def test_observer_on_a_real_gridworld_frame():
    from agentkit.envs.gridworld import GridworldBackend

    backend = GridworldBackend(render_size=512, frame="agent")
    obs = Observer().observe(backend.reset("BabyAI-GoToLocal-v0", 0))
    backend.close()
    assert obs.images[0].width == 512 and obs.images[0].media_type == "image/jpeg"
    assert "go to the green ball" in obs.status_text
    assert obs.ascii.count("\n") > 8 and "Legend:" in obs.ascii
    json.dumps(obs.to_json())
