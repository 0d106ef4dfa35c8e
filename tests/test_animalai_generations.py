"""Both Animal-AI build generations through the connector, and the stand-in with a plain ML-Agents client.

The ``agentkit-arena`` stand-in is launched as if it were a Unity build (by path, without agentkit's
episode channel), emulating a 3.x build (HWC camera, YAML text) or a 4.x build (CHW camera, YAML
file path). The connector must detect the generation from the handshake, decode the camera and
the vector observation, and read the end of the episode off what the protocol reports.
"""

from __future__ import annotations

import numpy as np
import pytest
from mlagents_envs.base_env import ActionTuple
from mlagents_envs.environment import UnityEnvironment
from mlagents_envs.side_channel.engine_configuration_channel import EngineConfigurationChannel
from mlagents_envs.side_channel.raw_bytes_channel import RawBytesChannel

from agentkit.envs.animalai.backend import AnimalAIBackend
from agentkit.envs.animalai.build import resolve_build
from agentkit.envs.animalai.connector import AnimalAIError
from agentkit.envs.animalai_common.protocol import ARENA_CHANNEL, Generation
from agentkit.envs.arena.backend import ArenaBackend

STAND_IN = resolve_build("builtin").path


def arena(tmp_path, items: str, t: int) -> str:
    path = tmp_path / "arena.yaml"
    path.write_text(
        "!ArenaConfig\narenas:\n  0: !Arena\n"
        f"    t: {t}\n    items:\n"
        "    - !Item\n      name: Agent\n      positions: [!Vector3 {x: 20, y: 0, z: 5}]\n      rotations: [0]\n"
        "    - !Item\n      name: Wall\n      positions: [!Vector3 {x: 14, y: 0, z: 12}]\n      rotations: [30]\n"
        "      sizes: [!Vector3 {x: 4, y: 3, z: 1}]\n" + items
    )
    return str(path)


GOAL_AHEAD = (
    "    - !Item\n      name: GoodGoal\n      positions: [!Vector3 {x: 20, y: 0, z: 20}]\n"
    "      sizes: [!Vector3 {x: 2, y: 2, z: 2}]\n"
)
ACTIONS = [[0, 2]] * 3 + [[1, 0]] * 6 + [[0, 1]] * 3 + [[1, 1], [2, 0]] + [[1, 0]] * 60


def play_both(backend, task, seed, actions, check_at):
    """Step both backends with ``actions``; compare observations at step ``check_at`` and the ends."""
    direct = ArenaBackend(render_size=backend.settings.render_size, frames=True)
    try:
        direct.reset(task, seed)
        backend.reset(task, seed)
        for i, action in enumerate(actions):
            d, p = direct.step(action), backend.step(action)
            assert p.reward == float(np.float32(d.reward)) and p.done == d.done
            if i + 1 == check_at:
                do, po = direct.observe(), backend.observe()
                assert np.array_equal(po.frames["camera"], do.frames["camera"])  # PNG is lossless
                assert po.frames["camera"].shape == (32, 32, 3) and po.frames["camera"].dtype == np.uint8
                assert po.status["position"] == pytest.approx(do.status["position"], abs=0.011)
                assert po.status["velocity"] == pytest.approx(do.status["velocity"], abs=0.011)
                assert po.status["time_left"] == do.status["time_left"]
                assert po.health == pytest.approx(do.health, abs=1e-4) and po.step == do.step
                assert po.privileged == {}  # a Unity build reports only what an agent perceives
            if d.done:
                return d, p
        raise AssertionError("the episode did not end")
    finally:
        direct.close()


@pytest.mark.parametrize("generation", [3, 4])
def test_the_connector_detects_and_decodes_each_build_generation(tmp_path, generation):
    task_goal = arena(tmp_path, GOAL_AHEAD, t=300)
    backend = AnimalAIBackend(
        aai_build=STAND_IN, render_size=32, timeout_s=30, build_args=["--emulate-generation", str(generation)]
    )
    try:
        assert not backend.build.builtin and backend.relaunch_each_episode
        d, p = play_both(backend, task_goal, seed=2, actions=ACTIONS, check_at=9)
        assert backend.generation is Generation(generation)
        assert d.end_reason.value == "goal" and p.end_reason == d.end_reason and p.success
        final = backend.observe()
        assert final.done and final.success and final.frames["camera"].shape == (32, 32, 3)
        assert (
            backend.episode_metrics(final)["aai_version"] == f"{generation}.x"
        )  # a build known by its generation
        # A second episode relaunches the build with its seed: the time limit, read off max_step_reached.
        task_short = arena(tmp_path, "", t=8)
        d, p = play_both(backend, task_short, seed=5, actions=[[0, 1]] * 20, check_at=4)
        assert d.end_reason.value == "time_limit" and p.end_reason == d.end_reason and not p.success
    finally:
        backend.close()


def test_a_generation_flag_overrides_the_handshake(tmp_path):
    """Told a 4.x build is a 3.x one, the connector sends the YAML text; a 4.x build takes text that
    names no file as the YAML itself, so the episode plays the arena sent (as the real build does)."""
    log = tmp_path / "player.log"
    backend = AnimalAIBackend(
        aai_build=STAND_IN,
        render_size=32,
        timeout_s=30,
        generation=3,
        build_args=["--emulate-generation", "4", "-logFile", str(log)],
    )
    try:
        d, p = play_both(backend, arena(tmp_path, GOAL_AHEAD, t=300), seed=2, actions=ACTIONS, check_at=9)
        assert backend.generation is Generation.V3  # the flag, not the handshake's 4.x
        assert d.end_reason.value == "goal" and p.end_reason == d.end_reason
    finally:
        backend.close()
    assert "arena configuration text received" in log.read_text()


def test_a_4x_build_given_a_path_that_names_no_file_stops_with_the_error_in_its_log(tmp_path):
    """A path to a missing file is not YAML: the build stops, and the connector says it stopped."""
    log = tmp_path / "player.log"
    backend = AnimalAIBackend(
        aai_build=STAND_IN,
        render_size=32,
        timeout_s=30,
        build_args=["--emulate-generation", "4", "-logFile", str(log)],
    )
    missing = tmp_path / "gone.yaml"
    try:
        backend._arena_file = lambda task: ("unused", str(missing))  # the file vanished after it was named
        with pytest.raises(AnimalAIError, match="stopped"):
            backend.reset(arena(tmp_path, GOAL_AHEAD, t=100), 0)
    finally:
        backend.close()


def test_any_ml_agents_client_can_use_the_arena(tmp_path):
    """mlagents-envs' own decoding (HWC floats) reads the stand-in; episodes end and restart as in Unity."""
    arena_channel, engine = RawBytesChannel(ARENA_CHANNEL), EngineConfigurationChannel()
    env = UnityEnvironment(
        file_name=STAND_IN,
        worker_id=0,
        base_port=_free_port(),
        seed=0,
        timeout_wait=30,
        additional_args=["--useCamera", "--resolution", "24", "-logFile", str(tmp_path / "player.log")],
        side_channels=[arena_channel, engine],
    )
    try:
        engine.set_configuration_parameters(width=24, height=24, quality_level=1, time_scale=20.0)
        arena_channel.send_raw_data(bytearray(open(arena(tmp_path, GOAL_AHEAD, t=300)).read(), "utf-8"))
        env.reset()
        ((name, spec),) = env.behavior_specs.items()
        assert name == "AnimalAI?team=0"
        assert spec.action_spec.discrete_branches == (3, 3) and spec.action_spec.continuous_size == 0
        assert [o.shape for o in spec.observation_specs] == [(24, 24, 3), (7,)]
        decision, terminal = env.get_steps(name)
        assert len(decision) == 1 and len(terminal) == 0
        camera, vector = decision.obs
        assert camera.shape == (1, 24, 24, 3) and 0.0 <= camera.min() and camera.max() <= 1.0
        assert vector[0][0] == 100.0 and vector[0][4:].tolist() == pytest.approx([20, 0, 5], abs=0.2)
        rewards = []
        for _ in range(60):
            env.set_actions(name, ActionTuple(discrete=np.array([[1, 0]], dtype=np.int32)))
            env.step()
            decision, terminal = env.get_steps(name)
            if len(terminal):
                rewards.append(float(terminal.reward[0]))
                break
            rewards.append(float(decision.reward[0]))
        assert len(terminal) == 1 and not terminal.interrupted[0] and rewards[-1] > 1.5
        env.step()  # after the end, the next step starts a new episode of the same arena
        decision, terminal = env.get_steps(name)
        assert len(decision) == 1 and decision.obs[1][0][0] == 100.0 and decision.reward[0] == 0.0
    finally:
        env.close()
    log = (tmp_path / "player.log").read_text()  # Unity's -logFile: the side channels arrived
    assert "engine configuration time_scale = 20.0" in log and "screen_resolution = [24, 24]" in log
    assert "arena configuration text received" in log and "training analytics: mlagents-envs 0.28.0" in log


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]
