"""Procedural textures of the arena (made here with numpy, resembling Animal-AI's) and their sampling.

Why generated: Animal-AI's own images belong to its Unity project; the look is rebuilt from what they
show (``look.py`` says what each one is): sandy bricks on the floor, planks on the fence, joints on
walls, pale patches on ramps, cloudy noise in zones. Each texture is one tile of a periodic pattern,
made from a fixed seed, so every run draws the same pixels; each is built once per process.

Why prefiltered: a joint a few hundredths of a unit wide covers less than a pixel a few units away,
and sampled as it is it would flicker and draw moire. Each texture keeps a pyramid of box-filtered
copies (each level averages 2 x 2 texels of the one before, stored back at full size so one gather
serves every level), and a pixel reads the level whose texels match its footprint.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from agentkit.envs.arena import look

_LEVELS = 8


@dataclass(frozen=True)
class Texture:
    """One periodic tile and its filtered levels, flattened for fast gathers.

    ``texels`` holds ``levels`` x ``height`` x ``width`` values: float32 factors for a grey texture,
    or packed RGBA colours (uint32, bytes R, G, B, 255) for a colour one; level 0 is the tile itself.
    """

    texels: np.ndarray
    levels: int
    height: int
    width: int

    def sample(self, u: np.ndarray, v: np.ndarray, footprint: np.ndarray | float) -> np.ndarray:
        """Texels at tile coordinates (u, v) (1.0 = one tile; any value, it repeats), for pixels that
        each cover ``footprint`` tiles; the shape of the broadcast inputs."""
        return np.take(self.texels, self.where(u, v, footprint))

    def where(self, u: np.ndarray, v: np.ndarray, footprint: np.ndarray | float) -> np.ndarray:
        """Flat texel indices for ``sample``; textures of the same layout share them."""
        h, w = self.height, self.width
        texels = np.asarray(footprint, dtype=np.float32) * np.float32(w)
        level = np.log2(np.maximum(texels, np.float32(1e-6)))
        level = np.clip(level + np.float32(0.5), 0, self.levels - 1).astype(np.int32)
        x = np.floor(u * np.float32(w)).astype(np.int32) % w
        y = np.floor(v * np.float32(h)).astype(np.int32) % h
        return (level * h + y) * w + x

    def colours(self) -> np.ndarray:
        """A colour texture's texels as float32 RGB, shape (levels, height, width, 3)."""
        rgba = self.texels.view(np.uint8).reshape(self.levels, self.height, self.width, 4)
        return rgba[..., :3].astype(np.float32)

    def scaled(self, factor: np.ndarray) -> Texture:
        """A colour texture with every texel multiplied by an RGB factor (e.g. a light level)."""
        return _packed(self.colours() * np.asarray(factor, dtype=np.float32))


def pack(rgb: np.ndarray) -> np.ndarray:
    """RGB values (..., 3) as packed uint32 RGBA (alpha 255), the camera's frame format."""
    rgb = np.clip(np.round(rgb), 0, 255).astype(np.uint8)
    rgba = np.concatenate([rgb, np.full(rgb.shape[:-1] + (1,), 255, dtype=np.uint8)], axis=-1)
    return np.ascontiguousarray(rgba).view(np.uint32)[..., 0]


def _packed(levels: np.ndarray) -> Texture:
    n, h, w = levels.shape[:3]
    return Texture(pack(levels).reshape(-1), n, h, w)


def _pyramid(tile: np.ndarray, colour: bool = False) -> Texture:
    """A tile (height, width, channels) with its box-filtered levels, each stored at full size."""
    tile = tile.astype(np.float32)
    h, w, c = tile.shape
    levels = [tile]
    current = tile
    for _ in range(_LEVELS - 1):
        ch, cw = current.shape[:2]
        if ch % 2 == 0:  # an axis that cannot be halved any more keeps its size
            current = current.reshape(ch // 2, 2, cw, c).mean(axis=1)
        if cw % 2 == 0:
            current = current.reshape(current.shape[0], cw // 2, 2, c).mean(axis=2)
        fy, fx = h // current.shape[0], w // current.shape[1]
        levels.append(np.repeat(np.repeat(current, fy, axis=0), fx, axis=1))
    stacked = np.stack(levels)
    if colour:
        return _packed(stacked)
    return Texture(np.ascontiguousarray(stacked[..., 0].reshape(-1)), len(levels), h, w)


def _bricks(
    width: int, height: int, across: int, rows: int, joint: float, ratio: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Running-bond bricks: per texel, a random value per brick in [-1, 1] and a 0/1 joint mask.

    ``joint`` is the joint width as a fraction of a brick's length; ``ratio`` is a brick's length
    over its height (so joints are as wide across rows as along them)."""
    rng = np.random.default_rng(seed)
    shades = rng.uniform(-1.0, 1.0, size=(rows, across))
    v = (np.arange(height) + 0.5) / height * rows
    row = np.floor(v).astype(np.intp)
    fv = v - row
    u = (np.arange(width) + 0.5) / width * across
    shifted = u[None, :] + 0.5 * (row[:, None] % 2)  # odd rows move by half a brick
    col = np.floor(shifted).astype(np.intp)
    fu = shifted - col
    brick = shades[row[:, None], col % across]
    joints = (np.minimum(fu, 1 - fu) < joint / 2) | (np.minimum(fv, 1 - fv)[:, None] < joint * ratio / 2)
    return brick, joints.astype(np.float32)


def floor_texture() -> Texture:
    """The sandy bricks of the arena floor: one Animal-AI texture tile (8.4 units square)."""
    across, rows = look.FLOOR_BRICKS
    ratio = (look.FLOOR_TILE / across) / (look.FLOOR_TILE / rows)
    brick, joints = _bricks(512, 768, across, rows, look.FLOOR_JOINT, ratio, seed=3)
    rng = np.random.default_rng(4)
    grain = rng.normal(0.0, 0.025, size=brick.shape)
    shade = 1.0 + look.FLOOR_SHADE_SPREAD * brick + grain
    shade = np.where(joints > 0, look.FLOOR_JOINT_SHADE, shade)
    tile = look.FLOOR_BASE[None, None, :] * shade[:, :, None]
    # The warmer (more saturated) bricks are the darker ones, as in the Unity floor.
    tile[:, :, 2] *= 1.0 - 0.08 * np.clip(brick, 0, 1)
    return _pyramid(np.clip(tile, 0, 255), colour=True)


@functools.cache
def wall_bricks() -> Texture:
    """Walls' joint pattern (ao.psd of the floor tiles): white bricks, dark joints; one channel."""
    _, joints = _bricks(
        256, 384, 8, 12, look.WALL_JOINT, 1.0, seed=5
    )  # joints: the same share of length and height
    return _pyramid((1.0 - (1.0 - look.WALL_JOINT_SHADE) * joints)[:, :, None])


@functools.cache
def fence_planks() -> Texture:
    """The fence panel along its length: one plank per tile, with a dark line at its edge; one channel."""
    u = (np.arange(64) + 0.5) / 64
    line = np.minimum(u, 1 - u) < look.FENCE_LINE_WIDTH / 2
    row = np.where(line, look.FENCE_LINE_SHADE, 1.0).astype(np.float32)
    return _pyramid(np.broadcast_to(row[None, :, None], (2, 64, 1)).copy())


def _smooth_noise(size: int, scale: float, seed: int) -> np.ndarray:
    """Periodic smooth noise in [0, 1] (white noise low-passed in Fourier space, so it tiles)."""
    rng = np.random.default_rng(seed)
    spectrum = np.fft.fft2(rng.normal(size=(size, size)))
    f = np.fft.fftfreq(size)
    radius = np.hypot(f[:, None], f[None, :]) * size
    noise = np.real(np.fft.ifft2(spectrum * np.exp(-((radius / scale) ** 2))))
    noise -= noise.min()
    return noise / max(float(noise.max()), 1e-9)


@functools.cache
def cow_patches() -> Texture:
    """Ramps' pale patches (cloud_cow_patch_texture_light_grey.png): 1 or RAMP_PATCH_SHADE; one channel."""
    noise = _smooth_noise(128, 6.0, seed=6)
    shade = np.where(noise > 0.55, look.RAMP_PATCH_SHADE, 1.0).astype(np.float32)
    return _pyramid(shade[:, :, None])


@functools.cache
def zone_noise() -> Texture:
    """Zones' cloudy noise (good_perlin_noise.png: grey 132..204 of 255); one channel, 0.52..0.8."""
    noise = _smooth_noise(128, 5.0, seed=7)
    return _pyramid((132.0 + 72.0 * noise)[:, :, None] / 255.0)
