"""Every TriFinger episode reports both overlap measures under their own names.

Issue 17: CausalWorld's axis-aligned measure (``overlap_causalworld``) judges success, and our exact
oriented overlap stays available beside it (``overlap_exact``), whatever the run's overlap mode.
"""

from __future__ import annotations

import math

import pytest

from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.variables import WorldVariables


@pytest.mark.parametrize("mode", ["volumetric", "causalworld_aabb"])
def test_a_cube_turned_45_degrees_in_its_goal_reports_both_measures(mode):
    backend = TriFingerBackend(cameras=False, overlap_mode=mode)
    try:
        backend.reset("pushing@P0", 0)
        variables = WorldVariables(backend.world)
        goal = variables.read("goal0", "cylindrical_position")
        variables.write("block0", goal, "cylindrical_position")
        variables.write("block0", [0.0, 0.0, math.pi / 4], "euler_orientation")
        metrics = backend.episode_metrics(None)
        # the turned cube's bounding box covers the whole goal; its own volume fills about 0.83 of it
        assert metrics["overlap_causalworld"] == pytest.approx(1.0, abs=0.01)
        assert metrics["overlap_exact"] == pytest.approx(0.83, abs=0.03)
        expected = metrics["overlap_exact"] if mode == "volumetric" else metrics["overlap_causalworld"]
        assert metrics["overlap"] == pytest.approx(expected, abs=1e-4)
    finally:
        backend.close()
