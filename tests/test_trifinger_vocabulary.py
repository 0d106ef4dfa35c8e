"""What a model reads of the TriFinger: the reachable workspace in the prompt, unreachable-point errors
that name the point and the region, and block attitude (roll, pitch, yaw) in the status."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p
import pytest

from agentkit.actions import Command, CompileError
from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.describe import roll_pitch
from agentkit.envs.trifinger.geometry import Cuboid
from agentkit.envs.trifinger.scene import REST_JOINTS
from agentkit.envs.trifinger.vocabulary import VOCABULARY
from agentkit.envs.trifinger.workspace import WORKSPACE, compute_workspace
from agentkit.prompts import PromptRenderer


@pytest.fixture(scope="module")
def backend():
    b = TriFingerBackend(cameras=False)
    yield b
    b.close()


def test_the_stated_workspace_is_what_the_kinematics_reach(backend):
    backend.reset("picking", 0)
    measured = compute_workspace(backend.world.kinematics, np.asarray(REST_JOINTS))
    assert np.allclose(measured.radii, WORKSPACE.radii, atol=0.003), measured
    assert abs(measured.top - WORKSPACE.top) < 0.003
    kin = backend.world.kinematics
    inside = (0.7 * WORKSPACE.radius_at(0.1), 0.0, 0.1)
    outside = (0.0, -(WORKSPACE.radius_at(0.1) + 0.05), 0.1)
    assert kin.solve(np.array([inside] * 3), np.asarray(REST_JOINTS)).worst < 0.002
    assert kin.solve(np.array([outside] * 3), np.asarray(REST_JOINTS)).worst > 0.002
    assert WORKSPACE.contains(inside) and not WORKSPACE.contains(outside)


def test_the_prompt_states_the_reachable_workspace(backend):
    backend.reset("pushing", 0)
    context = {
        "commands": VOCABULARY.describe(),
        "max_scripts": 5,
        "has_images": False,
        **backend.prompt_context(),
    }
    system = PromptRenderer.from_set("trifinger").typed_system_message(context).content
    assert WORKSPACE.describe() in system
    assert f"{WORKSPACE.radii[1]:.3f} m at z = 0.0325" in system


def test_an_unreachable_point_names_the_point_asked_for_and_the_region(backend):
    backend.reset("pushing", 0)
    with pytest.raises(CompileError) as caught:
        backend.compile(Command("move_to", (0.15, 0.1, 0.2)))
    message = str(caught.value)
    assert "move_to(0.15, 0.1, 0.2)" in message and "(0.150, 0.100, 0.200)" in message
    assert "0.180 m from the centre axis" in message and WORKSPACE.describe() in message
    with pytest.raises(
        CompileError, match=r"move_tip\(1, 0, 0.19, 0.02\).*\(0.000, 0.190, 0.020\).*reachable region"
    ):
        backend.compile(Command("move_tip", (1, 0.0, 0.19, 0.02)))


def test_a_block_out_of_reach_names_where_it_lies(backend):
    backend.reset("pushing", 0)
    body = backend.world.block_ids[0]
    p.resetBasePositionAndOrientation(
        body, (0.16, 0.0, 0.0325), (0, 0, 0, 1), physicsClientId=backend.world.client
    )
    with pytest.raises(
        CompileError, match=r"grasp\(0\).*\(0.160, 0.000, 0.03\d\).*push it closer.*reachable region"
    ):
        backend.compile(Command("grasp", (0,)))


def test_the_status_shows_roll_and_pitch_of_a_tilted_block(backend):
    backend.reset("pushing", 0)
    body = backend.world.block_ids[0]
    tilted = p.getQuaternionFromEuler((math.radians(20), math.radians(-10), math.radians(30)))
    p.resetBasePositionAndOrientation(body, (0.0, 0.0, 0.05), tilted, physicsClientId=backend.world.client)
    line = backend.observe().status["block_0"]
    assert "yaw 30 deg, roll 20 deg, pitch -10 deg" in line, line
    level = Cuboid((0, 0, 0), (0.065,) * 3)
    assert roll_pitch(level) == (0.0, 0.0)
