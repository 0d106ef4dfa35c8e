"""The arena's stored observations carry the agent's pose, so the viewer can map its trajectory."""

from __future__ import annotations

import json

import pytest

from agentkit.envs.arena.backend import ArenaBackend
from agentkit.observers.observer import Observer, ObserverConfig
from agentkit.viewer.trajectory import pose_of


def test_stored_observation_has_the_pose_the_viewer_reads():
    backend = ArenaBackend(frames=False)
    try:
        observer = Observer(ObserverConfig(views=("structured",)))
        start = json.loads(json.dumps(observer.observe(backend.reset("01-04-03", seed=0)).to_json()))
        assert start["structured"]["position"] == pytest.approx([20.0, 0.0, 1.1], abs=0.01)  # 0.01 spawn gap
        assert pose_of(start).x == pytest.approx(20.0) and pose_of(start).y == pytest.approx(1.1)
        for action in [[0, 1]] * 5 + [[1, 0]] * 10:  # turn 30 degrees right, then drive
            backend.step(action)
        moved = json.loads(json.dumps(observer.observe(backend.observe()).to_json()))
        pose = pose_of(moved)
        assert pose is not None and pose.heading == pytest.approx(30.0)
        truth = backend.privileged_state()["agent"]["position"]
        assert (pose.x, pose.y) == pytest.approx((truth[0], truth[2]), abs=0.01)
        assert pose.x > 21 and pose.y > 5  # went forward and to the right (+x)
        text_only = Observer(ObserverConfig(views=("image",))).observe(backend.observe())
        assert text_only.structured is None  # only when the structured view is asked for
    finally:
        backend.close()
