"""The Animal-AI connector's parts that need no running build, and its errors: missing, unusable,
silent and crashing builds, each one clear line."""

from __future__ import annotations

import io
import os
import time
import uuid
from pathlib import Path

import numpy as np
import pytest
from mlagents_envs.communicator_objects.agent_info_pb2 import AgentInfoProto
from mlagents_envs.communicator_objects.observation_pb2 import PNG, ObservationProto
from PIL import Image

from agentkit.envs import get_backend
from agentkit.envs.animalai.backend import AnimalAIBackend, infer_end_reason
from agentkit.envs.animalai.build import BUILTIN, ENV_VAR, BuildError, resolve_build
from agentkit.envs.animalai.connector import AnimalAIError
from agentkit.envs.animalai.observations import ObservationError, decode_agent, decode_picture
from agentkit.envs.animalai_common.protocol import (
    ARENA_CHANNEL,
    Generation,
    generation_from_handshake,
    pack_side_channels,
    unpack_side_channels,
)
from agentkit.records import EndReason
from agentkit.testing.cli_runner import run_cli
from agentkit.transcripts import TranscriptStore

# -- which build -------------------------------------------------------------------------------


def test_builtin_is_the_installed_stand_in_and_the_backend_is_registered():
    build = resolve_build(BUILTIN)
    assert build.builtin and Path(build.path).name == "agentkit-arena" and os.access(build.path, os.X_OK)
    cls = get_backend("animalai")
    assert cls is AnimalAIBackend and cls.template_set == "aai-arena" and len(cls.tasks()) == 900
    assert len(cls.suites()["aai-children40"]) == 40


def test_a_missing_build_is_one_clear_line_naming_its_source(tmp_path, monkeypatch):
    missing = tmp_path / "AnimalAI.x86_64"
    with pytest.raises(BuildError) as err:
        AnimalAIBackend(aai_build=str(missing))
    assert str(err.value) == f"Animal-AI build not found: {missing} (from --aai-build)"
    monkeypatch.setenv(ENV_VAR, str(missing))
    with pytest.raises(BuildError, match=f"not found: .* \\(from {ENV_VAR}\\)"):
        resolve_build(None)
    monkeypatch.delenv(ENV_VAR)
    with pytest.raises(BuildError, match="no Animal-AI build given: pass --aai-build"):
        resolve_build(None)


def test_a_build_that_is_not_executable_is_refused_before_launching(tmp_path):
    build = tmp_path / "AnimalAI.x86_64"
    build.write_text("not a program")
    build.chmod(0o644)
    with pytest.raises(BuildError) as err:
        resolve_build(str(build))
    assert "not an executable file" in str(err.value) and "\n" not in str(err.value)
    build.chmod(0o755)
    assert resolve_build(str(tmp_path)).path == str(build.resolve())  # a build folder names its executable


def test_the_cli_runs_the_builtin_build_and_reports_a_missing_one_in_one_line(tmp_path):
    from agentkit.testing.cli_runner import run_cli, run_json

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    summary = run_json(
        [
            "run",
            "--env",
            "animalai",
            "--aai-build",
            "builtin",
            "--task",
            "06-09-01",
            "--db",
            db,
            "--no-images",
        ],
        cwd=tmp_path,
    )
    (episode,) = summary["episodes"]
    assert summary["env"] == "animalai" and episode["end_reason"] == "goal" and episode["success"]
    failed = run_cli(
        ["run", "--env", "animalai", "--aai-build", str(tmp_path / "nope"), "--task", "01-01-01", "--db", db],
        cwd=tmp_path,
        check=False,
    )
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    assert (
        " ".join(failed.stderr.split())
        == f"error: Animal-AI build not found: {tmp_path / 'nope'} (from --aai-build)"
    )


def fake_build(tmp_path: Path, body: str) -> Path:
    """A stand-in for a broken Unity build: a shell script (it never speaks the protocol)."""
    script = tmp_path / "Broken.x86_64"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    return script


def test_a_build_that_never_connects_times_out_in_one_line_and_is_killed(tmp_path):
    pid_file = tmp_path / "pid"
    build = fake_build(tmp_path, f"echo $$ > {pid_file}\nexec sleep 60")
    backend = AnimalAIBackend(aai_build=str(build), timeout_s=2, render_size=32)
    start = time.monotonic()
    try:
        with pytest.raises(AnimalAIError) as err:
            backend.reset("01-01-01", 0)
    finally:
        backend.close()
    assert time.monotonic() - start < 10
    message = str(err.value)
    assert message.startswith(f"Animal-AI build {build} did not connect on port ") and message.endswith(
        "within 2 s"
    )
    pid = int(pid_file.read_text())
    assert _gone(pid)


def test_a_build_that_exits_at_once_is_reported_with_its_exit_code(tmp_path):
    backend = AnimalAIBackend(aai_build=str(fake_build(tmp_path, "exit 3")), timeout_s=20, render_size=32)
    start = time.monotonic()
    try:
        with pytest.raises(AnimalAIError, match="failed to start: Environment shut down with return code 3"):
            backend.reset("01-01-01", 0)
    finally:
        backend.close()
    assert time.monotonic() - start < 10


def test_the_reference_agent_needs_the_builtin_build(tmp_path):
    backend = AnimalAIBackend(aai_build=str(fake_build(tmp_path, "exit 0")))
    with pytest.raises(ValueError, match="only the 'builtin' build sends"):
        backend.reference_policy()
    backend.check_task("01-04-03")
    with pytest.raises(ValueError):
        backend.check_task("11-01-01")
    backend.close()
    # through the CLI: one line before anything runs, no run left in the store
    db = tmp_path / "none.db"
    failed = run_cli(
        [
            "run",
            "--env",
            "animalai",
            "--aai-build",
            str(fake_build(tmp_path, "sleep 30")),
            "--task",
            "01-04-03",
            "--db",
            f"sqlite:///{db}",
        ],
        tmp_path,
        check=False,
    )
    assert failed.returncode == 2 and "name a model (--model) to play a Unity build" in " ".join(
        failed.stderr.split()
    )
    assert len(failed.stderr.strip().splitlines()) <= 2 and "Traceback" not in failed.stderr
    assert not db.exists() or TranscriptStore(f"sqlite:///{db}").list_runs() == []


def _gone(pid: int, wait_s: float = 30.0) -> bool:
    """The process has ended (a zombie awaiting its parent counts as ended); the wait is long for a
    loaded machine and ends as soon as the process is gone."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status")
        if not status.exists() or "State:\tZ" in status.read_text():
            return True
        time.sleep(0.05)
    return False


# -- the protocol's pieces -----------------------------------------------------------------------


def test_the_generation_comes_from_the_package_version():
    assert generation_from_handshake("2.2.1-exp.1", "1.5.0") is Generation.V3
    assert generation_from_handshake("3.0.0", "1.5.0") is Generation.V4
    with pytest.raises(ValueError, match="communication API 0.9.0"):
        generation_from_handshake("1.0.0", "0.9.0")
    with pytest.raises(ValueError, match="unreadable package version"):
        generation_from_handshake("dev", "1.5.0")


def test_side_channel_frames_round_trip_and_truncation_is_an_error():
    other = uuid.uuid4()
    blob = pack_side_channels([(ARENA_CHANNEL, b"!ArenaConfig ..."), (other, b"")])
    assert blob[:16] == ARENA_CHANNEL.bytes_le
    assert unpack_side_channels(blob) == [(ARENA_CHANNEL, b"!ArenaConfig ..."), (other, b"")]
    with pytest.raises(ValueError, match="overruns"):
        unpack_side_channels(blob[:30])


def picture(frame: np.ndarray, channels_first: bool, dims: bool, compressed: bool = True) -> ObservationProto:
    h, w, c = frame.shape
    proto = ObservationProto(shape=[c, h, w] if channels_first else [h, w, c])
    if dims:
        proto.dimension_properties.extend([1, 2, 2] if channels_first else [2, 2, 1])
    if compressed:
        buffer = io.BytesIO()
        Image.fromarray(frame).save(buffer, format="PNG")
        proto.compression_type = PNG
        proto.compressed_data = buffer.getvalue()
    else:
        pixels = frame.transpose(2, 0, 1) if channels_first else frame
        proto.float_data.data.extend((pixels.astype(np.float32) / 255.0).ravel().tolist())
    return proto


@pytest.mark.parametrize("channels_first", [False, True])
@pytest.mark.parametrize("compressed", [True, False])
def test_pictures_decode_in_either_layout(channels_first, compressed):
    frame = np.random.default_rng(0).integers(0, 256, size=(6, 10, 3), dtype=np.uint8)
    # With dimension properties the layout needs no hint; without, the generation's layout is used.
    assert np.array_equal(
        decode_picture(picture(frame, channels_first, True, compressed), not channels_first), frame
    )
    assert np.array_equal(
        decode_picture(picture(frame, channels_first, False, compressed), channels_first), frame
    )
    with pytest.raises(ObservationError):
        decode_picture(picture(frame, channels_first, False, compressed), not channels_first)


def test_the_vector_observation_is_health_velocity_position():
    info = AgentInfoProto(reward=-0.004, done=True, max_step_reached=True)
    vector = info.observations.add()
    vector.shape.append(7)
    vector.float_data.data.extend([42.0, 0.5, 0.0, 3.0, 20.0, 0.0, 7.5])
    agent = decode_agent(info, channels_first=False)
    assert agent.camera is None and agent.health == 42.0
    assert agent.velocity == (0.5, 0.0, 3.0) and agent.position == (20.0, 0.0, 7.5)
    assert agent.done and agent.max_step_reached and agent.reward == pytest.approx(-0.004)
    with pytest.raises(ObservationError, match="no Animal-AI vector observation"):
        decode_agent(AgentInfoProto(), channels_first=False)


@pytest.mark.parametrize(
    "max_step,last,health,total,mark,expected",
    [
        (True, -0.004, 0.0, -1.0, 2.0, EndReason.TIME_LIMIT),
        (False, 2.5, 100.0, 2.4, 2.0, EndReason.GOAL),
        (False, 1.0, 100.0, 0.9, 2.0, EndReason.FAILED),  # a goal, but not enough reward
        (False, -1.0, 0.0, -1.2, 2.0, EndReason.DIED),
        (False, -0.5, 40.0, -0.6, 2.0, EndReason.FAILED),  # a small bad goal
    ],
)
def test_why_a_unity_episode_ended_is_read_off_what_it_reports(max_step, last, health, total, mark, expected):
    assert infer_end_reason(max_step, last, health, total, mark) is expected


def test_the_stand_ins_hand_encoded_message_reads_back_with_the_generated_classes():
    from mlagents_envs.communicator_objects.unity_message_pb2 import UnityMessageProto

    from agentkit.envs.animalai_common import wire

    frame = np.random.default_rng(1).integers(0, 256, size=(5, 7, 3), dtype=np.uint8)
    encoded = wire.png(frame)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(encoded))), frame)
    camera = wire.observation((5, 7, 3), (2, 2, 1), "CameraSensor", png=encoded)
    vector = wire.observation((3,), (1,), "VectorSensor_size3", floats=[100.0, -0.5, 2.25])
    agent = wire.agent_info(-0.004, True, True, 300, [camera, vector])
    message = UnityMessageProto.FromString(
        wire.unity_message("AnimalAI?team=0", agent, side_channel=b"\x01\x02")
    )
    assert message.header.status == 200
    (info,) = message.unity_output.rl_output.agentInfos["AnimalAI?team=0"].value
    assert info.reward == pytest.approx(-0.004) and info.done and info.max_step_reached and info.id == 300
    first, second = info.observations
    assert (
        list(first.shape) == [5, 7, 3] and first.compression_type == PNG and first.compressed_data == encoded
    )
    assert list(first.dimension_properties) == [2, 2, 1] and first.name == "CameraSensor"
    assert list(second.float_data.data) == [100.0, -0.5, 2.25] and list(second.shape) == [3]
    assert message.unity_output.rl_output.side_channel == b"\x01\x02"
    assert wire.varint(300) == bytes([0xAC, 0x02])
    before, after = wire.png_observation_parts((5, 7, 3), (2, 2, 1), "CameraSensor")
    assert before + wire.field_bytes(3, encoded) + after == camera


def test_builds_open_at_once_get_distinct_ports_and_play_independently():
    """Parallel workers each launch a build: every one on its own free port, none disturbing another."""
    backends = [AnimalAIBackend(aai_build="builtin", frames=False) for _ in range(3)]
    try:
        for i, backend in enumerate(backends):
            backend.reset("01-04-03", i)
        ports = [b.connection.port for b in backends]
        assert len(set(ports)) == 3, ports
        for _ in range(5):
            for backend in backends:
                backend.step([1, 0])
        assert all(b.observe().step == 5 for b in backends)
    finally:
        for backend in backends:
            backend.close()
