"""The arena's camera shows what Animal-AI v3.1.3's shows: its field of view, its translucent glass,
its curved tunnels, its glowing goals; frames repeat exactly for a seed and are black in a blackout."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agentkit.envs.arena import look, textures
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.envs.arena.camera import _unpack
from agentkit.envs.arena.item_meshes import tunnel_mesh
from agentkit.envs.arena.item_shading import _pack_planes
from agentkit.envs.pybullet_support.bullet import p

N = 512


def arena_text(items: str, blackouts: str = "") -> str:
    extra = f"    blackouts: {blackouts}\n" if blackouts else ""
    return f"!ArenaConfig\narenas:\n  0: !Arena\n    t: 0\n{extra}    items:\n{items}"


def item(name: str, x: float, z: float, size=(1, 1, 1), y: float = 0, rotation: float = 0, color=None) -> str:
    sx, sy, sz = size
    text = (
        f"    - !Item\n      name: {name}\n      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n"
        f"      rotations: [{rotation}]\n      sizes: [!Vector3 {{x: {sx}, y: {sy}, z: {sz}}}]\n"
    )
    if color is not None:
        text += f"      colors: [!RGB {{r: {color[0]}, g: {color[1]}, b: {color[2]}}}]\n"
    return text


@pytest.fixture
def arena(tmp_path):
    """Builds an arena from item lines; returns the backend (frames on, 512 px) after reset."""
    backends = []

    def build(items: str, blackouts: str = "", size: int = N, seed: int = 0) -> ArenaBackend:
        path = tmp_path / f"arena{len(backends)}.yaml"
        path.write_text(arena_text(items, blackouts))
        backend = ArenaBackend(render_size=size, frames=True)
        backend.reset(str(path), seed=seed)
        backends.append(backend)
        return backend

    yield build
    for backend in backends:
        backend.close()


def test_the_camera_is_animal_ai_s_agentcammid():
    # AAI3Agent.prefab, AgentCamMid: field of view 100 (vertical axis), near 0.01, far 70.
    assert (look.FOV_DEGREES, look.NEAR, look.FAR) == (100.0, 0.01, 70.0)


def test_a_wall_face_spans_the_pixels_of_a_100_degree_vertical_field_of_view(arena):
    b = arena(item("Agent", 20, 15) + item("Wall", 20, 20.5, size=(2, 2, 1), color=(255, 0, 0)))
    frame = b.frame()
    (x, y, z), _ = b._world.eye()  # pybullet axes: the eye's arena z is pybullet y
    wall = next(w for w in b._world.bodies if w.item.type.name == "Wall")
    (wx, wy, _), _ = p.getBasePositionAndOrientation(wall.body, physicsClientId=b._world.client)
    width, depth = wall.item.size[0], wall.item.size[2]
    distance = (wy - depth / 2) - y
    expected = width / (2 * distance * math.tan(math.radians(50))) * N
    row = frame[N // 2 - 40]  # above the horizon: the wall's upper half
    red = (row[:, 0] > 120) & (row[:, 1] < 60) & (row[:, 2] < 60)
    assert red.sum() == pytest.approx(expected, abs=3)
    # A 60 degree camera would have drawn it 2.06 times as wide.
    assert abs(red.sum() - expected * math.tan(math.radians(50)) / math.tan(math.radians(30))) > 50


def test_a_goal_glows_in_its_emission_colour_brighter_than_a_lit_wall_of_the_same_colour(arena):
    green = tuple(int(c) for c in look.GOAL_GREEN)
    b = arena(
        item("Agent", 20, 15)
        + item("GoodGoal", 18.5, 20, size=(1.5, 1.5, 1.5))
        + item("Wall", 21.5, 20, size=(1.5, 1.5, 1.5), color=green)
    )
    frame = b.frame().astype(int)
    focal = N / 2 / math.tan(math.radians(50))
    goal = frame[245 - 8 : 245 + 8, 192 - 8 : 192 + 8].reshape(-1, 3)  # 1.5 left, 5 ahead, 0.26 above the eye
    column = round(N / 2 + 1.5 / 4.25 * focal)  # the wall's face is 4.25 ahead
    wall = frame[240 - 6 : 240 + 6, column - 8 : column + 8].reshape(-1, 3)
    assert np.abs(goal - look.GOAL_GREEN).max() <= 2  # flat: the emission colour, (189, 224, 138)
    assert np.abs(wall.mean(axis=0) - goal.mean(axis=0)).max() < 60  # the same colour...
    assert wall.mean(axis=0).sum() < goal.mean(axis=0).sum() - 30  # ...but lit, not glowing


def test_a_translucent_pane_shows_the_goal_behind_it_blended(arena):
    goal_only = arena(item("Agent", 20, 15) + item("GoodGoal", 20, 21, size=(2, 2, 2)))
    behind = arena(
        item("Agent", 20, 15)
        + item("GoodGoal", 20, 21, size=(2, 2, 2))
        + item("WallTransparent", 20, 18, size=(4, 3, 0.2))
    )
    centre = (N // 2, N // 2)
    bare = goal_only.frame()[centre].astype(float)
    seen = behind.frame()[centre].astype(float)
    assert np.abs(bare - look.GOAL_GREEN).max() <= 2
    # The pane faces the camera (normal -z): its white is lit by ambient + sun x n.l.
    ndl = max(0.0, -look.LIGHT_TOWARDS[2])
    pane = look.GLASS_ALBEDO * (look.AMBIENT + look.LIGHT * ndl)
    expected = look.GLASS_ALPHA * pane + (1 - look.GLASS_ALPHA) * bare
    assert np.abs(seen - expected).max() <= 3
    assert seen[1] > seen[0] + 10  # still greenish: the goal shows through
    # Beside the pane (it spans about the middle 56% of the width) nothing is blended.
    assert np.array_equal(goal_only.frame()[:, :60], behind.frame()[:, :60])
    assert not np.array_equal(goal_only.frame()[:, 200:300], behind.frame()[:, 200:300])


def test_tunnels_are_half_tubes_curved_in_shape_collision_and_picture(arena):
    sx, sy, sz = 6.0, 6.0, 4.0
    vertices = np.asarray(tunnel_mesh(sx, sy, sz)[0])
    radius = np.hypot(vertices[:, 0] / (sx / 2), vertices[:, 2] / (sy / 2))
    assert np.allclose(np.unique(np.round(radius, 6)), [look.TUNNEL_INNER, 1.0])
    assert vertices[:, 2].max() == pytest.approx(sy / 2)  # Grounded: the tube's axis lies on the floor

    b = arena(item("Agent", 20, 10) + item("CylinderTunnel", 20, 20, size=(sx, sy, sz), color=(255, 0, 0)))
    tunnel = next(w for w in b._world.bodies if w.item.type.name == "CylinderTunnel")
    c = b._world.client
    half_x, top = tunnel.item.size[0] / 2, tunnel.item.size[1] / 2
    # The collision shape is curved: a ray down meets the roof lower towards the sides.
    heights = []
    for f in (0.0, 0.5, 0.85):
        hit = p.rayTest([20 + f * half_x, 20, 10], [20 + f * half_x, 20, -1], physicsClientId=c)[0]
        assert hit[0] == tunnel.body
        heights.append(hit[3][2])
    assert heights[0] == pytest.approx(top, abs=0.02)
    assert heights[1] == pytest.approx(top * math.sqrt(1 - 0.25), abs=0.05)
    assert heights[2] == pytest.approx(top * math.sqrt(1 - 0.85**2), abs=0.08)
    # And so is its picture: the top edge of the red arch rises towards the middle.
    frame = b.frame()
    red = (frame[:, :, 0] > 100) & (frame[:, :, 1] < 50) & (frame[:, :, 2] < 50)
    columns = np.flatnonzero(red.any(axis=0))
    tops = {col: int(np.flatnonzero(red[:, col])[0]) for col in columns}
    middle, quarter = (columns[0] + columns[-1]) // 2, columns[0] + (columns[-1] - columns[0]) // 8
    assert tops[middle] < tops[quarter] - 10


def test_frames_repeat_exactly_for_a_seed():
    frames = []
    for _ in range(2):
        b = ArenaBackend(render_size=128, frames=True)
        obs = b.reset("04-22-01", seed=3)  # a death zone, walls, a goal
        for action in ([1, 0], [1, 1], [1, 0]):
            b.step(action)
        frames.append((obs.frames["camera"], b.frame()))
        b.close()
    assert np.array_equal(frames[0][0], frames[1][0]) and np.array_equal(frames[0][1], frames[1][1])


def test_blackout_frames_are_black(arena):
    b = arena(item("Agent", 20, 15) + item("GoodGoal", 20, 20), blackouts="[2, 4]")
    seen = []
    for _ in range(12):
        lights = b.observe().status["lights"]
        seen.append((lights, int(b.frame().max())))
        b.step([0, 0])
    assert ("off", 0) in seen and all(bright == 0 for lights, bright in seen if lights == "off")
    assert all(bright > 0 for lights, bright in seen if lights == "on")


def test_nothing_beyond_the_far_plane_is_drawn(arena):
    b = arena(item("Agent", 5, 5))
    camera = b._camera
    near = camera.render_view((20.0, 60.0, 20.0), 0.0, 90.0)  # the floor 60 away: drawn, bricks and all
    far = camera.render_view((20.0, 80.0, 20.0), 0.0, 90.0)  # 80 away, past the far plane: sky only
    assert near.reshape(-1, 3).std(axis=0).max() > 10
    assert far.reshape(-1, 3).std(axis=0).max() < 1


def test_inside_a_hot_zone_the_view_is_veiled_orange(arena):
    b = arena(item("Agent", 5, 5) + item("HotZone", 20, 20, size=(8, 4, 8)))
    inside = b._camera.render_view((20.0, 0.5, 17.5), 0.0, 0.0).reshape(-1, 3).mean(axis=0)
    outside = b._camera.render_view((20.0, 0.5, 10.0), 180.0, 0.0).reshape(-1, 3).mean(axis=0)
    assert inside[0] - inside[2] > outside[0] - outside[2] + 40  # far warmer: red well above blue


@pytest.mark.parametrize(
    ("task", "covered"),
    [
        ("06-09-01", True),  # walls for floor and ceiling: the items hide the whole room
        ("01-01-01", False),  # the open arena: floor, fence and sky show
        ("03-27-02", False),  # shut in by walls and glass: the room shows in a band of rows only
    ],
)
def test_the_room_behind_the_items_is_skipped_without_changing_a_pixel(task, covered):
    """The camera lets the room skip the floor it will paint items over (bench/arena_speed.py's worst
    frame was 06-09-01's); the frame must be the one the room drawn in full gives."""
    backend = ArenaBackend(render_size=N, frames=True)
    try:
        backend.reset(task, seed=0)
        camera, room = backend._camera, backend._camera._room
        eye, heading = backend._world.eye()
        full_draw = room.draw
        covers = []

        def draw_in_full(*args, cover=None, **kwargs):
            covers.append(cover)
            return full_draw(*args, **kwargs)

        for turn in (0, 90, 180, 270):
            skipped = camera.render(eye, heading + turn)
            room.draw = draw_in_full
            try:
                whole = camera.render(eye, heading + turn)
            finally:
                del room.draw
            assert np.array_equal(skipped, whole), turn
        assert all(c is not None for c in covers)  # the camera does hand the items' depth over
        assert all(bool(np.isfinite(c).all()) == covered for c in covers)
    finally:
        backend.close()


def test_colour_planes_pack_and_unpack_like_the_frame_format():
    """The camera keeps colours as (3, pixels) planes for speed (numpy is slow on a last axis of 3):
    packing planes must give textures.pack's uint32 RGBA of the same colours (rounded, clipped, alpha
    255), and unpacking a frame must give back its bytes R, G, B."""
    rng = np.random.default_rng(3)
    colours = rng.uniform(-20.0, 280.0, size=(3, 4096)).astype(np.float32)
    colours[:, :4] = [[0.5, 1.5, 254.5, 255.49], [300.0, -1.0, 127.5, 0.49], [2.5, 3.5, 200.0, 12.0]]
    packed = _pack_planes(colours)
    assert packed.dtype == np.uint32
    assert np.array_equal(packed, textures.pack(colours.T))
    image = _unpack(packed.reshape(64, 64))
    expected = np.clip(np.round(colours.T), 0, 255).astype(np.uint8).reshape(64, 64, 3)
    assert np.array_equal(image, expected)
