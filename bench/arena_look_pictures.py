"""Side-by-side pictures of Animal-AI's screenshots and the same scenes in our pybullet arena.

Why: the arena's look (``envs/arena/look.py``) is rebuilt from Animal-AI's source; these pictures let
a person see how close it comes. Each pair puts a screenshot from the Animal-AI docs (Apache-2.0,
cropped to a square and scaled to 512 pixels, in ``docs/arena-look/animal-ai/``; see the README there) on the left and our
frame of a YAML arena that mimics it on the right (the first-person pair uses the agent's own
camera; the others a camera placed like the screenshot's, with Unity's editor field of view, 60).

Usage: python bench/arena_look_pictures.py [--out docs/arena-look]
"""

from __future__ import annotations

import argparse
import logging
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from agentkit.envs.arena.backend import ArenaBackend

SIZE = 512
DOCS = Path(__file__).resolve().parent.parent / "docs" / "arena-look"
logger = logging.getLogger("arena_look_pictures")


@dataclass(frozen=True)
class Scene:
    """One pair: the screenshot, the arena (a Testbed id or YAML items) and our camera."""

    name: str
    reference: str  # file in docs/arena-look/animal-ai/
    arena: str  # a Testbed id, or the items of an !Arena (YAML)
    pose: (
        tuple[float, float, float, float, float] | None
    )  # eye x, y, z, heading, pitch; None: the agent's camera
    caption: str


def item(
    name: str, x: float, z: float, size=(1.0, 1.0, 1.0), rotation: float = 0.0, color=None, y: float = 0.0
) -> str:
    sx, sy, sz = size
    text = (
        f"    - !Item\n      name: {name}\n      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n"
        f"      rotations: [{rotation}]\n      sizes: [!Vector3 {{x: {sx}, y: {sy}, z: {sz}}}]\n"
    )
    if color is not None:
        text += f"      colors: [!RGB {{r: {color[0]}, g: {color[1]}, b: {color[2]}}}]\n"
    return text


def looking_at(target: tuple[float, float, float], distance: float, heading: float, pitch: float):
    """A camera pose ``distance`` from ``target``, facing it along ``heading``, tilted down ``pitch``."""
    h, t = math.radians(heading), math.radians(pitch)
    x = target[0] - distance * math.sin(h) * math.cos(t)
    z = target[2] - distance * math.cos(h) * math.cos(t)
    return (x, target[1] + distance * math.sin(t), z, heading, pitch)


_AGENT_AWAY = item("Agent", 2, 2)  # every arena needs an agent; keep it out of the object pictures


def _object(
    name: str,
    size,
    color=None,
    rotation: float = 0.0,
    distance: float = 7.0,
    heading: float = 215.0,
    pitch: float = 28.0,
    caption: str = "",
) -> Scene:
    return Scene(
        name,
        f"{name}.jpg",
        _AGENT_AWAY + item(name if name not in _ALIASES else _ALIASES[name], 20, 20, size, rotation, color),
        looking_at((20.0, size[1] / 3, 20.0), distance, heading, pitch),
        caption or name,
    )


_ALIASES = {"LightBlock": "Cardbox1", "UBlock": "UObject"}

SCENES = (
    Scene(
        "first-person",
        "arena-FP.jpg",
        item("Agent", 20, 20),
        None,
        "the agent's camera in the empty arena (arena-FP.png)",
    ),
    Scene(
        "testbed-10-13-01",
        "TestCompetition10-13-01.jpg",
        "10-13-01",
        (36.0, 10.0, 27.0, 238.0, 40.0),
        "Testbed 10-13-01: wall, U/L blocks, death zone, goals",
    ),
    Scene(
        "testbed-02-28-02",
        "TestCompetition02-28-02.jpg",
        "02-28-02",
        (36.0, 9.0, 3.0, 325.0, 30.0),
        "Testbed 02-28-02: rails on posts, multi goals",
    ),
    _object("Wall", (3.0, 4.0, 1.0), color=(100, 100, 104), heading=200.0),
    _object("WallTransparent", (3.0, 4.0, 1.0), heading=200.0),
    _object("CylinderTunnel", (5.0, 5.0, 6.0), color=(30, 30, 30), rotation=90.0, distance=9.0),
    _object("CylinderTunnelTransparent", (5.0, 5.0, 6.0), rotation=90.0, distance=9.0),
    _object("Ramp", (3.0, 2.0, 4.0), color=(25, 25, 25), rotation=300.0),
    _object("GoodGoal", (2.0, 2.0, 2.0), distance=4.0, pitch=20.0),
    _object("DeathZone", (6.0, 2.0, 4.0), distance=8.0),
    _object("HotZone", (6.0, 2.0, 4.0), distance=8.0),
    _object("LightBlock", (2.0, 2.0, 2.0), distance=5.0, caption="LightBlock (Cardbox1)"),
    _object("UBlock", (3.0, 1.0, 5.0), distance=8.0, pitch=40.0, caption="UBlock (UObject)"),
)


def _square(image: Image.Image) -> Image.Image:
    w, h = image.size
    s = min(w, h)
    return image.crop(((w - s) // 2, (h - s) // 2, (w - s) // 2 + s, (h - s) // 2 + s))


def render(scene: Scene, backend: ArenaBackend, folder: Path) -> np.ndarray:
    task = scene.arena
    if "!Item" in scene.arena:
        path = folder / f"{scene.name}.yaml"
        path.write_text(f"!ArenaConfig\narenas:\n  0: !Arena\n    t: 0\n    items:\n{scene.arena}")
        task = str(path)
    backend.reset(task, seed=0)
    if scene.pose is None:
        return backend.frame()
    x, y, z, heading, pitch = scene.pose
    return backend._camera.render_view((x, y, z), heading, pitch, fov_deg=60.0)


def pair(scene: Scene, ours: np.ndarray, references: Path) -> Image.Image:
    reference = _square(Image.open(references / scene.reference).convert("RGB")).resize(
        (SIZE, SIZE), Image.LANCZOS
    )
    caption = 28
    picture = Image.new("RGB", (2 * SIZE + 8, SIZE + caption), (255, 255, 255))
    picture.paste(reference, (0, caption))
    picture.paste(Image.fromarray(ours), (SIZE + 8, caption))
    draw = ImageDraw.Draw(picture)
    draw.text((6, 8), f"Animal-AI v3.1 docs: {scene.caption}", fill=(0, 0, 0))
    draw.text((SIZE + 14, 8), "agentkit aai-arena (pybullet, CPU)", fill=(0, 0, 0))
    return picture


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=DOCS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    backend = ArenaBackend(render_size=SIZE, frames=True)
    pictures = []
    with tempfile.TemporaryDirectory() as folder:
        for scene in SCENES:
            picture = pair(scene, render(scene, backend, Path(folder)), DOCS / "animal-ai")
            picture.save(args.out / f"{scene.name}.jpg", quality=90)
            pictures.append(picture)
            logger.info("wrote %s", args.out / f"{scene.name}.jpg")
    backend.close()
    # All pairs at half size on one sheet, two pairs a row.
    half = [p.resize((p.width // 2, p.height // 2), Image.LANCZOS) for p in pictures]
    w, h = half[0].size
    sheet = Image.new("RGB", (2 * w + 12, (len(half) + 1) // 2 * (h + 12)), (255, 255, 255))
    for i, p in enumerate(half):
        sheet.paste(p, ((i % 2) * (w + 12), (i // 2) * (h + 12)))
    sheet.save(args.out / "all.jpg", quality=90)
    logger.info("wrote %s", args.out / "all.jpg")


if __name__ == "__main__":
    main()
