"""The room around the items: sandy floor, white plank fence with posts and rails, sky; drawn in numpy.

Why not as pybullet geometry: TinyRenderer (headless, CPU) pays for every pixel a triangle covers, and
the floor and the fence cover nearly every pixel of every frame. They are planes and boxes at known
places (``look.py``, from ``AAI3Arena.prefab``), so each pixel's ray is intersected with them here,
and the camera merges the result with TinyRenderer's items by depth.

How: a ray leaving the arena through one side meets, in order, the line of the posts' faces (the
boundary), the rails' faces 0.125 further and the panel 0.375 further. Those three crossings depend
only on the ray's horizontal direction, so for the level agent camera they are per column and the
per-pixel work is one height test per surface; a tilted camera (used for pictures) gets per-pixel
arrays through the same code by numpy broadcasting. Surfaces are painted far to near, then the floor
wherever it is nearer; what is left is sky.
"""

from __future__ import annotations

import functools

import numpy as np

from agentkit.envs.arena import look, shadows, textures

SIZE = 40.0
SKY, FLOOR, PANEL, RAIL, POST = 0, 1, 2, 3, 4
# Inward normals of the four sides: x = 0, x = 40, z = 0, z = 40 (arena axes x, y up, z).
_SIDE_NORMALS = np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, -1.0]])
RAIL_SHADE = 0.93  # the rails read slightly darker than the panel behind them (arena-FP.png)


def light_factor(normals: np.ndarray, lit: np.ndarray | float = 1.0) -> np.ndarray:
    """Per-channel brightness of surfaces with these normals (..., 3): AMBIENT + LIGHT * n.l."""
    ndl = (
        np.maximum(normals @ look.LIGHT_TOWARDS, 0.0)[..., None]
        * np.asarray(lit, dtype=np.float32)[..., None]
    )
    return look.AMBIENT + look.LIGHT * ndl


_SIDE_LIGHT = light_factor(_SIDE_NORMALS).astype(np.float32)  # (4, 3)
_FLOOR_LIT = light_factor(np.array([0.0, 1.0, 0.0])).astype(np.float32)
_FLOOR_DARK = look.AMBIENT.astype(np.float32)
_BAYER = (
    np.array([[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]], dtype=np.float32) + 0.5
) / 16


def _sky_table() -> np.ndarray:
    """Sky colour for 1024 steps of the sine of the elevation, -1..1."""
    sines = np.linspace(-1.0, 1.0, 1024)
    elevation = np.degrees(np.arcsin(sines))
    stops = np.array([e for e, _ in look.SKY_STOPS])
    colours = np.array([c for _, c in look.SKY_STOPS], dtype=np.float64)
    table = np.stack([np.interp(elevation, stops, colours[:, k]) for k in range(3)], axis=1)
    return np.round(table).astype(np.uint8)


def _exit(ex: float, ez: float, dx: np.ndarray, dz: np.ndarray, beyond: float):
    """Where rays leave the square [-beyond, 40 + beyond]^2: view distance, side (0..3), coordinate along it."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tx = np.where(dx > 0, (SIZE + beyond - ex) / dx, np.where(dx < 0, (-beyond - ex) / dx, np.inf))
        tz = np.where(dz > 0, (SIZE + beyond - ez) / dz, np.where(dz < 0, (-beyond - ez) / dz, np.inf))
    on_x = tx < tz
    t = np.minimum(tx, tz)
    along = np.where(on_x, ez + t * dz, ex + t * dx)
    side = np.where(on_x, np.where(dx > 0, 1, 0), np.where(dz > 0, 3, 2))
    return t, side, along


def _in_posts(along: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Whether each coordinate along a side lies in a post, and that post's two ends."""
    inside = np.zeros(along.shape, dtype=bool)
    lo = np.zeros(along.shape)
    hi = np.zeros(along.shape)
    for a, b in look.FENCE_POSTS:
        here = (along >= a) & (along <= b)
        inside |= here
        lo = np.where(here, a, lo)
        hi = np.where(here, b, hi)
    return inside, lo, hi


@functools.cache
def _floor_variants() -> tuple[textures.Texture, textures.Texture]:
    """The floor texture in the sun and in shade (25 MB together: built once per process)."""
    floor = textures.floor_texture()
    return floor.scaled(_FLOOR_LIT), floor.scaled(_FLOOR_DARK)


class Room:
    """Draws the floor, fence and sky for rays from one eye, as packed RGBA (``textures.pack``)."""

    def __init__(self) -> None:
        self._floor_lit, self._floor_dark = _floor_variants()
        self._planks = textures.fence_planks()
        self._sky = textures.pack(_sky_table())

    def draw(
        self,
        eye: tuple[float, float, float],
        dx: np.ndarray,
        dy: np.ndarray,
        dz: np.ndarray,
        pixel: float,
        shadow_grid: np.ndarray,
        cover: np.ndarray | None = None,
        row0: int = 0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Packed RGBA (n, n) uint32 and view distance (n, n) float32 (inf for sky) of the room.

        ``eye`` is in arena axes, inside the fence; ``dx, dy, dz`` (float32) are the rays (forward
        component 1, so a ray's parameter is the view distance), broadcastable to (n, n); ``pixel``
        is one pixel's angle in radians at the centre; ``shadow_grid`` is the floor's lit fraction.
        ``cover`` (n, n), optional: the view distance of what the caller will draw over the room
        (the items); floor pixels behind it are not painted (their colour is left undefined, their
        depth is still the floor's). Why: the floor's texture and shadows are the room's costliest
        part, and an arena floored with walls (Testbed 06-09) hides all of it. From inside the fence,
        only the band of rows where the room can show is drawn: rows wholly covered come back black
        at infinite depth (an arena shut in by walls, Testbed 03-27-02, shows the room in a band).
        ``row0``: the first row's index in the whole frame (the floor's dither pattern follows it).
        """
        ex, ey, ez = eye
        shape = np.broadcast_shapes(np.shape(dx), np.shape(dy), np.shape(dz))
        label = np.zeros(shape, dtype=np.uint8)
        depth = np.full(shape, np.inf, dtype=np.float32)
        t0, side0, s0 = _exit(ex, ez, dx, dz, 0.0)
        with np.errstate(divide="ignore"):
            t_floor = np.where(dy < 0, -ey / dy, np.inf).astype(np.float32)
        if cover is not None and 0.0 <= ex <= SIZE and 0.0 <= ez <= SIZE:
            # From inside the fence nothing of the room is nearer than the floor or the fence's front line.
            hidden = cover < np.minimum(np.asarray(t0).astype(np.float32), t_floor)
            if bool(hidden.all()):
                return np.zeros(shape, dtype=np.uint32), np.full(shape, np.inf, dtype=np.float32)
            rows = np.flatnonzero(~hidden.all(axis=1))
            r0, r1 = int(rows[0]), int(rows[-1]) + 1
            if r1 - r0 < shape[0]:  # the same per-pixel work over the rows that can show the room
                band = slice(r0, r1)

                def part(a: np.ndarray) -> np.ndarray:  # an array's rows in the band (or its single row)
                    return a[band] if np.shape(a)[0] > 1 else a

                frame = np.zeros(shape, dtype=np.uint32)
                depth = np.full(shape, np.inf, dtype=np.float32)
                frame[band], depth[band] = self.draw(
                    eye, part(dx), part(dy), part(dz), pixel, shadow_grid, cover[band], row0 + r0
                )
                return frame, depth
        t1, side1, _ = _exit(ex, ez, dx, dz, look.FENCE_RAIL_DEPTH)
        t2, side2, s2 = _exit(ex, ez, dx, dz, look.FENCE_PANEL_DEPTH)
        post_front, _, _ = _in_posts(s0)
        post_behind, lo2, hi2 = _in_posts(s2)
        post_side = post_behind & ~post_front  # the ray slips past the boundary and meets a post's flank
        along_dir = np.where(side0 < 2, dz, dx)
        origin = np.where(side0 < 2, ez, ex)
        edge = np.where(s2 > s0, lo2, hi2)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_side = np.where(post_side, (edge - origin) / along_dir, np.inf).astype(np.float32)

        def heights_between(t: np.ndarray, y0: float, y1: float) -> np.ndarray:
            """Rays whose height at view distance t (> 0) is within [y0, y1]: y0 <= ey + dy t <= y1."""
            with np.errstate(divide="ignore", invalid="ignore"):
                low, high = ((y0 - ey) / t).astype(np.float32), ((y1 - ey) / t).astype(np.float32)
            return (dy >= low) & (dy <= high)

        def paint(mask: np.ndarray, kind: int, t: np.ndarray) -> None:
            label[np.broadcast_to(mask, shape)] = kind
            np.copyto(depth, t.astype(np.float32), where=mask)

        paint(heights_between(t2, look.FENCE_POST_Y[0], look.FENCE_PANEL_TOP), PANEL, t2)
        rails = heights_between(t1, *look.FENCE_RAILS[0]) | heights_between(t1, *look.FENCE_RAILS[1])
        rails &= ~post_front
        flank = heights_between(t_side, *look.FENCE_POST_Y) & post_side
        paint(flank & (t_side >= t1), POST, t_side)
        paint(rails, RAIL, t1)
        paint(flank & (t_side < t1), POST, t_side)
        paint(heights_between(t0, *look.FENCE_POST_Y) & post_front, POST, t0)
        floor = (t_floor < depth) & (t_floor <= look.FAR)
        if not (
            0.0 <= ex <= SIZE and 0.0 <= ez <= SIZE and ey <= look.FENCE_PANEL_TOP
        ):  # can see past the fence
            with np.errstate(invalid="ignore"):
                gx, gz = ex + t_floor * dx, ez + t_floor * dz
            floor &= (
                (gx >= shadows.GROUND_MIN)
                & (gx <= shadows.GROUND_MAX)
                & (gz >= shadows.GROUND_MIN)
                & (gz <= shadows.GROUND_MAX)
            )
        np.copyto(depth, t_floor, where=floor)
        label[floor] = FLOOR
        beyond = depth > look.FAR
        depth[beyond] = np.inf
        label[beyond] = SKY
        if cover is not None and bool((cover < depth).all()):  # the items hide the whole room
            return np.zeros(shape, dtype=np.uint32), depth

        # Colours: one palette gather for sky and fence (sky by elevation, fence surfaces per ray of the
        # t arrays, i.e. per column for the level camera), then the textured floor over it.
        norm = np.sqrt(dx * dx + dy * dy + dz * dz)
        index = np.clip(((dy / norm + 1.0) * 511.5).astype(np.int32), 0, 1023)
        index = np.broadcast_to(index, shape).copy()
        fence = self._fence_colours(t2, side2, s2, side1, side0, post_side, dx, dz, pixel)
        rays = np.arange(t2.size, dtype=np.int32).reshape(t2.shape)
        for k, kind in enumerate((PANEL, RAIL, POST)):
            np.copyto(index, rays + np.int32(len(self._sky) + k * t2.size), where=label == kind)
        frame = np.take(np.concatenate([self._sky, fence]), index)
        shown = floor if cover is None else floor & ~(cover < t_floor)  # the camera keeps the items there
        self._paint_floor(frame, shown, ex, ez, t_floor, dx, dy, dz, norm, pixel, shadow_grid, row0)
        return frame, depth

    def _fence_colours(self, t2, side2, s2, side1, side0, post_side, dx, dz, pixel) -> np.ndarray:
        """Packed colours of the panel, rail and post each ray of the t arrays meets, stacked."""
        with np.errstate(divide="ignore", invalid="ignore"):
            footprint = np.where(np.isfinite(t2), t2 * pixel / look.FENCE_PLANK, 1.0)
        s2 = np.where(np.isfinite(s2), s2, 0.0)
        planks = self._planks.sample(s2 / look.FENCE_PLANK, np.zeros_like(s2), footprint)[..., None]
        panel = look.FENCE_ALBEDO * _SIDE_LIGHT[side2] * planks
        rail = look.FENCE_ALBEDO * RAIL_SHADE * _SIDE_LIGHT[side1]
        # Posts: front faces take their side's normal; flanks face back along the side.
        flank_dir = np.broadcast_to(np.where(side0 < 2, dz, dx), side0.shape)
        sign = -np.sign(flank_dir)
        flank_normal = np.zeros(side0.shape + (3,))
        flank_normal[..., 0] = np.where(side0 < 2, 0.0, sign)
        flank_normal[..., 2] = np.where(side0 < 2, sign, 0.0)
        post_light = np.where(post_side[..., None], light_factor(flank_normal), _SIDE_LIGHT[side0])
        post = look.FENCE_ALBEDO * post_light
        return textures.pack(np.concatenate([c.reshape(-1, 3) for c in (panel, rail, post)]))

    def _paint_floor(self, frame, floor, ex, ez, t_floor, dx, dy, dz, norm, pixel, shadow_grid, row0) -> None:
        """Textured, shadowed floor over the pixels in ``floor``, computed densely over its rows."""
        rows = np.flatnonzero(floor.any(axis=1))
        if rows.size == 0:
            return
        band = slice(int(rows[0]), int(rows[-1]) + 1)

        def part(a: np.ndarray) -> np.ndarray:  # an array's rows in the band (or its single row)
            a = np.asarray(a, dtype=np.float32)
            return a[band] if a.shape[0] > 1 else a

        t, bx, by, bz, bn = part(t_floor), part(dx), part(dy), part(dz), part(norm)
        t = np.where(np.isfinite(t), t, np.float32(0.0))
        x = ex + t * bx
        z = ez + t * bz
        # Footprint in texture tiles: the pixel's size at that distance, stretched by the grazing angle.
        grazing = np.maximum(-by / bn, np.float32(0.02))
        footprint = t * bn * np.float32(pixel / look.FLOOR_TILE) / np.sqrt(grazing)
        u, v = x * np.float32(1 / look.FLOOR_TILE), z * np.float32(1 / look.FLOOR_TILE)
        # Soft shadow edges by ordered dithering: a pixel is lit when the lit fraction beats its threshold.
        n = frame.shape[1]
        dither = np.tile(_BAYER, ((row0 + frame.shape[0]) // 4 + 1, n // 4 + 1))[row0:][band][:, :n]
        lit = shadows.lookup(shadow_grid, x, z) > dither
        texel = self._floor_lit.where(u, v, footprint)
        colour = np.where(
            lit, np.take(self._floor_lit.texels, texel), np.take(self._floor_dark.texels, texel)
        )
        np.copyto(frame[band], colour, where=floor[band])
