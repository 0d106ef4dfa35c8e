"""SignPosterboard (v4.1.0: SignBoard): the symbol it shows, drawn by our own code.

Why a module of its own: a sign is how a task tells the agent something (go left, this one), so the
symbol must be the one the file asks for, in the colour Animal-AI gives it. Animal-AI paints preset
textures (``SignPosterboard.cs``: ``symbolNames``/``textures``); we do not ship its art, so each preset
is drawn here from simple geometry (a filled shape with a black outline, as the presets look), on a
square symbol area that covers the board's face height, centred on it.

What the source decides (v3.1.3 ``SignPosterboard.cs`` and prefab; v4.1.0 ``SignBoard.cs`` the same):

* Preset names: default (nothing), right-arrow, left-arrow, up-arrow, down-arrow, u-turn-arrow,
  letter-a, letter-b, letter-c, square, triangle, circle, star, tick, cross. An unknown name shows
  the "default" (empty) texture.
* Special codes, tried when the name is not a preset and starts with a digit or ``*``: ``"MxN"`` is
  an M (wide) by N (high) grid of random black and white pixels; otherwise rows of ``0`` (black),
  ``1`` (white) and ``*`` (random) separated by ``/``, top row first, all of one width (else
  invalid: empty). The pixels stay sharp (``FilterMode.Point``).
* Colour: the symbol is multiplied by the file's colour for that board when one is given (not all
  -1); otherwise by the prefab's ``assignedColourOverride`` (0.239, 0, 0.840), since the prefab
  keeps ``useDefaultColourArray`` off. A board without ``symbolNames`` is never updated and shows
  what its material was saved with: v3.1.3 a white right arrow, v4.1.0 the empty default.
* Size: the board is 0.1 thick, 2 high and 3 wide (its BoxCollider, centred 1 above its base) times
  the file's size as a scale clamped to 0.5..2.5 (``SetSize``; all -1 gives 1); v4.1.0's SignBoard
  prefab fixes the scale at 1 (sizeMin = sizeMax = 1).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from agentkit.envs.animalai_common.items import RGB

PRESETS = (
    "default",
    "right-arrow",
    "left-arrow",
    "up-arrow",
    "down-arrow",
    "u-turn-arrow",
    "letter-a",
    "letter-b",
    "letter-c",
    "square",
    "triangle",
    "circle",
    "star",
    "tick",
    "cross",
)  # SignPosterboard.prefab: symbolNames
DEFAULT_SYMBOL_COLOR: RGB = (
    61,
    0,
    214,
)  # SignPosterboard.prefab: assignedColourOverride (0.239153, 0, 0.8396226)
UNSET_SYMBOL = {
    "3.1.3": ("right-arrow", (255, 255, 255)),  # board_front_symbol.mat: right-arrow texture, white
    "4.1.0": ("default", (255, 255, 255)),
}  # SignBoard.prefab: selectedSymbolName default
PRESET_PIXELS = 48
OUTLINE = (0, 0, 0)


@dataclass(frozen=True)
class SymbolImage:
    """The symbol as RGBA pixels, row 0 at the top; alpha 0 where the board shows through."""

    pixels: np.ndarray  # (height, width, 4) uint8

    @property
    def size(self) -> tuple[int, int]:
        return self.pixels.shape[1], self.pixels.shape[0]

    def visible(self) -> bool:
        return bool(self.pixels[..., 3].any())


def is_special_code(name: str) -> bool:
    return bool(name) and name not in PRESETS and (name[0].isdigit() or name[0] == "*")


def parse_special_code(code: str, rng: random.Random) -> np.ndarray | None:
    """The 0/1 grid of a special code (row 0 at the top), or None when the code is invalid."""
    if "x" in code:
        parts = code.split("x")
        if len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() for p in parts):
            return None
        width, height = int(parts[0]), int(parts[1])
        if width <= 0 or height <= 0:
            return None
        return np.array([[rng.randrange(2) for _ in range(width)] for _ in range(height)], dtype=np.uint8)
    rows = code.split("/")
    width = len(rows[0])
    if len(rows) < 2 or width == 0 or any(len(row) != width for row in rows):
        return None  # the source needs a '/' after a first row of 0/1/* and a rectangular code
    grid = []
    for row in rows:
        line = []
        for char in row:
            if char == "0":
                line.append(0)
            elif char == "1":
                line.append(1)
            elif char == "*":
                line.append(rng.randrange(2))
            else:
                return None
        grid.append(line)
    return np.array(grid, dtype=np.uint8)


def symbol_image(
    name: str | None, color: RGB | None, version: str = "3.1.3", rng: random.Random | None = None
) -> SymbolImage:
    """What a board given ``symbolNames`` entry ``name`` and ``colors`` entry ``color`` shows."""
    rng = rng or random.Random(0)
    if name is None:
        name, tint = UNSET_SYMBOL.get(version, UNSET_SYMBOL["3.1.3"])
    else:
        tint = color if color is not None else DEFAULT_SYMBOL_COLOR
    if is_special_code(name):
        grid = parse_special_code(name, rng)
        if grid is not None:
            pixels = np.zeros(grid.shape + (4,), dtype=np.uint8)
            pixels[..., 3] = 255
            pixels[grid == 1, :3] = tint
            return SymbolImage(pixels)
        name = "default"
    mask = preset_mask(name if name in PRESETS else "default")
    return SymbolImage(_outlined(mask, tint))


def _outlined(mask: np.ndarray, tint: RGB) -> np.ndarray:
    pixels = np.zeros(mask.shape + (4,), dtype=np.uint8)
    grown = mask.copy()
    grown[1:, :] |= mask[:-1, :]
    grown[:-1, :] |= mask[1:, :]
    grown[:, 1:] |= mask[:, :-1]
    grown[:, :-1] |= mask[:, 1:]
    pixels[grown, :3] = OUTLINE
    pixels[grown, 3] = 255
    pixels[mask, :3] = tint
    return pixels


# -- the preset shapes, on a square of side 2 centred on 0 (u right, v up) ---------------------


def _grid(n: int = PRESET_PIXELS) -> tuple[np.ndarray, np.ndarray]:
    centres = (np.arange(n) + 0.5) / n * 2 - 1
    u, v = np.meshgrid(centres, -centres)  # row 0 is the top (v = +1)
    return u, v


def _polygon(u: np.ndarray, v: np.ndarray, points: list[tuple[float, float]]) -> np.ndarray:
    """Even-odd test of every pixel centre against a polygon."""
    inside = np.zeros(u.shape, dtype=bool)
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]):
        crosses = (y0 > v) != (y1 > v)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_at = x0 + (v - y0) * (x1 - x0) / (y1 - y0)
        inside ^= crosses & (u < x_at)
    return inside


def _stroke(u: np.ndarray, v: np.ndarray, points: list[tuple[float, float]], width: float) -> np.ndarray:
    """Pixels within ``width / 2`` of a polyline."""
    near = np.zeros(u.shape, dtype=bool)
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        dx, dy = x1 - x0, y1 - y0
        t = np.clip(((u - x0) * dx + (v - y0) * dy) / (dx * dx + dy * dy), 0.0, 1.0)
        near |= (u - (x0 + t * dx)) ** 2 + (v - (y0 + t * dy)) ** 2 <= (width / 2) ** 2
    return near


def _ring(u: np.ndarray, v: np.ndarray, cx: float, cy: float, inner: float, outer: float) -> np.ndarray:
    d2 = (u - cx) ** 2 + (v - cy) ** 2
    return (d2 <= outer * outer) & (d2 >= inner * inner)


def _arrow(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """An arrow pointing to +u."""
    shaft = (u >= -0.8) & (u <= 0.12) & (np.abs(v) <= 0.24)
    head = _polygon(u, v, [(0.1, 0.62), (0.85, 0.0), (0.1, -0.62)])
    return shaft | head


def preset_mask(name: str, n: int = PRESET_PIXELS) -> np.ndarray:
    """The filled pixels of preset ``name`` (an n x n grid, row 0 at the top)."""
    u, v = _grid(n)
    if name == "default":
        return np.zeros(u.shape, dtype=bool)
    if name == "right-arrow":
        return _arrow(u, v)
    if name == "left-arrow":
        return _arrow(-u, v)
    if name == "up-arrow":
        return _arrow(v, u)
    if name == "down-arrow":
        return _arrow(-v, u)
    if name == "u-turn-arrow":
        arc = _ring(u, v, 0.0, 0.2, 0.2, 0.5) & (v >= 0.2)
        left = (u >= -0.5) & (u <= -0.2) & (v >= -0.85) & (v <= 0.2)
        right = (u >= 0.2) & (u <= 0.5) & (v >= -0.3) & (v <= 0.2)
        head = _polygon(u, v, [(-0.05, -0.3), (0.75, -0.3), (0.35, -0.9)])
        return arc | left | right | head
    if name == "letter-a":
        legs = _stroke(u, v, [(-0.6, -0.85), (0.0, 0.85), (0.6, -0.85)], 0.26)
        return legs | _stroke(u, v, [(-0.32, -0.25), (0.32, -0.25)], 0.2)
    if name == "letter-b":
        spine = _stroke(u, v, [(-0.45, -0.85), (-0.45, 0.85)], 0.24)
        bars = (
            _stroke(u, v, [(-0.45, 0.85), (0.05, 0.85)], 0.2)
            | _stroke(u, v, [(-0.45, 0.0), (0.1, 0.0)], 0.2)
            | _stroke(u, v, [(-0.45, -0.85), (0.1, -0.85)], 0.2)
        )
        bowls = (_ring(u, v, 0.05, 0.425, 0.3, 0.52) & (u >= 0.05)) | (
            _ring(u, v, 0.1, -0.425, 0.3, 0.52) & (u >= 0.1)
        )
        return spine | bars | bowls
    if name == "letter-c":
        angle = np.degrees(np.arctan2(v, u))
        return _ring(u, v, 0.0, 0.0, 0.55, 0.85) & (np.abs(angle) > 40)
    if name == "square":
        return (np.abs(u) <= 0.7) & (np.abs(v) <= 0.7)
    if name == "triangle":
        return _polygon(u, v, [(-0.8, -0.7), (0.8, -0.7), (0.0, 0.8)])
    if name == "circle":
        return u * u + v * v <= 0.75 * 0.75
    if name == "star":
        points = []
        for k in range(10):
            r = 0.88 if k % 2 == 0 else 0.36
            a = math.pi / 2 + k * math.pi / 5
            points.append((r * math.cos(a), r * math.sin(a) - 0.06))
        return _polygon(u, v, points)
    if name == "tick":
        return _stroke(u, v, [(-0.65, 0.0), (-0.2, -0.55), (0.7, 0.65)], 0.26)
    if name == "cross":
        return _stroke(u, v, [(-0.65, -0.65), (0.65, 0.65)], 0.26) | _stroke(
            u, v, [(-0.65, 0.65), (0.65, -0.65)], 0.26
        )
    raise ValueError(f"unknown preset symbol {name!r}")


def pixel_quads(image: SymbolImage) -> dict[RGB, list[tuple[int, int, int]]]:
    """The visible pixels grouped by colour, as horizontal runs (row, first column, length): one quad each."""
    runs: dict[RGB, list[tuple[int, int, int]]] = {}
    height, width = image.pixels.shape[:2]
    for row in range(height):
        col = 0
        while col < width:
            pixel = image.pixels[row, col]
            if pixel[3] == 0:
                col += 1
                continue
            start = col
            while col < width and (image.pixels[row, col] == pixel).all():
                col += 1
            key = (int(pixel[0]), int(pixel[1]), int(pixel[2]))
            runs.setdefault(key, []).append((row, start, col - start))
    return runs


def board_scale(size: tuple[float, float, float] | None, version: str) -> tuple[float, float, float]:
    """``SetSize``: the scale of a board given the file's size (None: not given), before the 0.999."""
    if version != "3.1.3" or size is None or all(c == -1 for c in size):
        return (1.0, 1.0, 1.0)
    return tuple(c if c < 0 else min(max(c, 0.5), 2.5) for c in size)  # type: ignore[return-value]
