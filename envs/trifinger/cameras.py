"""The three fixed cameras of the TriFinger platform (camera60, camera180, camera300), headless.

Uses trifinger-simulation's simple camera model (``TriFingerCameras``: the real cameras' poses and
field of view) with pybullet's CPU renderer, which needs no display. Goal images are rendered from
the same cameras with the blocks hidden and the goal markers opaque, as CausalWorld offers them.
"""

from __future__ import annotations

import numpy as np

from agentkit.envs.trifinger.sim_import import TriFingerCameras, p
from agentkit.envs.trifinger.world import GOAL_ALPHA, TriFingerWorld

CAMERA_NAMES = ("camera60", "camera180", "camera300")


class PlatformCameras:
    """Renders the three views of one world at ``size`` pixels square."""

    def __init__(self, world: TriFingerWorld, size: int = 270) -> None:
        self.world = world
        self.size = size
        self._cameras = TriFingerCameras(image_size=(size, size), pybullet_client_id=world.client)

    def render(self) -> dict[str, np.ndarray]:
        images = self._cameras.get_images(renderer=p.ER_TINY_RENDERER)
        return {name: np.ascontiguousarray(img, dtype=np.uint8) for name, img in zip(CAMERA_NAMES, images)}

    def render_goal(self) -> dict[str, np.ndarray]:
        """The goal shape alone: blocks invisible, goal markers opaque; restored afterwards."""
        world, client = self.world, self.world.client
        for body, spec in zip(world.block_ids, world.block_specs):
            p.changeVisualShape(body, -1, rgbaColor=[*spec.color, 0.0], physicsClientId=client)
        for body, spec in zip(world.goal_ids, world.goal_specs):
            p.changeVisualShape(body, -1, rgbaColor=[*spec.color, 1.0], physicsClientId=client)
        try:
            return {f"goal_{name}": img for name, img in self.render().items()}
        finally:
            for body, spec in zip(world.block_ids, world.block_specs):
                p.changeVisualShape(body, -1, rgbaColor=[*spec.color, 1.0], physicsClientId=client)
            for body, spec in zip(world.goal_ids, world.goal_specs):
                p.changeVisualShape(body, -1, rgbaColor=[*spec.color, GOAL_ALPHA], physicsClientId=client)
