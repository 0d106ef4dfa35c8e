"""Scene cameras draw goals see-through and outlined; goal images show the goal shape alone."""

from __future__ import annotations

import numpy as np
import pytest

from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.cameras import GOAL_ALPHA, _render, _Visibility, blend_goals
from agentkit.envs.trifinger.scene import GoalSpec
from agentkit.envs.trifinger.sim_import import p


@pytest.fixture(scope="module")
def backend():
    b = TriFingerBackend(cameras=True, render_size=96, goal_images=True)
    yield b
    b.close()


def _red(img: np.ndarray) -> np.ndarray:
    rgb = img.astype(int)
    return rgb[..., 0] - np.maximum(rgb[..., 1], rgb[..., 2]) > 40  # clearly red, also seen through green


def test_a_block_inside_its_goal_still_shows_in_every_scene_camera(backend):
    backend.reset("pushing@P0", 0)
    world = backend.world
    block = world.block_cuboids()[0]
    spec = world.goal_specs[0]
    bigger = tuple(1.1 * v for v in spec.size)  # the block wholly inside (equal faces would z-fight)
    world.replace_goal(0, GoalSpec(spec.name, bigger, block.position, block.orientation, spec.color))
    for link in range(-1, p.getNumJoints(world.robot_id, physicsClientId=world.client)):
        # CausalWorld's finger 0 is red: grey the robot so that only the block counts as red
        p.changeVisualShape(world.robot_id, link, rgbaColor=[0.5, 0.5, 0.5, 1], physicsClientId=world.client)
    frames = backend.observe().frames
    for name in ("camera60", "camera180", "camera300"):
        camera = backend._camera._views
        view, projection = camera.matrices[("camera60", "camera180", "camera300").index(name)]
        vis = _Visibility(world.client)
        vis.hide(world.goal_ids)
        bare = _render(world.client, camera.size, view, projection)[0]
        vis.restore()
        vis.show_opaque(world.goal_ids)
        opaque = _render(world.client, camera.size, view, projection)[0]
        vis.restore()
        assert _red(opaque).sum() < 0.2 * _red(bare).sum()  # an opaque goal would hide the block ...
        assert _red(frames[name]).sum() > 0.5 * _red(bare).sum()  # ... the see-through one does not
        white = np.all(frames[name] == 255, axis=-1)
        assert white.sum() > 10  # the goal's outline


def test_goal_images_show_the_goal_and_no_block(backend):
    backend.reset("pushing@P0", 0)
    frames = backend.observe().frames
    for name in ("camera60", "camera180", "camera300"):
        goal = frames[f"goal_{name}"]
        green = (goal[..., 1] > 150) & (goal[..., 0] < 120)
        assert green.sum() > 10 and _red(goal).sum() == 0


def test_blend_lays_a_hatched_outlined_goal_over_the_scene():
    scene = np.zeros((8, 8, 3), dtype=np.uint8)
    drawn = np.full((8, 8, 3), 100, dtype=np.uint8)
    mask = np.zeros((8, 8), dtype=bool)
    mask[2:6, 2:6] = True
    out = blend_goals(scene, drawn, mask)
    assert np.all(out[0, 0] == 0) and np.all(out[2, 2] == 255)  # outside untouched, edge white
    assert out[3, 4, 0] == pytest.approx(GOAL_ALPHA * 100, abs=1)  # inside: blended
    assert out[3, 3, 0] == 100  # a hatch pixel: (3 + 3) % 6 == 0
