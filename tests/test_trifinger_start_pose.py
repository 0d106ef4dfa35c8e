"""Where the fingers start: raised above every block under the causalworld profile (CausalWorld's
rest pose holds its tips 0.321 m up), TriFingerPro's rest pose under agentkit; protocol draws are
then no longer bent away from the fingertips (P11 accepts size draws about half the time)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.causalworld_layouts import RAISED_JOINTS
from agentkit.envs.trifinger.causalworld_profile import BENCHMARK_FAMILIES
from agentkit.envs.trifinger.sampling import draw_protocol, scene_problems
from agentkit.envs.trifinger.scene import REST_JOINTS, BlockSpec
from agentkit.envs.trifinger.start_pose import RAISED_TIP_Z, with_start_pose
from agentkit.envs.trifinger.tasks import default_scene

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("profile", ["causalworld", "agentkit"])
def test_episodes_start_raised_only_under_the_causalworld_profile(profile):
    backend = TriFingerBackend(cameras=False, profile=profile)
    try:
        for task in ("pushing", "pushing@P11", "stacking2@P0"):
            backend.reset(task, 2)
            lowest_tip = float(backend.world.tips()[:, 2].min())
            if profile == "causalworld":
                assert lowest_tip == pytest.approx(RAISED_TIP_Z, abs=2e-3), task
            else:
                assert lowest_tip < 0.09, task  # TriFingerPro's rest pose: tips 7.9 cm up
    finally:
        backend.close()


def test_every_benchmark_family_but_general_gets_the_raised_pose_and_agentkit_keeps_its_own():
    for family in BENCHMARK_FAMILIES:
        if family == "general":  # its default goal is made by dropping blocks (a second of physics)
            continue
        scene = default_scene(family)
        assert with_start_pose(scene, "causalworld").joint_positions == RAISED_JOINTS, family
        assert with_start_pose(scene, "agentkit").joint_positions == scene.joint_positions, family
    assert default_scene("pushing").joint_positions == REST_JOINTS


def test_the_robot_leaves_the_start_check_only_when_every_tip_is_above_every_block():
    resting = default_scene("pushing")
    resting.blocks[0].position = (0.0, 0.0, 0.0325)
    resting.goals[0].position = (0.0, 0.0, 0.0325)
    tip = (0.086, 0.0505)  # finger 0's tip (x, y) in both poses, 7.9 cm up at rest
    resting.blocks.append(BlockSpec("block1", (0.09,) * 3, (tip[0], tip[1], 0.045)))
    assert any("robot" in p for p in scene_problems(resting))
    raised = with_start_pose(resting, "causalworld")
    assert scene_problems(raised) == []
    tall = with_start_pose(resting, "causalworld")
    tall.blocks[1] = BlockSpec(
        "block1", (0.03, 0.03, 0.25), (tip[0], tip[1], 0.125)
    )  # reaches the raised tip
    assert any("robot" in p for p in scene_problems(tall))


def test_p11_accepts_size_draws_about_half_the_time_over_50_seeds():
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "trifinger_protocol_draws.py"),
            "--seeds",
            "50",
            "--tasks",
            "pushing,pick_and_place",
            "--protocols",
            "P11",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    shares = {
        m[0]: float(m[1]) for m in re.findall(r"^(\S+@P11)\s+\S+\s+\d+\s+\d+\s+\S+\s+(\S+)", run.stdout, re.M)
    }
    assert set(shares) == {"pushing@P11", "pick_and_place@P11"}, run.stdout
    for task, share in shares.items():
        # fully_random_protocol.py's coin: 31 of seeds 0-49 flip it to sizes (0.62)
        assert 0.4 <= share <= 0.75, (task, share)
    # TriFingerPro's rest pose (the agentkit profile) refuses every P11 size draw on pushing
    sized = [
        bool("size" in draw_protocol("pushing", "P11", seed, "agentkit").intervention["tool_block"])
        for seed in range(20)
    ]
    assert not any(sized)
    assert (
        np.mean(
            [
                bool("size" in draw_protocol("pushing", "P11", seed).intervention["tool_block"])
                for seed in range(20)
            ]
        )
        > 0.3
    )
