"""Where the fingers start: CausalWorld's rest pose (tips 5.6 cm up, 16 cm out) for every task but
towers and general, which start raised (tips together 27 cm up), under both profiles; the start
check refuses a block the resting fingers would be inside; P11 accepts size draws about as often as
CausalWorld's coin says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.causalworld_profile import BENCHMARK_FAMILIES
from agentkit.envs.trifinger.causalworld_robot import RAISED_JOINTS, REST_JOINTS
from agentkit.envs.trifinger.kinematics import TipKinematics
from agentkit.envs.trifinger.sampling import scene_problems
from agentkit.envs.trifinger.scene import BlockSpec
from agentkit.envs.trifinger.start_pose import RAISED_TIP_Z, REST_TIP_Z, with_start_pose
from agentkit.envs.trifinger.tasks import default_scene

ROOT = Path(__file__).resolve().parents[1]


def test_the_stated_tip_heights_are_what_causalworlds_urdf_gives():
    kin = TipKinematics()
    assert kin.tips(np.asarray(REST_JOINTS))[:, 2] == pytest.approx([REST_TIP_Z] * 3, abs=1e-4)
    assert kin.tips(np.asarray(RAISED_JOINTS))[:, 2] == pytest.approx([RAISED_TIP_Z] * 3, abs=1e-4)


@pytest.mark.parametrize("profile", ["causalworld", "agentkit"])
def test_episodes_start_in_causalworlds_pose_under_either_profile(profile):
    backend = TriFingerBackend(cameras=False, profile=profile)
    try:
        for task, height in (("pushing", REST_TIP_Z), ("pushing@P11", REST_TIP_Z), ("towers", RAISED_TIP_Z)):
            backend.reset(task, 2)
            assert backend.world.tips()[:, 2] == pytest.approx([height] * 3, abs=2e-3), task
    finally:
        backend.close()


def test_towers_and_general_start_raised_and_every_other_family_at_rest():
    for family in BENCHMARK_FAMILIES:
        if family == "general":  # its default goal is made by dropping blocks (a second of physics)
            continue
        scene = default_scene(family)
        want = RAISED_JOINTS if family == "towers" else REST_JOINTS
        assert tuple(scene.joint_positions) == pytest.approx(want), family
        assert with_start_pose(scene, "causalworld") is scene
        assert with_start_pose(scene, "agentkit") is scene


def test_the_start_check_refuses_a_block_where_a_resting_fingertip_is():
    scene = default_scene("pushing")
    tip = TipKinematics().tips(np.asarray(REST_JOINTS))[0]
    assert scene_problems(scene) == []
    scene.blocks.append(BlockSpec("block1", (0.08,) * 3, (float(tip[0]), float(tip[1]), 0.04)))
    assert any("robot" in p for p in scene_problems(scene))


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
