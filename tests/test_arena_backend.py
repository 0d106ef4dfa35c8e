"""The aai-arena backend's interface: registry, tasks, the privileged contract, determinism, objects."""

from __future__ import annotations

import json

import pytest

from agentkit.envs import available_backends, get_backend
from agentkit.envs.arena.backend import ArenaBackend


def arena_text(items: str, t: int = 0) -> str:
    return f"!ArenaConfig\narenas:\n  0: !Arena\n    t: {t}\n    items:\n{items}"


AGENT = (
    "    - !Item\n      name: Agent\n      positions: [!Vector3 {x: 20, y: 0, z: 1}]\n      rotations: [0]\n"
)


def item(name: str, x: float, z: float, size=(1, 1, 1), rotation=0, y=0) -> str:
    sx, sy, sz = size
    return (
        f"    - !Item\n      name: {name}\n      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n"
        f"      rotations: [{rotation}]\n      sizes: [!Vector3 {{x: {sx}, y: {sy}, z: {sz}}}]\n"
    )


@pytest.fixture
def backend():
    b = ArenaBackend(frames=False)
    yield b
    b.close()


def play(backend, task, actions):
    backend.reset(task, seed=0)
    for action in actions:
        if backend.step(action).done:
            break
    return backend.observe()


def test_registered_with_tasks_by_level_and_suites():
    assert "aai-arena" in available_backends()
    cls = get_backend("aai-arena")
    assert cls is ArenaBackend and cls.name == "aai-arena" and cls.template_set == "aai-arena"
    tasks = cls.tasks()
    assert len(tasks) == 900 and tasks[0].name == "01-01-01" and tasks[0].category == "level 01"
    assert {t.category for t in tasks} == {f"level {n:02d}" for n in range(1, 11)}
    assert len(cls.suites()["aai-children40"]) == 40


def test_reset_takes_a_task_id_or_a_path_and_rejects_anything_else(backend, tmp_path):
    assert backend.reset("01-04-03", seed=0).privileged["arena"]["t"] == 250
    path = tmp_path / "mine.yaml"
    path.write_text(arena_text(AGENT + item("GoodGoal", 20, 30), t=77))
    obs = backend.reset(str(path), seed=0)
    assert obs.privileged["arena"]["t"] == 77 and obs.status["time_left"] == 129  # ceil(5 x 77 / 3)
    assert backend.episode_metrics(obs)["level"] is None
    for bad in ("11-01-01", "01-31-09", "no-such-task", str(tmp_path / "missing.yaml")):
        with pytest.raises(ValueError):
            backend.reset(bad, seed=0)


def test_the_privileged_state_has_the_agreed_shape(backend):
    obs = backend.reset("04-13-01", seed=0)
    state = json.loads(json.dumps(obs.privileged))
    assert set(state) == {"arena", "agent", "items", "records"}
    assert state["arena"] == {
        "size": 40.0,
        "pass_mark": state["arena"]["pass_mark"],
        "t": 250,
        "step": 0,
        "index": 0,
    }
    assert state["records"] == {
        "button_presses": {},
        "button_spawns": {},
        "data_zone_events": [],
        "spawned_goals": 0,
    }
    agent = state["agent"]
    assert set(agent) == {"position", "heading_deg", "velocity", "health"}
    assert len(agent["position"]) == 3 and len(agent["velocity"]) == 3 and 0 <= agent["heading_deg"] < 360
    assert agent["health"] == 100.0
    keys = {
        "id",
        "name",
        "kind",
        "position",
        "size",
        "rotation_deg",
        "reward",
        "active",
        "solid",
        "transparent",
    }
    for entry in state["items"]:
        assert set(entry) == keys
        assert entry["kind"] in ("goal", "obstacle", "zone", "ramp", "movable")
        assert isinstance(entry["active"], bool) and isinstance(entry["solid"], bool)
        if entry["kind"] == "goal":
            assert entry["reward"] == pytest.approx((1 if "Good" in entry["name"] else -1) * entry["size"][0])
        elif entry["kind"] != "zone":
            assert entry["reward"] is None
    assert [e["id"] for e in state["items"]] == list(range(len(state["items"])))
    assert obs.status["position"] == pytest.approx(agent["position"], abs=0.005) and obs.health == 100.0


def test_heading_and_positions_use_animal_ai_axes(backend, tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(arena_text(AGENT))
    backend.reset(str(path), seed=0)
    for _ in range(15):
        backend.step([0, 1])  # 90 degrees to the right: now facing +x
    for _ in range(10):
        backend.step([1, 0])
    obs = backend.observe()
    x, _, z = obs.privileged["agent"]["position"]
    assert obs.privileged["agent"]["heading_deg"] == pytest.approx(90.0)
    assert x > 25 and z == pytest.approx(1.0, abs=0.05)
    vx, _, vz = obs.privileged["agent"]["velocity"]
    assert vx > 1 and abs(vz) < 0.1
    right, _, forward = obs.status["velocity"]  # Animal-AI reports velocity in the agent's frame
    assert forward > 1 and abs(right) < 0.1


def test_same_task_and_seed_give_the_same_episode(tmp_path):
    actions = [[1, 0]] * 20 + [[0, 1]] * 10 + [[1, 2]] * 30
    states = []
    for _ in range(2):
        b = ArenaBackend(frames=False)
        states.append(play(b, "08-19-01", actions).privileged)  # random goal positions and a bounce goal
        b.close()
    assert states[0] == states[1]
    b = ArenaBackend(frames=False)
    b.reset("06-08-01", seed=0)
    first = b.observe().privileged["items"]
    b.reset("06-08-01", seed=1)
    assert b.observe().privileged["items"] != first  # its goal is placed at random
    b.close()


def test_several_arenas_live_in_one_process():
    a, b = ArenaBackend(frames=False), ArenaBackend(frames=False)
    try:
        a.reset("01-04-03", seed=0)
        b.reset("01-04-03", seed=0)
        for _ in range(10):
            a.step([1, 0])
        # untouched: where it spawned (0.01 up, TrainingAgent.GetPosition) less the reset update's fall
        assert b.observe().privileged["agent"]["position"] == pytest.approx([20.0, 0.0, 1.1], abs=0.01)
        assert a.observe().privileged["agent"]["position"][2] > 5
    finally:
        a.close()
        b.close()


def test_pass_metric_uses_the_pass_mark_and_treats_a_missing_one_as_zero(backend):
    backend.reset("10-22-02", seed=0)
    final = backend.observe()
    metrics = backend.episode_metrics(final)
    assert metrics == {"pass": False, "level": 10, "pass_mark": None, "aai_version": "3.1.3"}
    final.total_reward = 0.5
    assert backend.episode_metrics(final)["pass"] is True
    final.done, final.total_reward = True, 0.0  # an ended episode at exactly 0 reaches Unity's default mark
    assert backend.episode_metrics(final)["pass"] is True
    final.total_reward = -0.01
    assert backend.episode_metrics(final)["pass"] is False


def test_bounce_goals_get_one_push_and_stop_at_the_fence(backend, tmp_path):
    """BallGoalBounce.Start: one velocity change of forceToApply x dt = 500 x 0.02 = 10 units/s along the
    goal's facing (*Bounce.prefab); no material bounces (restitution 0), so it comes to rest at the fence."""
    path = tmp_path / "b.yaml"
    path.write_text(arena_text(AGENT + item("GoodGoalBounce", 30, 20, rotation=90)))
    backend.reset(str(path), seed=0)
    xs = []
    for _ in range(100):
        backend.step([0, 0])
        xs.append(backend.observe().privileged["items"][0]["position"][0])
    assert 0.5 < xs[0] - 30 < 10 * 0.06  # at most 10 units/s for the step's 0.06 s, less the floor's friction
    assert all(b >= a - 0.005 for a, b in zip(xs, xs[1:]))  # never comes back (no restitution)
    # at rest against it (a ball still spinning against the fence may creep by 1e-4 a step)
    assert xs[-1] == pytest.approx(40 - 0.999 / 2, abs=0.02) and max(xs[-20:]) - min(xs[-20:]) < 0.005


def test_blocks_can_be_pushed_walls_and_glass_cannot_be_crossed(backend, tmp_path):
    def final_z(items, steps=40):
        path = tmp_path / f"p{len(items)}.yaml"
        path.write_text(arena_text(AGENT + items))
        return play(backend, str(path), [[1, 0]] * steps).privileged

    light = final_z(item("Cardbox1", 20, 10, (2, 1, 2)))
    heavy = final_z(item("Cardbox2", 20, 10, (2, 1, 2)))
    assert light["items"][0]["position"][2] > heavy["items"][0]["position"][2] > 11
    for wall in ("Wall", "WallTransparent"):
        state = final_z(item(wall, 20, 20, (10, 2, 0.1)), steps=60)
        assert state["agent"]["position"][2] < 19.6
        assert state["items"][0]["transparent"] is (wall == "WallTransparent")


def test_the_agent_drives_up_a_ramp_onto_a_platform(backend, tmp_path):
    path = tmp_path / "r.yaml"
    # rotation 180: the ramp rises towards +z, onto the platform behind it
    path.write_text(
        arena_text(
            AGENT + item("Ramp", 20, 10, (4, 1.5, 6), rotation=180) + item("Wall", 20, 20, (4, 1.5, 14))
        )
    )
    state = play(backend, str(path), [[1, 0]] * 18 + [[0, 0]] * 20).privileged
    x, y, z = state["agent"]["position"]
    assert y == pytest.approx(1.5, abs=0.05) and 13 < z < 27
    assert state["items"][0]["kind"] == "ramp"


def test_frames_have_the_requested_size(tmp_path):
    b = ArenaBackend(render_size=40)
    try:
        frame = b.reset("01-04-03", seed=0).frames["camera"]
        assert frame.shape == (40, 40, 3) and frame.dtype.name == "uint8"
    finally:
        b.close()
    with pytest.raises(ValueError):
        ArenaBackend(render_size=8)
    with pytest.raises(ValueError):
        ArenaBackend(idle_action=[3, 0])


def test_bad_actions_and_unreset_use_are_errors(backend):
    with pytest.raises(RuntimeError):
        backend.observe()
    backend.reset("01-04-03", seed=0)
    for bad in ([3, 0], [1], "forward", [True, 0]):
        with pytest.raises(ValueError):
            backend.step(bad)


def test_prompt_context_and_reference_policy(backend):
    backend.reset("01-04-03", seed=0)
    assert backend.prompt_context()["arena_size"] == 40
    policy = backend.reference_policy()
    assert hasattr(policy, "next_answer")
