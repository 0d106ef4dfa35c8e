"""The arena's promises, measured on the real pybullet world: distances, turns, rewards, lights.

Small arenas are written as YAML files and driven through the backend's compiler and steps, and
through the real loop with a replay model, so the script language is exercised end to end.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentkit.actions import Command
from agentkit.config import ObserverSettings, RunConfig
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.loop import run_episode
from agentkit.models.replay_model import ReplayModel
from agentkit.records import EndReason
from agentkit.runs.setup_episode import make_setup


def agent(x: float, z: float, rotation: float = 0, y: float = 0) -> str:
    return f"    - !Item\n      name: Agent\n      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n      rotations: [{rotation}]\n"


def item(
    name: str,
    x: float,
    z: float,
    size: tuple[float, float, float] = (1, 1, 1),
    rotation: float = 0,
    y: float = 0,
) -> str:
    sx, sy, sz = size
    return (
        f"    - !Item\n      name: {name}\n      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n"
        f"      rotations: [{rotation}]\n      sizes: [!Vector3 {{x: {sx}, y: {sy}, z: {sz}}}]\n"
    )


@pytest.fixture
def arena_file(tmp_path):
    """Write an arena (its items' YAML) to a file and return the path, which reset() accepts."""
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


def run(backend: ArenaBackend, name: str, arg: int):
    """Compile one command and step its actions until done; the last StepResult (None if no action)."""
    result = None
    for action in backend.compile(Command(name, (arg,))):
        result = backend.step(action)
        if result.done:
            break
    return result


def test_go_35_from_one_wall_ends_within_3_units_of_the_opposite_side(backend, arena_file):
    backend.reset(arena_file(agent(20, 0.5)), seed=0)
    run(backend, "Go", 35)
    x, _, z = backend.observe().privileged["agent"]["position"]
    assert 40 - z <= 3.0 and x == pytest.approx(20.0, abs=0.05)
    # and backwards just as far
    backend.reset(arena_file(agent(20, 39.5, rotation=0)), seed=0)
    run(backend, "Go", -35)
    assert backend.observe().privileged["agent"]["position"][2] <= 3.0


@pytest.mark.parametrize(
    ("degrees", "turned"), [(90, 90), (25, 24), (5, 0), (-90, -90), (-360, -360), (360, 360)]
)
def test_turns_are_six_degree_steps_rounded_toward_zero(backend, arena_file, degrees, turned):
    backend.reset(arena_file(agent(20, 20, rotation=30)), seed=0)
    actions = backend.compile(Command("Turn", (degrees,)))
    assert len(actions) == abs(turned) // 6
    run(backend, "Turn", degrees)
    heading = backend.observe().privileged["agent"]["heading_deg"]
    assert heading == pytest.approx((30 + turned) % 360, abs=1e-6)
    assert backend.observe().privileged["agent"]["position"] == pytest.approx([20, 0, 20], abs=0.01)


def test_compile_maps_commands_to_action_pairs(backend):
    assert backend.compile(Command("Go", (3,))) == [[1, 0]] * 3
    assert backend.compile(Command("Go", (-2,))) == [[2, 0]] * 2
    assert backend.compile(Command("Turn", (-13,))) == [[0, 2]] * 2
    assert backend.compile(Command("Think", ("hm",))) == []
    assert backend.idle_actions() == [[0, 0]]
    assert ArenaBackend(frames=False, idle_action=None).idle_actions() == []


def test_frames_inside_a_blackout_are_black_and_lit_frames_are_not(arena_file):
    """Frames follow the lights (their timing, 5/3 of the listed frames, is test_arena_fidelity's)."""
    b = ArenaBackend(render_size=64)
    try:
        obs = b.reset(
            arena_file(agent(20, 5) + item("GoodGoal", 20, 15), extra="    blackouts: [0, 3]\n"), seed=0
        )
        assert obs.frames["camera"].shape == (64, 64, 3) and not obs.frames["camera"].any()
        assert obs.status["lights"] == "off"
        for _ in range(4):
            b.step([0, 0])
        assert not b.observe().frames["camera"].any()  # frame 3 is update 15: still dark after 4 steps
        b.step([0, 0])
        lit = b.observe()
        assert lit.frames["camera"].mean() > 50 and lit.status["lights"] == "on"
        b.reset(arena_file(agent(20, 5), extra="    blackouts: [-2]\n"), seed=0)
        dark = []
        for _ in range(11):
            dark.append(not b.observe().frames["camera"].any())
            b.step([0, 0])
        # [-2]: a switch every 2 frames = 10 updates, seen after steps 4, 7 and 10
        assert dark == [False] * 4 + [True] * 3 + [False] * 3 + [True]
    finally:
        b.close()


def test_the_camera_sees_a_green_goal_straight_ahead(arena_file):
    b = ArenaBackend(render_size=96)
    try:
        # 2 units wide, 3 from the eye: about 27 of the 96 pixels of a 100-degree view
        frame = b.reset(arena_file(agent(20, 5) + item("GoodGoal", 20, 8, (2, 2, 2))), seed=0).frames[
            "camera"
        ]

        def green(picture: np.ndarray) -> np.ndarray:  # the goal's pastel green: g above both r and b
            rgb = picture.astype(int)
            return (rgb[:, :, 1] > rgb[:, :, 0] + 20) & (rgb[:, :, 1] > rgb[:, :, 2] + 40)

        assert green(frame)[40:56, 40:56].mean() > 0.5  # mostly green in the middle
        assert frame[5, 48, 2] > frame[5, 48, 0]  # sky (blue-ish) at the top
        assert frame[90, 48].tolist() != frame[5, 48].tolist()  # floor at the bottom
        b.step([0, 1])  # turned 6 degrees right: the goal moves left in the picture
        assert np.nonzero(green(b.observe().frames["camera"]))[1].mean() < 48
    finally:
        b.close()


def test_frames_off_renders_nothing(backend, arena_file):
    obs = backend.reset(arena_file(agent(20, 5)), seed=0)
    assert obs.frames == {}


def test_go_35_through_the_real_loop_and_the_script_language(arena_file):
    path = arena_file(agent(20, 1) + item("GoodGoal", 20, 30, (2, 2, 2)), t=250)
    config = RunConfig(
        env="aai-arena",
        tasks=[path],
        include_images=False,
        observer=ObserverSettings(views=["image"]),
        backend_options={"frames": False},
    )
    setup = make_setup(config, model_factory=lambda backend: ReplayModel(['Think("ahead"); Go(35);']))
    try:
        result = run_episode(setup, path, seed=0)
    finally:
        setup.backend.close()
    assert result.success and result.end_reason == EndReason.GOAL and result.scripts == 1
    steps = len(result.actions)
    # The goal gives 0.999 x 2; each update before it, and the one it is touched in, costs 1 / (5 t).
    assert 2 * 0.999 - 3 * steps / 1250 - 1e-9 <= result.reward <= 2 * 0.999 - (3 * steps - 2) / 1250 + 1e-9
    assert result.actions == [[1, 0]] * steps and 25 <= steps <= 35
    assert result.metrics == {"pass": True, "level": None, "pass_mark": 0.0, "aai_version": "3.1.3"}
