"""CausalWorld's protocols, per benchmark task, over 50 seeds: every draw well-posed or a clear error.

Sampling only (collision checks, no physics stepping). Facts checked come from CausalWorld's
benchmark/benchmarks.py, task_generators/*.py and evaluation/protocols/*.py.
"""

from __future__ import annotations

import math

import pytest

from agentkit.envs.trifinger import sampling
from agentkit.envs.trifinger.protocols import BENCHMARKS, protocol_for
from agentkit.envs.trifinger.sampling import ProtocolDrawError, draw_protocol, scene_problems
from agentkit.envs.trifinger.start_pose import with_start_pose
from agentkit.envs.trifinger.tasks import default_scene

SEEDS = range(50)
CASES = [(task, name) for task, table in BENCHMARKS.items() for name in table]


@pytest.mark.parametrize("task,protocol", CASES, ids=[f"{t}@{p}" for t, p in CASES])
def test_every_draw_is_well_posed_over_50_seeds(task, protocol):
    for seed in SEEDS:
        draw = draw_protocol(task, protocol, seed)
        scene = draw.scene
        assert scene_problems(scene) == [], (seed, draw.intervention)
        if task in ("pushing", "pick_and_place"):  # floor goals rest on the floor
            goal = scene.goals[0]
            if draw.inherited_from:  # or at the half height of an earlier size draw (protocol_carry_over)
                assert abs(goal.position[2] - goal.size[2] / 2) <= (0.095 - 0.065) / 2 + 1e-9, seed
            else:
                assert goal.position[2] == pytest.approx(goal.size[2] / 2, abs=1e-9), seed
            assert scene.blocks[0].position[2] == pytest.approx(scene.blocks[0].size[2] / 2, abs=1e-9), seed
            assert scene.goals[0].size == scene.blocks[0].size  # resizing a block resizes its goal
        if task == "pick_and_place":  # opposite sides of the wall, both clear of it
            wall = scene.obstacles[0]
            block, goal = scene.blocks[0], scene.goals[0]
            assert block.position[1] * goal.position[1] < 0, seed
            for spec in (block, goal):
                assert not sampling._cuboids_intersect(spec.cuboid(), wall.cuboid()), seed
            assert wall.position[2] == pytest.approx(wall.size[2] / 2)
        if task == "picking":  # the goal moves in height only, straight above the arena centre
            goal = scene.goals[0]
            assert math.hypot(goal.position[0], goal.position[1]) < 1e-9, seed
            assert goal.size == scene.blocks[0].size
        if task == "stacking2":  # the two goals always form a tower
            lower, upper = scene.goals
            assert lower.position[:2] == pytest.approx(upper.position[:2], abs=1e-12), seed
            assert lower.position[2] == pytest.approx(lower.size[2] / 2), seed
            assert upper.position[2] == pytest.approx(lower.position[2] + lower.size[2]), seed
            assert lower.orientation == upper.orientation
        if protocol != "P0":
            assert draw.intervention and 1 <= draw.attempts <= sampling.ATTEMPTS


def test_protocols_cover_the_variables_benchmarks_py_names():
    spans = {name: set(draw_protocol("pushing", name, 3).intervention) for name in ("P1", "P4", "P5", "P9")}
    assert spans["P1"] == {"tool_block"} and set(
        draw_protocol("pushing", "P1", 3).intervention["tool_block"]
    ) == {"mass"}
    assert spans["P4"] == {"tool_block"} and spans["P5"] == {"goal_block"}
    assert spans["P9"] == {"tool_block", "goal_block", "floor_friction"}
    # stacking2's goals move only together, as goal_tower; its P9 regex names goal_block, which no
    # stacking2 variable is, so only the tool blocks and the floor friction change
    assert set(draw_protocol("stacking2", "P5", 3).intervention) == {"goal_tower"}
    assert set(draw_protocol("stacking2", "P9", 3).intervention) == {
        "tool_block_1",
        "tool_block_2",
        "floor_friction",
    }
    assert protocol_for("reaching", "P12").space == "B"
    assert draw_protocol("pushing", "P0", 3).scene == with_start_pose(default_scene("pushing"), "causalworld")
    assert draw_protocol("pushing", "P0", 3, "agentkit").scene == default_scene("pushing")


@pytest.mark.parametrize("protocol", ["P10", "P11"])
def test_the_random_protocol_never_touches_joints_or_gravity_and_picks_size_or_position(protocol):
    modes = set()
    for seed in range(30):
        change = draw_protocol("pushing", protocol, seed).intervention
        assert "joint_positions" not in change and "gravity" not in change
        tool = change["tool_block"]
        modes.add("size" if "size" in tool else "position")
        if "size" in tool:  # the coin chose sizes: the block keeps its place, resting at its new height
            assert change["goal_block"]["size"] == tool["size"]
            assert tool["cylindrical_position"][:2] == pytest.approx([0.08, -math.pi / 2])
            assert tool["cylindrical_position"][2] == pytest.approx(tool["size"][2] / 2)
        assert "floor_friction" in change and "finger_lower_link_0" in change
    # the causalworld profile starts raised (start_pose), so space B's 7.5-9.5 cm cubes no longer
    # reach the fingertips and P11 keeps its size draws too (test_trifinger_start_pose.py)
    assert modes == {"size", "position"}


def test_space_b_draws_lie_in_space_b():
    for seed in range(20):
        change = draw_protocol("pushing", "P6", seed).intervention
        for name in ("tool_block", "goal_block"):
            r = change[name]["cylindrical_position"][0]
            assert 0.11 <= r <= 0.15
        # picking.py space A goal height, on an env no size draw has changed (protocol_carry_over)
        goal_z = draw_protocol("picking", "P5", seed, carry_over="protocol").scene.goals[0].position[2]
        assert 0.08 <= goal_z <= 0.20
        assert (
            0.20
            <= draw_protocol("picking", "P6", seed, carry_over="protocol").scene.goals[0].position[2]
            <= 0.25
        )


def test_an_infeasible_protocol_fails_with_one_clear_error(monkeypatch):
    monkeypatch.setattr(sampling, "scene_problems", lambda scene: ["block0 and robot interpenetrate"])
    with pytest.raises(ProtocolDrawError) as caught:
        draw_protocol("pushing", "P8", 4)
    message = str(caught.value)
    assert "pushing@P8" in message and "seed 4" in message and "block0 and robot interpenetrate" in message
    assert "\n" not in message
    from agentkit.envs.trifinger.backend import TriFingerBackend

    backend = TriFingerBackend(cameras=False)
    try:  # the episode does not start on the default scene: its reset fails with the same line
        with pytest.raises(ProtocolDrawError, match=r"pushing@P8 seed 4: no feasible draw in 50 attempts"):
            backend.reset("pushing@P8", 4)
    finally:
        backend.close()


def test_unknown_protocols_and_tasks_without_protocols_are_refused():
    with pytest.raises(ValueError, match="unknown protocol 'P3'"):
        draw_protocol("stacking2", "P3", 0)
    with pytest.raises(ValueError, match="towers.*no CausalWorld protocols"):
        draw_protocol("towers", "P4", 0)


def test_an_infeasible_scene_is_detected():
    scene = default_scene("pushing")
    scene.goals[0].position = (0.0, 0.0, 0.0325)
    scene.blocks[0].position = (0.0, 0.0, 0.0325)
    assert scene_problems(scene) == []  # a block inside its goal is fine
    scene.blocks.append(scene.blocks[0].__class__("block1", (0.065,) * 3, (0.03, 0.0, 0.0325)))
    assert any("interpenetrate" in p for p in scene_problems(scene))
    wall_scene = default_scene("pick_and_place")
    wall_scene.goals[0].position = (0.0, 0.02, 0.0325)
    assert "goal0 overlaps the wall" in scene_problems(wall_scene)


def test_the_curriculum_random_actor_is_causalworlds_random_actor():
    from agentkit.envs.trifinger.backend import TriFingerBackend

    backend = TriFingerBackend(cameras=False, curriculum={"actors": ["random"], "space": "A"})
    modes = set()
    try:
        for _ in range(8):
            backend.reset("pushing", 0)
            (record,) = backend._interventions
            if not record["applied"]:
                continue
            changed = record["changed"]
            assert "gravity" not in changed and "joint_positions" not in changed, changed
            modes.add("size" if "size" in changed.get("block0", {}) else "position")
        assert modes == {"size", "position"}
    finally:
        backend.close()


@pytest.mark.parametrize("task", ["pushing", "picking", "pick_and_place", "stacking2"])
def test_the_curriculum_goal_actor_asks_the_task_for_its_goal(task):
    from agentkit.envs.trifinger.backend import TriFingerBackend

    backend = TriFingerBackend(cameras=False, curriculum={"actors": ["goal"], "space": "A"})
    try:
        for _ in range(4):
            backend.reset(task, 1)
            (record,) = backend._interventions
            assert record["applied"], record
            goals = backend.world.goal_specs
            blocks = backend.world.block_cuboids()
            if task in ("pushing", "pick_and_place"):  # goal_actor.py -> the task's sample_new_goal
                assert goals[0].position[2] == pytest.approx(goals[0].size[2] / 2)
            if task == "pick_and_place":
                assert blocks[0].position[1] * goals[0].position[1] < 0
            if task == "picking":
                assert math.hypot(*goals[0].position[:2]) < 1e-9 and 0.08 <= goals[0].position[2] <= 0.20
            if task == "stacking2":
                assert goals[0].position[:2] == pytest.approx(goals[1].position[:2])
                assert goals[1].position[2] == pytest.approx(3 * goals[0].position[2])
    finally:
        backend.close()


def test_the_curriculum_joints_actor_reaches_for_random_points_of_the_stage_box():
    from agentkit.envs.trifinger.backend import TriFingerBackend

    backend = TriFingerBackend(cameras=False, curriculum={"actors": ["joints"]})
    try:
        poses = []
        for _ in range(3):
            backend.reset("pushing", 0)
            (record,) = backend._interventions
            if record["applied"]:
                joints = record["changed"]["joint_positions"]
                assert len(joints) == 9
                poses.append(tuple(joints))
                # joints_actor.py: the tips go to points of the stage box (-0.15..0.15 m, 0..0.3 m)
                tips = backend.world.kinematics.tips(backend.world.joint_positions())
                assert (abs(tips[:, :2]) <= 0.15 + 0.02).all() and (tips[:, 2] >= -0.01).all()
        assert len(set(poses)) == len(poses) >= 1
    finally:
        backend.close()


def test_the_curriculum_block_pose_actor_keeps_the_tasks_spaces():
    from agentkit.envs.trifinger.backend import TriFingerBackend

    backend = TriFingerBackend(cameras=False, curriculum={"actors": ["block_pose"], "space": "A"})
    try:
        for task in ("pushing", "pick_and_place"):
            for _ in range(4):
                backend.reset(task, 2)
                (record,) = backend._interventions
                assert record["applied"], record
                block = backend.world.block_cuboids()[0]
                assert block.position[2] == pytest.approx(block.size[2] / 2, abs=1e-6)  # pinned to the floor
                if task == "pick_and_place":  # rigid_block_pose_actor.py samples the block's own sector
                    start = backend.world.scene.blocks[0].position
                    assert block.position[1] * start[1] > 0, (start, block.position)
                    assert 0.07 - 1e-9 <= math.hypot(*block.position[:2]) <= 0.12 + 1e-9
    finally:
        backend.close()


def test_the_box_overlap_test_is_exact_for_turned_boxes():
    from agentkit.envs.trifinger.geometry import Cuboid, yaw_quaternion

    unit = Cuboid((0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    assert sampling._cuboids_intersect(unit, Cuboid((0.9, 0.0, 0.0), (1.0, 1.0, 1.0)))
    assert not sampling._cuboids_intersect(unit, Cuboid((1.0, 0.0, 0.0), (1.0, 1.0, 1.0)))  # faces touch
    turned = yaw_quaternion(math.pi / 4)  # reaches 0.707 along x
    assert sampling._cuboids_intersect(unit, Cuboid((1.2, 0.0, 0.0), (1.0, 1.0, 1.0), turned))
    assert not sampling._cuboids_intersect(unit, Cuboid((1.25, 0.0, 0.0), (1.0, 1.0, 1.0), turned))


@pytest.mark.parametrize("task", ["towers", "stacked_blocks", "creative_stacked_blocks"])
def test_tasks_without_protocols_run_their_default_scene_as_task_at_p0(task):
    draw = draw_protocol(task, "P0", 7)
    assert draw.scene == with_start_pose(default_scene(task), "causalworld") and not draw.intervention
    assert len(draw.scene.blocks) == {"towers": 5, "stacked_blocks": 35, "creative_stacked_blocks": 24}[task]
    with pytest.raises(ValueError, match=rf"only '{task}@P0', its default scene, runs"):
        draw_protocol(task, "P1", 0)


def test_towers_at_p0_starts_an_episode_on_towers_py_default_diagonal():
    from agentkit.envs.trifinger.backend import TriFingerBackend

    backend = TriFingerBackend(cameras=False)
    try:
        backend.reset("towers@P0", 3)
        metrics = backend.episode_metrics(None)
        assert metrics["protocol"] == "P0" and metrics["interventions"][0]["applied"] is False
        first = backend.world.block_specs[0].position
        assert first[:2] == pytest.approx((-0.12, -0.12))  # towers.py _set_up_cuboid's first block
        assert backend.time_limit_steps == 50_000  # 5 blocks x 10 s
    finally:
        backend.close()
