"""The ``animalai`` backend on the ``builtin`` build plays exactly as the direct arena.

One ``agentkit-arena`` process is launched by mlagents-envs' ``UnityEnvironment`` for the whole
module and replays several episodes; each is played again through ``aai-arena`` with the same seed
and must give the same actions, the same per-step rewards (at the protocol's float32 precision),
the same end reason and the same pass verdict.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentkit.config import ObserverSettings, RunConfig
from agentkit.envs.animalai.backend import AnimalAIBackend
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.loop import EpisodeSetup, run_episode
from agentkit.models.reference_model import ReferenceAgent
from agentkit.models.replay_model import ReplayModel
from agentkit.prompts import PromptRenderer
from agentkit.prompts.renderer import resolve_templates
from agentkit.runs.setup_episode import make_observer

CONFIG = RunConfig(
    env="animalai", tasks=["01-01-01"], include_images=False, observer=ObserverSettings(views=["image"])
)


class Turns:
    """A sink that keeps the turns in memory."""

    def __init__(self) -> None:
        self.turns = []

    def add_turn(self, episode_id, turn) -> None:
        self.turns.append(turn)


class SteppedBackend:
    """Wraps a backend to record every step's reward and end reason as the loop sees them."""

    def __init__(self, backend) -> None:
        self.inner = backend
        self.steps = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def step(self, action):
        result = self.inner.step(action)
        self.steps.append((list(action), result.reward, result.done, result.end_reason))
        return result


def play(backend, task: str, seed: int, answers: list[str] | None = None):
    wrapped = SteppedBackend(backend)
    model = ReplayModel(answers) if answers is not None else ReferenceAgent(backend.reference_policy())
    setup = EpisodeSetup(
        backend=wrapped,
        observer=make_observer(CONFIG),
        renderer=PromptRenderer(resolve_templates("aai-arena", None), include_images=False),
        model=model,
    )
    sink = Turns()
    result = run_episode(setup, task, seed, sink=sink, episode_id=f"{task}-{seed}")
    return result, wrapped.steps, sink.turns


@pytest.fixture(scope="module")
def protocol_backend():
    backend = AnimalAIBackend(aai_build="builtin", render_size=32, frames=False, timeout_s=30)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def direct_backend():
    backend = ArenaBackend(render_size=32, frames=False)
    yield backend
    backend.close()


def assert_same_episode(direct, through):
    (d_result, d_steps, d_turns), (p_result, p_steps, p_turns) = direct, through
    assert [a for a, *_ in p_steps] == [a for a, *_ in d_steps]
    assert p_result.actions == d_result.actions and len(p_steps) > 0
    # ML-Agents carries rewards as float32: the same number at that precision.
    assert [r for _, r, *_ in p_steps] == [float(np.float32(r)) for _, r, *_ in d_steps]
    assert [(done, why) for _, _, done, why in p_steps] == [(done, why) for _, _, done, why in d_steps]
    assert p_result.end_reason == d_result.end_reason
    assert p_result.success == d_result.success
    assert p_result.reward == pytest.approx(d_result.reward, abs=1e-5)
    assert p_result.metrics == d_result.metrics
    assert [t.answer for t in p_turns] == [t.answer for t in d_turns]
    assert [t.health for t in p_turns] == pytest.approx([t.health for t in d_turns], abs=1e-4)


@pytest.mark.parametrize("task", ["01-04-03", "07-16-01"])
def test_the_reference_agent_plays_the_same_episode_through_the_protocol(
    protocol_backend, direct_backend, task
):
    direct = play(direct_backend, task, seed=3)
    through = play(protocol_backend, task, seed=3)
    assert direct[0].end_reason.value == "goal" and len(direct[2]) >= 2
    assert_same_episode(direct, through)


def arena(tmp_path, name: str, items: str, t: int) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        "!ArenaConfig\narenas:\n  0: !Arena\n"
        f"    t: {t}\n    items:\n"
        "    - !Item\n      name: Agent\n      positions: [!Vector3 {x: 20, y: 0, z: 5}]\n      rotations: [0]\n"
        + items
    )
    return str(path)


def thing(name: str, z: float, size: float = 2) -> str:
    return (
        f"    - !Item\n      name: {name}\n      positions: [!Vector3 {{x: 20, y: 0, z: {z}}}]\n"
        f"      rotations: [0]\n      sizes: [!Vector3 {{x: {size}, y: {size}, z: {size}}}]\n"
    )


@pytest.mark.parametrize(
    "name,items,t,expected",
    [
        ("bad-goal", thing("BadGoal", 15), 200, "failed"),
        ("death-zone", thing("DeathZone", 15, 4), 200, "died"),
        ("time-limit", thing("Wall", 30, 1), 25, "time_limit"),
    ],
)
def test_scripts_end_for_the_same_reason_through_the_protocol(
    protocol_backend, direct_backend, tmp_path, name, items, t, expected
):
    task = arena(tmp_path, name, items, t)
    answers = ['Think("straight ahead"); Go(12);', "Turn(30); Go(-3)", "Go(20)", "Go(20)"]
    direct = play(direct_backend, task, seed=1, answers=answers)
    through = play(protocol_backend, task, seed=1, answers=answers)
    assert direct[0].end_reason.value == expected
    assert_same_episode(direct, through)


def test_workers_get_distinct_ports_and_shut_down_cleanly():
    """Two builds on the same base port: the second moves to the next worker id; both close with exit code 0."""
    import socket

    with socket.socket() as s:
        s.bind(("localhost", 0))
        base = s.getsockname()[1]
    first = AnimalAIBackend(aai_build="builtin", render_size=16, frames=False, worker_id=0, base_port=base)
    second = AnimalAIBackend(aai_build="builtin", render_size=16, frames=False, worker_id=0, base_port=base)
    try:
        first.reset("01-01-01", 0)
        second.reset("01-01-01", 0)
        assert (first.connection.port, second.connection.port) == (base, base + 1)
        assert first.step([1, 0]).reward == second.step([1, 0]).reward
        processes = [first.connection.process, second.connection.process]
    finally:
        first.close()
        second.close()
    assert [p.returncode for p in processes] == [0, 0]
