"""The TriFinger platform's cameras, headless: scene views with see-through goals, and goal images.

Why: a model (or an RL policy) must see the blocks, and must tell a block from the goal it should
fill, even when both are green. pybullet's CPU renderer (the only one without a display) draws
every visual opaque and ignores alpha, so a goal marker used to hide the block inside it. Each
scene view is therefore composed from two renders of the same camera: one with the goals hidden
(what is really there) and one of the goals alone; where a goal is nearer than the scene (depth
buffers compared) it is blended over the first render at CausalWorld's silhouette
alpha (``envs/scene/silhouette.py`` ``self._alpha = 0.3``), hatched, and outlined in white, so a
goal reads as a see-through wire box and never as a solid block. A block in front of a goal hides
it, a block inside it shows through.

``PlatformCameras``: the three platform cameras of trifinger-simulation (camera60, camera180,
camera300; its simple model, ``TriFingerCameras``), for the LLM's observations.

``CausalWorldCameras``: CausalWorld's pixel observation (``envs/causalworld.py`` ``_tool_cameras``
/ ``_goal_cameras`` and ``envs/robot/camera.py``): its three camera poses, 128 x 128 pixels, a
52-degree field of view, its view-matrix formula and its row flip (``rgb_array[::-1]``). Its scene
images hold no goals (CausalWorld renders them in a pybullet world without goal shapes) and its
goal images hold only the goals (a second world without blocks, the fingers raised out of the way:
``_set_finger_state_in_goal_image``). Here both come from the one simulated world: blocks or goals
are made invisible for the render, and in goal images the robot is hidden rather than raised
(raising it would move the simulated robot). CausalWorld's headless renderer draws its alpha-0.3
goals opaque, and so do these goal images.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from agentkit.envs.trifinger.sim_import import TriFingerCameras, p
from agentkit.envs.trifinger.world import TriFingerWorld

CAMERA_NAMES = ("camera60", "camera180", "camera300")
#: envs/scene/silhouette.py ``self._alpha = 0.3``: how opaque a goal is drawn over the scene.
GOAL_ALPHA = 0.3
GOAL_OUTLINE = np.array([255, 255, 255], dtype=np.float32)
HATCH_PERIOD = 6  # every 6th diagonal of a goal's pixels is drawn in the goal colour at full strength
#: envs/causalworld.py: the pixel-mode cameras (position, quaternion x, y, z, w).
CAUSALWORLD_CAMERA_POSES: tuple[tuple[tuple[float, float, float], tuple[float, float, float, float]], ...] = (
    ((0.2496, 0.2458, 0.58), (0.3760, 0.8690, -0.2918, -0.1354)),
    ((0.0047, -0.2834, 0.58), (0.9655, -0.0098, -0.0065, -0.2603)),
    ((-0.2470, 0.2513, 0.50), (-0.3633, 0.8686, -0.3141, 0.1220)),
)
#: envs/robot/camera.py: ``self._width = 128``, ``fov=52``, ``nearVal=0.001``, ``farVal=100.0``.
CAUSALWORLD_IMAGE_SIZE = 128
CAUSALWORLD_FOV = 52.0
_BODY_MASK = (1 << 24) - 1  # pybullet segmentation: object id in the low 24 bits


class _Visibility:
    """Makes bodies invisible (alpha 0, which the CPU renderer skips) and restores their colours."""

    def __init__(self, client: int) -> None:
        self.client = client
        self._saved: list[tuple[int, int, tuple[float, ...]]] = []

    def hide(self, bodies: Iterable[int]) -> None:
        for body in bodies:
            for shape in p.getVisualShapeData(body, physicsClientId=self.client):
                link, rgba = shape[1], tuple(shape[7])
                self._saved.append((body, link, rgba))
                p.changeVisualShape(body, link, rgbaColor=[*rgba[:3], 0.0], physicsClientId=self.client)

    def show_opaque(self, bodies: Iterable[int]) -> None:
        for body in bodies:
            for shape in p.getVisualShapeData(body, physicsClientId=self.client):
                link, rgba = shape[1], tuple(shape[7])
                self._saved.append((body, link, rgba))
                p.changeVisualShape(body, link, rgbaColor=[*rgba[:3], 1.0], physicsClientId=self.client)

    def restore(self) -> None:
        for body, link, rgba in reversed(self._saved):
            p.changeVisualShape(body, link, rgbaColor=list(rgba), physicsClientId=self.client)
        self._saved.clear()


def _render_with_depth(
    client: int, size: int, view: Sequence[float], projection: Sequence[float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """RGB (size, size, 3) uint8, the depth buffer, and the body id under each pixel (-1: background)."""
    _, _, rgba, depth, seg = p.getCameraImage(
        width=size,
        height=size,
        viewMatrix=view,
        projectionMatrix=projection,
        renderer=p.ER_TINY_RENDERER,
        physicsClientId=client,
    )
    rgb = np.asarray(rgba, dtype=np.uint8).reshape(size, size, 4)[:, :, :3]
    seg = np.asarray(seg, dtype=np.int64).reshape(size, size)
    return (
        rgb,
        np.asarray(depth, dtype=np.float64).reshape(size, size),
        np.where(seg >= 0, seg & _BODY_MASK, -1),
    )


def _render(
    client: int, size: int, view: Sequence[float], projection: Sequence[float]
) -> tuple[np.ndarray, np.ndarray]:
    """RGB (size, size, 3) uint8 and the body id under each pixel (-1: background)."""
    rgb, _, seg = _render_with_depth(client, size, view, projection)
    return rgb, seg


def _all_bodies(client: int) -> list[int]:
    return [
        p.getBodyUniqueId(i, physicsClientId=client) for i in range(p.getNumBodies(physicsClientId=client))
    ]


def blend_goals(scene: np.ndarray, drawn: np.ndarray, goal_mask: np.ndarray) -> np.ndarray:
    """``scene`` with the goal pixels of ``drawn`` laid over it see-through, hatched and outlined."""
    out = scene.astype(np.float32)
    if goal_mask.any():
        mixed = GOAL_ALPHA * drawn.astype(np.float32) + (1.0 - GOAL_ALPHA) * out
        rows, cols = np.indices(goal_mask.shape)
        hatch = goal_mask & ((rows + cols) % HATCH_PERIOD == 0)
        padded = np.pad(goal_mask, 1, constant_values=False)
        inner = padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:]
        edge = goal_mask & ~inner
        out[goal_mask] = mixed[goal_mask]
        out[hatch] = drawn[hatch]
        out[edge] = GOAL_OUTLINE
    return np.clip(out, 0, 255).astype(np.uint8)


class _Views:
    """Shared rendering of one world from a list of (view, projection) matrices."""

    def __init__(
        self, world: TriFingerWorld, size: int, matrices: list[tuple[Sequence[float], Sequence[float]]]
    ) -> None:
        self.world = world
        self.size = size
        self.matrices = matrices

    def scene_with_goals(self) -> list[np.ndarray]:
        """Each view with the goals see-through (see the module docstring). The second render holds
        the goals alone (cheap: a few boxes); a goal pixel counts where it is nearer than the scene."""
        world, vis = self.world, _Visibility(self.world.client)
        goals = list(world.goal_ids)
        if not goals:
            return [_render(world.client, self.size, v, m)[0] for v, m in self.matrices]
        out = []
        try:
            vis.hide(goals)
            plain = [_render_with_depth(world.client, self.size, v, m) for v, m in self.matrices]
            vis.restore()
            vis.hide([b for b in _all_bodies(world.client) if b not in set(goals)])
            vis.show_opaque(goals)
            for (view, projection), (scene, scene_depth, _) in zip(self.matrices, plain):
                drawn, depth, seg = _render_with_depth(world.client, self.size, view, projection)
                out.append(blend_goals(scene, drawn, np.isin(seg, goals) & (depth < scene_depth)))
        finally:
            vis.restore()
        return out

    def without(self, hidden: Iterable[int], opaque: Iterable[int] = ()) -> list[np.ndarray]:
        """Each view with ``hidden`` bodies invisible and ``opaque`` ones drawn at full alpha."""
        vis = _Visibility(self.world.client)
        try:
            vis.hide(hidden)
            vis.show_opaque(opaque)
            return [_render(self.world.client, self.size, v, m)[0] for v, m in self.matrices]
        finally:
            vis.restore()


class PlatformCameras:
    """The three platform views of one world at ``size`` pixels square, goals see-through."""

    def __init__(self, world: TriFingerWorld, size: int = 270) -> None:
        self.world = world
        self.size = size
        cameras = TriFingerCameras(image_size=(size, size), pybullet_client_id=world.client).cameras
        self._views = _Views(world, size, [(c._view_matrix, c._proj_matrix) for c in cameras])

    def render(self) -> dict[str, np.ndarray]:
        return {
            name: np.ascontiguousarray(img) for name, img in zip(CAMERA_NAMES, self._views.scene_with_goals())
        }

    def render_goal(self) -> dict[str, np.ndarray]:
        """The goal shape alone, as CausalWorld's goal images show it: blocks and fingers hidden, goals opaque."""
        world = self.world
        images = self._views.without([*world.block_ids, world.robot_id], world.goal_ids)
        return {f"goal_{name}": np.ascontiguousarray(img) for name, img in zip(CAMERA_NAMES, images)}


def causalworld_view_matrix(
    position: Sequence[float], quaternion: Sequence[float], client: int
) -> Sequence[float]:
    """envs/robot/camera.py's formula: the camera's z axis as the target, its y axis as up."""
    x, y, z, w = quaternion
    return p.computeViewMatrix(
        cameraEyePosition=list(position),
        cameraTargetPosition=[2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)],
        cameraUpVector=[2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)],
        physicsClientId=client,
    )


class CausalWorldCameras:
    """CausalWorld's pixel observation of one world: three scene images and three goal images."""

    def __init__(self, world: TriFingerWorld, size: int = CAUSALWORLD_IMAGE_SIZE) -> None:
        self.world = world
        self.size = size
        projection = p.computeProjectionMatrixFOV(
            fov=CAUSALWORLD_FOV, aspect=1.0, nearVal=0.001, farVal=100.0, physicsClientId=world.client
        )
        matrices = [
            (causalworld_view_matrix(pos, orn, world.client), projection)
            for pos, orn in CAUSALWORLD_CAMERA_POSES
        ]
        self._views = _Views(world, size, matrices)
        self._goal_key: tuple | None = None
        self._goal_images = np.zeros((0, size, size, 3), dtype=np.uint8)

    def scene_images(self) -> np.ndarray:
        """(3, size, size, 3) uint8: blocks and robot, no goals (CausalWorld's ``_tool_cameras``)."""
        return np.stack([img[::-1] for img in self._views.without(self.world.goal_ids)])

    def goal_images(self) -> np.ndarray:
        """(3, size, size, 3) uint8: the goals alone (CausalWorld's ``_goal_cameras``). Rendered again
        only when a goal changed, as CausalWorld updates its goal image only on an intervention
        (``envs/scene/stage.py`` ``update_goal_image``)."""
        world = self.world
        key = (
            tuple(world.goal_ids),
            tuple(repr(vars(g)) for g in world.goal_specs),
            tuple(tuple(t) for t in (world.scene.tip_goals if world.scene else ())),
        )
        if self._goal_key != key:
            images = self._views.without([*world.block_ids, world.robot_id], world.goal_ids)
            self._goal_images = np.stack([img[::-1] for img in images])
            self._goal_key = key
        return self._goal_images.copy()
