"""The TriFinger reference agent recovers: a grasp that fails (or cannot be planned) is followed by a
push, not the same grasp again; a block hanging tilted in the grip is levelled before it is set down;
a grasp never lands a fingertip on a neighbouring block."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pybullet as p
import pytest

from agentkit.actions import Command
from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.compiler import axis_rotation, tilt_degrees
from agentkit.envs.trifinger.geometry import Cuboid, yaw_quaternion
from agentkit.envs.trifinger.grasping import plan_grasp
from agentkit.envs.trifinger.motion import TrajectoryBuilder
from agentkit.envs.trifinger.reference import (
    CAUSALWORLD_TILT_TOLERANCE_DEG,
    TILT_TOLERANCE_DEG,
    TriFingerReference,
)


@pytest.fixture(scope="module")
def backend():
    b = TriFingerBackend(cameras=False, end_on_success=False)  # the tilt test carries on past success
    yield b
    b.close()


def run(backend: TriFingerBackend, commands: list[Command]) -> None:
    for command in commands:
        for action in backend.compile(command):
            if backend.step(action).done:
                return


def names(commands: list[Command]) -> list[str]:
    return [c.name for c in commands if c.name != "Think"]


def test_a_grasp_that_left_the_block_where_it_was_is_followed_by_a_push(backend):
    backend.reset("pushing", 1)
    agent = TriFingerReference(backend)
    first = agent.next_commands()
    assert "grasp" in names(first)
    before = np.asarray(backend.world.block_cuboids()[0].position)
    second = agent.next_commands()  # the grasp script never moved the block: it failed
    assert "grasp" not in names(second) and names(second) == ["push"], second
    run(backend, second)
    after = np.asarray(backend.world.block_cuboids()[0].position)
    assert np.linalg.norm(after[:2] - before[:2]) > 0.015
    assert "grasp" in names(agent.next_commands())  # pushed once, it tries to pick it up again


def test_a_block_out_of_the_grasp_planner_reach_is_pushed_inwards(backend):
    backend.reset("pushing", 1)
    body = backend.world.block_ids[0]
    p.resetBasePositionAndOrientation(
        body, (0.15, 0.0, 0.0325), (0, 0, 0, 1), physicsClientId=backend.world.client
    )
    assert (
        plan_grasp(backend.world.kinematics, backend.world.block_cuboids()[0], backend.world.target) is None
    )
    commands = TriFingerReference(backend).next_commands()
    assert names(commands) == ["push"]
    dx, dy = commands[-1].args[1:]
    assert dx < -0.02  # inwards (towards the centre or the goal, which lies inside)
    run(backend, commands)
    assert backend.world.block_cuboids()[0].position[0] < 0.13


def test_a_tilted_grip_is_levelled_before_the_block_is_set_down(backend):
    backend.reset("picking@P0", 0)
    goal = backend.world.goal_cuboids()[0].position
    run(backend, [Command("grasp", (0,)), Command("lift", (0.1,))])
    assert backend.held_block == 0
    block = backend.world.block_cuboids()[0]
    build = TrajectoryBuilder(backend.world.kinematics, backend.world.target)  # tip the block over 20 degrees
    build.turn(np.asarray(block.position), axis_rotation(np.array([1.0, 0.0, 0.0]), math.radians(20)))
    build.hold(0.2)
    for action in build.actions:
        backend.step(action)
    assert backend.held_block == 0 and tilt_degrees(backend.world.block_cuboids()[0]) > 12
    agent = TriFingerReference(backend)
    commands = agent.next_commands()
    assert "rotate" in names(commands) and "release" not in names(commands), commands
    run(backend, commands)
    assert tilt_degrees(backend.world.block_cuboids()[0]) < 12
    for _ in range(2):
        run(backend, agent.next_commands())
    final = backend.world.block_cuboids()[0]
    limit = max(TILT_TOLERANCE_DEG, CAUSALWORLD_TILT_TOLERANCE_DEG)  # whichever profile the backend runs
    assert tilt_degrees(final) < limit and math.dist(final.position, goal) < 0.01 and backend.held_block == 0


def test_a_grasp_keeps_its_fingertips_off_neighbouring_blocks(backend):
    backend.reset("pushing", 0)
    kin = backend.world.kinematics
    block = Cuboid((0.0, 0.0, 0.0325), (0.065,) * 3)
    neighbour = Cuboid((0.0, 0.075, 0.0325), (0.065,) * 3)  # 1 cm gap on the +y side
    grasp = plan_grasp(kin, block, backend.world.target, others=[neighbour])
    assert grasp is not None
    assert not any(neighbour.contains(grasp.approach, margin=0.01))
    assert all(abs(n[1]) < 0.5 for n in grasp.normals)  # nobody grips the face towards the neighbour
    unconstrained = [
        plan_grasp(kin, block, backend.world.target, others=[c])
        for c in (Cuboid((0.075, 0, 0.0325), (0.065,) * 3), Cuboid((-0.075, 0, 0.0325), (0.065,) * 3))
    ]
    assert all(g is not None for g in unconstrained)
    boxed_in = [
        neighbour,
        Cuboid((0.0, -0.075, 0.0325), (0.065,) * 3),
        Cuboid((0.075, 0, 0.0325), (0.065,) * 3),
        Cuboid((-0.075, 0, 0.0325), (0.065,) * 3),
    ]
    assert plan_grasp(kin, block, backend.world.target, others=boxed_in) is None


@pytest.mark.parametrize("profile", ["causalworld", "agentkit"])
def test_cubes_are_turned_when_the_run_s_measure_needs_it(profile):
    """CausalWorld scores axis-aligned boxes: a yawed cube over an axis-aligned goal loses nothing, a
    cube less diagonal than its yawed goal does; the exact measure wants every yaw matched."""
    b = TriFingerBackend(cameras=False, profile=profile)
    try:
        b.reset("pushing@P0", 0)
        client, body = b.world.client, b.world.block_ids[0]
        p.resetBasePositionAndOrientation(
            body, (0.0, -0.05, 0.0325), yaw_quaternion(math.radians(30)), physicsClientId=client
        )
        yawed_cube = names(TriFingerReference(b).next_commands())
        b.reset("pushing@P0", 0)
        goal = b.world.goal_specs[0]
        b.world.replace_goal(0, dataclasses.replace(goal, orientation=yaw_quaternion(math.radians(30))))
        yawed_goal = names(TriFingerReference(b).next_commands())
    finally:
        b.close()
    assert "rotate" in yawed_goal
    assert ("rotate" in yawed_cube) == (profile == "agentkit")
