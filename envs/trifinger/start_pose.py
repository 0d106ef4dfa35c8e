"""Where the fingers start each episode: CausalWorld's own start poses, under either profile.

Why: CausalWorld starts every task in its robot's rest pose (``envs/robot/trifinger.py``
``get_rest_pose``: joints ``[0, pi/4, -pi/4]`` per finger, the tips 5.6 cm above the table and
16 cm out from the centre), except towers and general, which raise it first (``towers.py``,
``general.py``: ``get_joint_positions_raised``, ``[-1.56, -0.08, -2.7]``, the tips together 27 cm
up). The task generators in ``tasks.py`` already set these, and the robot is CausalWorld's under both
profiles, so nothing here depends on the profile any more; the functions stay as the one place
sampling asks.

(CausalWorld's ``get_rest_pose`` also returns end-effector positions 0.321 m up: those numbers are
stale, not what its URDF's kinematics give for the rest joints, which put the tips at 0.0559 m.)
"""

from __future__ import annotations

from agentkit.envs.trifinger.causalworld_profile import check_profile
from agentkit.envs.trifinger.causalworld_robot import RAISED_JOINTS, REST_JOINTS
from agentkit.envs.trifinger.scene import Scene

__all__ = ["REST_JOINTS", "RAISED_JOINTS", "REST_TIP_Z", "RAISED_TIP_Z", "start_joints", "with_start_pose"]

#: The tips' height in REST_JOINTS by the URDF's kinematics (m).
REST_TIP_Z = 0.0559
#: The tips' height in RAISED_JOINTS by the URDF's kinematics (m).
RAISED_TIP_Z = 0.2694


def start_joints(family: str, profile: str, own: tuple[float, ...]) -> tuple[float, ...]:
    """The joint positions an episode of ``family`` starts from under ``profile``: the task's own,
    which is CausalWorld's."""
    check_profile(profile)
    return own


def with_start_pose(scene: Scene, profile: str) -> Scene:
    """``scene`` with the start pose of ``profile`` (the scene itself: see the module docstring)."""
    check_profile(profile)
    return scene
