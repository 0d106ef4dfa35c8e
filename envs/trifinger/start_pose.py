"""Where the fingers start each episode under a profile (CausalWorld's: raised above every block).

Why: CausalWorld's robot starts every episode in its rest pose (``envs/robot/trifinger.py``
``get_rest_pose``: joints ``[0, pi/4, -pi/4]`` per finger, fingertips at z = 0.321 m), far above
anything a protocol draws. TriFingerPro's rest pose (``scene.REST_JOINTS``) holds the tips 7.9 cm
above the floor, where a drawn block would sit inside them, so draws that put a block there were
refused and protocols leaned away from the tips (P11 never accepted a size draw on pushing). Under
the ``causalworld`` profile every benchmark task therefore starts raised: ``RAISED_JOINTS``, the
highest pose TriFingerPro holds steadily (tips 0.204 m up, ``RAISED_TIP_Z``: it cannot reach 0.321 m,
its three tips meet no higher than 0.189 m). The ``agentkit`` profile keeps each task's own start pose.
"""

from __future__ import annotations

import dataclasses

from agentkit.envs.trifinger.causalworld_layouts import RAISED_JOINTS
from agentkit.envs.trifinger.causalworld_profile import BENCHMARK_FAMILIES, check_profile
from agentkit.envs.trifinger.scene import Scene

#: envs/robot/trifinger.py get_rest_pose: CausalWorld's TriFinger Edu tips at this height (m).
CAUSALWORLD_REST_TIP_Z = 0.321
#: TriFingerPro's tips in RAISED_JOINTS (measured by its kinematics; held there by the PD controller).
RAISED_TIP_Z = 0.204


def start_joints(family: str, profile: str, own: tuple[float, ...]) -> tuple[float, ...]:
    """The joint positions an episode of ``family`` starts from under ``profile`` (``own``: the
    task's own start pose, kept by the agentkit profile and by non-benchmark tasks)."""
    check_profile(profile)
    if profile == "causalworld" and family in BENCHMARK_FAMILIES:
        return RAISED_JOINTS
    return own


def with_start_pose(scene: Scene, profile: str) -> Scene:
    """``scene`` with the start pose of ``profile`` (the same object when nothing changes)."""
    joints = start_joints(scene.task, profile, tuple(scene.joint_positions))
    if tuple(joints) == tuple(scene.joint_positions):
        return scene
    return dataclasses.replace(scene, joint_positions=tuple(joints))
