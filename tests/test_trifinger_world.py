"""The simulated TriFinger (CausalWorld's Edu): every task generator builds and steps, 4 ms physics, IK, bounded memory."""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest

from agentkit.actions import Command, CompileError
from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.tasks import FAMILIES, default_scene, generate
from agentkit.envs.trifinger.world import TIME_STEP_S
from agentkit.records import EndReason


@pytest.fixture(scope="module")
def backend():
    b = TriFingerBackend(cameras=False)
    yield b
    b.close()


def test_physics_runs_at_causalworlds_four_milliseconds(backend):
    backend.reset("pushing", 0)
    assert TIME_STEP_S == pytest.approx(0.004)  # causal_world/envs/causalworld.py: 1. / 250
    from agentkit.envs.trifinger.sim_import import p

    assert p.getPhysicsEngineParameters(physicsClientId=backend.world.client)[
        "fixedTimeStep"
    ] == pytest.approx(0.004)
    q = backend.world.target.tolist()
    backend.step({"q": q, "ms": 50})  # 12 physics steps and 2 ms carried over ...
    backend.step({"q": q, "ms": 50})  # ... so two 50 ms actions run exactly 25 steps
    assert backend.world.steps == 100 and backend.world.physics_steps == 25


@pytest.mark.parametrize("task", sorted(FAMILIES))
def test_every_generator_resets_deterministically_and_steps(backend, task):
    first = backend.reset(task, 3)
    again = backend.reset(task, 3)
    assert first.privileged["blocks"] == again.privileged["blocks"]
    assert first.privileged["goals"] == again.privileged["goals"]
    assert generate(task, 3).to_json() != generate(task, 4).to_json() or task == "reaching"
    assert default_scene(task).task == task
    q = backend.world.target.tolist()
    result = backend.step({"q": q, "ms": 50})
    assert not result.done
    raw = backend.observe()
    assert raw.step == 50 and "block_0" in raw.status or task == "reaching"


def test_gravity_compensation_holds_the_rest_pose(backend):
    backend.reset("reaching", 0)
    q = backend.world.target.copy()
    backend.step({"q": q.tolist(), "ms": 300})
    assert np.abs(backend.world.joint_positions() - q).max() < 0.01


def test_pinocchio_ik_puts_the_tips_within_a_millimetre(backend):
    backend.reset("reaching", 0)
    world = backend.world
    targets = np.array([[0.06, 0.05, 0.09], [0.03, -0.08, 0.06], [-0.08, 0.02, 0.12]])
    solution = world.kinematics.solve(targets, world.target)
    assert solution.worst < 2e-4
    backend.step({"q": solution.joints.tolist(), "ms": 300})  # the set-point ramps over 300 ms ...
    backend.step({"q": solution.joints.tolist(), "ms": 300})  # ... then holds while the fingers settle
    assert np.linalg.norm(world.tips() - targets, axis=1).max() < 0.001


def test_memory_stays_flat_over_many_steps(backend):
    backend.reset("pushing", 1)
    q = backend.world.target.tolist()
    for _ in range(3):
        backend.step({"q": q, "ms": 100})
    gc.collect()
    tracemalloc.start()
    start, _ = tracemalloc.get_traced_memory()
    for _ in range(20):
        backend.step({"q": q, "ms": 100})
    gc.collect()
    end, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert end - start < 100_000  # 2000 steps leave no per-step record behind


def test_bad_actions_and_commands_are_clear_errors(backend):
    backend.reset("pushing", 0)
    with pytest.raises(ValueError, match="trifinger actions are"):
        backend.step([0.0] * 9)
    with pytest.raises(ValueError, match="ms must be an integer"):
        backend.step({"q": [0.0] * 9, "ms": 0})
    with pytest.raises(CompileError, match="there is no block 3"):
        backend.compile(Command("grasp", (3,)))
    with pytest.raises(CompileError, match="no block is grasped"):
        backend.compile(Command("lift", (0.1,)))
    with pytest.raises(CompileError, match="is out of reach"):
        backend.compile(Command("move_tip", (0, 0.19, 0.19, 0.01)))
    with pytest.raises(ValueError, match="unknown trifinger task"):
        backend.reset("juggling", 0)


def test_time_limit_ends_the_episode(backend):
    backend.reset("reaching", 0)
    limit = backend.time_limit_steps
    q = backend.world.target.tolist()
    result = None
    for _ in range(limit // 1000):
        result = backend.step({"q": q, "ms": 1000})
    assert result is not None and result.done and result.end_reason == EndReason.TIME_LIMIT
