"""A 2.5-D occupancy map of the arena and shortest paths on it, for the reference planner.

Why a height map rather than a flat occupancy grid: goals on platforms are reached by driving up a
ramp, and a flat grid cannot say that a platform is reachable from the ramp's top but not from the
floor beside it. Each cell keeps the height of the surface the agent would stand on there (floor,
block top or ramp slope; parts starting higher than a step above it are overhead, like a
ceiling); the agent may step up at most ``step_up`` between neighbouring cells (or follow a
ramp's slope) and drop down any height, also rolling off a ledge over cells it clears. A cell is
*free* when no part that towers above the agent standing there (its top above the cell's height
plus ``step_up``, its bottom below the agent's head) comes within ``agent_radius``; DeathZones and
red goals make cells unsafe (``hazards`` also measure, for any point, how far it is from dying),
while HotZones, edges of drops and the surroundings of hazards make steps expensive.

Paths come from Dijkstra on the 8-connected grid (no corner cutting), then are shortened to a few
straight legs by line-of-sight checks on the same map. Pure Python and numpy: a map and a search
take about 20 ms, so the reference agent plans every turn afresh.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from agentkit.envs.animalai_common.items import ITEM_TYPES
from agentkit.envs.animalai_common.planning_shapes import Part, item_parts

AGENT_RADIUS = 0.5
AGENT_HEIGHT = 1.0
# Goals by the sign of their reward, from the item catalogue (so the changing goals of v3.1.3 and v4's
# names count too; a decoy gives nothing and is left alone).
POSITIVE_GOALS = tuple(name for name, t in ITEM_TYPES.items() if t.is_goal and t.reward_sign > 0)
BAD_GOALS = tuple(name for name, t in ITEM_TYPES.items() if t.is_goal and t.reward_sign < 0)
BAD_GOAL_SLACK = 0.3  # extra distance kept from red goals when predicting the agent's track


@dataclass(frozen=True)
class MapSettings:
    """How cautious a map is; the planner relaxes these step by step when no path exists."""

    resolution: float = 0.5
    agent_radius: float = AGENT_RADIUS
    step_up: float = 0.2  # highest ledge the agent rolls onto without a ramp (higher ones stop it)
    zone_margin: float = 0.75  # keep the agent's centre this far from a DeathZone's footprint (dies at 0.5)
    bad_margin: float = 0.4  # extra clearance around red goals beyond touching distance
    hot_cost: float = 8.0  # cost factor of a step inside a HotZone
    push_movables: bool = False  # treat pushable boxes as passable (at ``push_cost``)
    push_cost: float = 4.0
    hazard_room: float = 1.0  # within this much of touching a DeathZone or red goal, a step costs more
    hazard_cost: float = 3.0
    edge_cost: float = 4.0  # cost factor of a step within half a unit of a drop (half that within one)


@dataclass(frozen=True)
class Hazard:
    """Something lethal: a DeathZone's footprint, or a red goal's (possibly swept) centre line.

    ``lethal`` is the distance from it at which the agent's centre dies (touching).
    """

    lethal: float
    part: Part | None = None
    segment: tuple[float, float, float, float] | None = None

    def clearance(self, xs: np.ndarray, zs: np.ndarray, base: np.ndarray | float = 0.0) -> np.ndarray:
        """Horizontal distance to spare before the agent (its base at height ``base``) touches it.

        A zone is a box: an agent standing higher than its top (on a bridge) is safe once its
        sphere clears the box, which narrows the lethal radius by the vertical gap.
        """
        xs, zs = np.asarray(xs, dtype=float), np.asarray(zs, dtype=float)
        if self.part is None:
            assert self.segment is not None
            return _segment_distance(xs, zs, *self.segment) - self.lethal
        d = self.part.distance(xs, zs)
        centre = np.asarray(base, dtype=float) + AGENT_RADIUS
        gap = np.maximum(np.maximum(centre - self.part.top, self.part.bottom - centre), 0.0)
        reach = np.sqrt(np.maximum(self.lethal**2 - gap**2, 0.0))
        return np.where(gap >= self.lethal, np.inf, d - reach)


@lru_cache(maxsize=8)
def _centres(size: float, resolution: float) -> tuple[np.ndarray, np.ndarray]:
    n = int(round(size / resolution))
    axis = (np.arange(n) + 0.5) * resolution
    xs, zs = np.meshgrid(axis, axis, indexing="ij")  # [i, j] -> x = xs[i, j], z = zs[i, j]
    xs.setflags(write=False)
    zs.setflags(write=False)
    return xs, zs


@dataclass
class ArenaMap:
    """The arena on a square grid: ``height``, ``free`` and ``cost`` (and their parts) indexed [i_x, j_z]."""

    size: float
    settings: MapSettings
    height: np.ndarray
    free: np.ndarray
    cost: np.ndarray
    xs: np.ndarray = field(repr=False)
    zs: np.ndarray = field(repr=False)
    near_top: np.ndarray = field(repr=False)  # highest top of the parts within reach of each cell
    safe: np.ndarray = field(repr=False)  # away from the fence, DeathZones and red goals
    slope: np.ndarray = field(repr=False)  # rise per unit of a ramp under the cell (0 off ramps)
    hazards: list[Hazard] = field(default_factory=list, repr=False)  # what kills (zones, red goals)
    solid: list[Part] = field(default_factory=list, repr=False)  # parts that hold the agent up or stop it

    def blocks_way(
        self, start: tuple[float, float], end: tuple[float, float], level: float, thin_only: bool = False
    ) -> bool:
        """Whether the straight way from ``start`` runs into a part that stops an agent standing at ``level``.

        "Into" is closer to the part than the agent already is (or than its radius): an agent
        pressed against a thin post must not take a cell just behind the post as its next step.
        ``thin_only``: only parts thinner than a cell, which the grid itself cannot resolve.
        """
        t = np.linspace(0.0, 1.0, 9)
        xs = start[0] + (end[0] - start[0]) * t
        zs = start[1] + (end[1] - start[1]) * t
        step = self.settings.step_up
        for part in self.solid:
            if part.top <= level + step or part.bottom >= level + AGENT_HEIGHT:
                continue
            if thin_only and min(part.hx, part.hz) * 2 >= self.settings.resolution:
                continue
            d = part.distance(xs, zs)
            if float(d[1:].min()) < min(float(d[0]), self.settings.agent_radius) - 0.05:
                return True
        return False

    def clearance(self, xs: np.ndarray, zs: np.ndarray) -> np.ndarray:
        """How far each agent position (x, z) is from being killed (0 or less: dead), at map height."""
        xs, zs = np.asarray(xs, dtype=float), np.asarray(zs, dtype=float)
        res = self.settings.resolution
        i = np.clip((xs / res).astype(int), 0, self.n - 1)
        j = np.clip((zs / res).astype(int), 0, self.n - 1)
        base = self.height[i, j]
        out = np.full(np.shape(xs), np.inf)
        for hazard in self.hazards:
            out = np.minimum(out, hazard.clearance(xs, zs, base))
        return out

    def max_rise(self, slope_a: float, slope_b: float) -> float:
        """How much higher a neighbouring cell may be: a ledge of ``step_up``, or a ramp's own slope."""
        ramp = max(slope_a, slope_b)
        step = self.settings.step_up
        return step if ramp <= 0 else max(step, 1.5 * self.settings.resolution * ramp + 0.01)

    @property
    def n(self) -> int:
        return self.height.shape[0]

    def cell_of(self, x: float, z: float) -> tuple[int, int]:
        res = self.settings.resolution
        i = min(max(int(x / res), 0), self.n - 1)
        j = min(max(int(z / res), 0), self.n - 1)
        return i, j

    def centre(self, i: int, j: int) -> tuple[float, float]:
        res = self.settings.resolution
        return (i + 0.5) * res, (j + 0.5) * res


def _solid_parts(items: list[dict[str, Any]], settings: MapSettings) -> tuple[list[Part], list[Part]]:
    """(parts that hold the agent up or stop it, pushable parts left out of the first list)."""
    solid: list[Part] = []
    pushed: list[Part] = []
    for item in items:
        kind = item.get("kind")
        if kind not in ("obstacle", "ramp", "movable") or not item.get("solid", True):
            continue
        parts = item_parts(item)
        if kind == "movable" and settings.push_movables:
            pushed.extend(parts)
        else:
            solid.extend(parts)
    return solid, pushed


def build_map(
    privileged: dict[str, Any],
    settings: MapSettings = MapSettings(),
    sweeps: dict[int, tuple[float, float]] | None = None,
    avoid: frozenset[int] = frozenset(),
) -> ArenaMap:
    """The height map and free / cost layers for the state in ``privileged`` (the backend's contract).

    ``sweeps`` maps a goal id to the (dx, dz) it may travel soon: a moving red goal then rules out
    the whole strip it sweeps, not only where it is now. ``avoid`` names good goals to keep away
    from like red ones (a green goal ends the episode, which is wrong while gold ones are left).
    """
    size = float(privileged["arena"]["size"])
    xs, zs = _centres(size, settings.resolution)
    items = [it for it in privileged["items"] if it.get("active", True)]
    solid, pushed = _solid_parts(items, settings)
    r = settings.agent_radius

    # Surface height: the top (a ramp's slope) of the stack of parts under the cell, from the floor
    # up; a part starting higher than a step above the surface so far is overhead (a ceiling, a
    # tunnel's roof), not ground.
    height = np.zeros(xs.shape)
    slope = np.zeros(xs.shape)  # rise per unit of the ramp under each cell (0 off ramps)
    solid.sort(key=lambda part: part.bottom)
    dists = []
    for part in solid:
        d = part.distance(xs, zs)
        dists.append(d)
        inside = (d <= 1e-9) & (part.bottom <= height + settings.step_up)
        if inside.any():
            height = np.where(inside, np.maximum(height, part.surface(xs, zs)), height)
            if part.rise and part.hz > 0:
                slope = np.where(inside, np.maximum(slope, (part.top - part.bottom) / (2 * part.hz)), slope)

    # A part blocks a cell when it is near, reaches above the step the agent can climb there,
    # and starts below the agent's head (so a tunnel's roof or a high shelf does not block).
    # ``near_top`` keeps the highest such top, so a cell can also be judged for an agent passing
    # above it (rolling off a ledge).
    near_top = np.full(xs.shape, -np.inf)
    for part, d in zip(solid, dists):
        near = (d < r) & (part.bottom < height + AGENT_HEIGHT)
        if near.any():
            near_top = np.where(near, np.maximum(near_top, part.surface(xs, zs)), near_top)
    free = near_top <= height + settings.step_up
    # The fence.
    safe = (xs >= r) & (xs <= size - r) & (zs >= r) & (zs <= size - r)
    hazards: list[Hazard] = []

    cost = np.ones(xs.shape)
    for item in items:
        name = item["name"]
        if name == "DeathZone":
            for part in item_parts(item):
                hazard = Hazard(part=part, lethal=AGENT_RADIUS)
                safe &= hazard.clearance(xs, zs, height) >= settings.zone_margin - AGENT_RADIUS
                hazards.append(hazard)
        elif name == "HotZone":
            for part in item_parts(item):
                cost = np.where(part.distance(xs, zs) <= 0.0, np.maximum(cost, settings.hot_cost), cost)
        elif name in BAD_GOALS or item["id"] in avoid:
            gx, _, gz = (float(v) for v in item["position"])
            reach = float(item["size"][0]) / 2 + r + settings.bad_margin
            dx, dz = (sweeps or {}).get(item["id"], (0.0, 0.0))
            safe &= _segment_distance(xs, zs, gx, gz, gx + dx, gz + dz) >= reach
            # Counted as lethal a little early: driving through a good goal next to it deflects the agent.
            hazards.append(
                Hazard(
                    segment=(gx, gz, gx + dx, gz + dz),
                    lethal=AGENT_RADIUS + float(item["size"][0]) / 2 + BAD_GOAL_SLACK,
                )
            )
    for part in pushed:
        cost = np.where(part.distance(xs, zs) < r, np.maximum(cost, settings.push_cost), cost)
    # Keep a little more room from lethal things where there is room to keep.
    if hazards:
        clear = np.full(xs.shape, np.inf)
        for hazard in hazards:
            clear = np.minimum(clear, hazard.clearance(xs, zs, height))
        cost = np.where(clear < settings.hazard_room, np.maximum(cost, settings.hazard_cost), cost)
    # Ramps are driven up their middle: their sides are drops (or steps) all the way up.
    for part in solid:
        if part.rise:
            lx, lz = part.local(xs, zs)
            side = part.hx - np.abs(lx)
            on = (np.abs(lz) <= part.hz) & (side >= 0)
            cost = np.where(on & (side < 1.0), np.maximum(cost, settings.edge_cost / 2), cost)
            cost = np.where(on & (side < 0.5), np.maximum(cost, settings.edge_cost), cost)
    # Near the edge of a platform or ramp the agent may roll off: keep routes in the middle.
    for radius, factor in ((1.0, settings.edge_cost / 2), (0.5, settings.edge_cost)):
        drop = _near_drop(height, slope, int(round(radius / settings.resolution)), settings)
        cost = np.where(drop & free, np.maximum(cost, factor), cost)
    return ArenaMap(
        size=size,
        settings=settings,
        height=height,
        free=free & safe,
        cost=cost,
        xs=xs,
        zs=zs,
        near_top=near_top,
        safe=safe,
        slope=slope,
        hazards=hazards,
        solid=solid,
    )


def _near_drop(height: np.ndarray, slope: np.ndarray, cells: int, settings: MapSettings) -> np.ndarray:
    """Cells with a fall within ``cells`` cells: a neighbour lower than a step (or a ramp's slope) allows."""
    out = np.zeros(height.shape, dtype=bool)
    if cells <= 0:
        return out
    n, m = height.shape
    hp = np.pad(height, cells, mode="edge")
    sp = np.pad(slope, cells, mode="edge")
    res = settings.resolution
    for di in range(-cells, cells + 1):
        for dj in range(-cells, cells + 1):
            if (di or dj) and di * di + dj * dj <= cells * cells:
                other = hp[cells + di : cells + di + n, cells + dj : cells + dj + m]
                other_slope = sp[cells + di : cells + di + n, cells + dj : cells + dj + m]
                allowed = settings.step_up + np.maximum(slope, other_slope) * (math.hypot(di, dj) + 1) * res
                out |= height - other > allowed
    return out


def _segment_distance(
    xs: np.ndarray, zs: np.ndarray, ax: float, az: float, bx: float, bz: float
) -> np.ndarray:
    """Distance from each point to the segment a-b (a point when a == b)."""
    dx, dz = bx - ax, bz - az
    length_sq = dx * dx + dz * dz
    if length_sq < 1e-12:
        return np.hypot(xs - ax, zs - az)
    t = np.clip(((xs - ax) * dx + (zs - az) * dz) / length_sq, 0.0, 1.0)
    return np.hypot(xs - (ax + t * dx), zs - (az + t * dz))


def goal_targets(
    amap: ArenaMap, goal: dict[str, Any], at: tuple[float, float] | None = None, slack: float = 0.15
) -> np.ndarray:
    """Free cells from which the agent touches ``goal`` (a sphere), honouring heights.

    ``at`` overrides the goal's (x, z), e.g. with a predicted position of a moving goal.
    """
    gx, gy, gz = (float(v) for v in goal["position"])
    if at is not None:
        gx, gz = at
    radius = float(goal["size"][0]) / 2
    dy = (gy + radius) - (amap.height + AGENT_RADIUS)
    reach_sq = (AGENT_RADIUS + radius) ** 2 - dy * dy
    horizontal = np.hypot(amap.xs - gx, amap.zs - gz)
    reach = np.sqrt(np.maximum(reach_sq, 0.0)) - slack
    return amap.free & (reach_sq > 0) & (horizontal <= np.maximum(reach, amap.settings.resolution * 0.75))


_NEIGHBOURS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
_SQRT2 = math.sqrt(2.0)
_MAX_DROP_CELLS = 5  # how far past a ledge's edge a drop may land


@dataclass
class SearchResult:
    """Dijkstra from the agent: cost to every reached cell, and parents to read paths back."""

    amap: ArenaMap
    dist: list[float]
    parent: list[int]
    start_xy: tuple[float, float]

    def cost_to(self, targets: np.ndarray) -> tuple[float, int]:
        """(cost, flat index) of the cheapest reached target cell; (inf, -1) if none is reached."""
        flat = np.flatnonzero(targets.ravel())
        best, best_k = math.inf, -1
        for k in flat.tolist():
            d = self.dist[k]
            if d < best:
                best, best_k = d, k
        return best, best_k

    def path_to(self, k: int) -> list[tuple[float, float]]:
        """Cell centres from the first cell after the start to cell ``k``."""
        n = self.amap.n
        out: list[tuple[float, float]] = []
        while k >= 0:
            out.append(self.amap.centre(k // n, k % n))
            k = self.parent[k]
        out.reverse()
        return out


def search(
    amap: ArenaMap,
    start: tuple[float, float],
    start_height: float | None = None,
    stop_at: np.ndarray | None = None,
) -> SearchResult:
    """Dijkstra over free cells from the agent's (x, z); stops early once a ``stop_at`` cell is settled.

    The agent may stand where the map says it may not (pressed against a wall, on a zone's margin):
    it is then seeded onto the free cells within one unit of it, at their straight-line distance.
    """
    n = amap.n
    res = amap.settings.resolution
    step_up = amap.settings.step_up
    free = amap.free.ravel().tolist()
    height = amap.height.ravel().tolist()
    cost = amap.cost.ravel().tolist()
    near_top = amap.near_top.ravel().tolist()
    safe = amap.safe.ravel().tolist()
    slope = amap.slope.ravel().tolist()
    max_rise = amap.max_rise
    stop = set(np.flatnonzero(stop_at.ravel()).tolist()) if stop_at is not None else None
    dist = [math.inf] * (n * n)
    parent = [-1] * (n * n)
    heap: list[tuple[float, int]] = []

    si, sj = amap.cell_of(*start)
    h0 = height[si * n + sj] if start_height is None else start_height
    # Seed cells continue from the agent's own level, not from whatever the map holds under it.
    # The agent may not stand on a free cell itself (pressed against a wall, close to a zone): then
    # it starts from the free cells within a unit whose straight way does not lead closer to danger.
    reach = int(math.ceil(1.0 / res))
    start_clear = float(amap.clearance(np.array([start[0]]), np.array([start[1]]))[0])
    seeds: list[tuple[float, int]] = []
    for di in range(-reach, reach + 1):
        for dj in range(-reach, reach + 1):
            i, j = si + di, sj + dj
            if not (0 <= i < n and 0 <= j < n):
                continue
            k = i * n + j
            cx, cz = amap.centre(i, j)
            d = math.hypot(cx - start[0], cz - start[1])
            own = (di, dj) == (0, 0) and free[k] and abs(height[k] - h0) <= step_up
            if not own and (not free[k] or d > 1.0 or height[k] - h0 > step_up):
                continue
            if not own and amap.blocks_way(start, (cx, cz), h0):
                continue
            if amap.hazards and not own:
                t = np.linspace(0.0, 1.0, 6)
                along = amap.clearance(start[0] + (cx - start[0]) * t, start[1] + (cz - start[1]) * t)
                if float(along.min()) < min(start_clear, amap.settings.zone_margin - AGENT_RADIUS) - 0.01:
                    continue
            seeds.append((d * cost[k], k))
    if not seeds:
        seeds.append((0.0, si * n + sj))
    for d, k in seeds:
        if d < dist[k]:
            dist[k] = d
            heapq.heappush(heap, (d, k))

    while heap:
        d, k = heapq.heappop(heap)
        if d > dist[k]:
            continue
        if stop is not None and k in stop:
            break
        i, j = divmod(k, n)
        hk, ck = height[k], cost[k]
        for di, dj in _NEIGHBOURS:
            a, b = i + di, j + dj
            if a < 0 or b < 0 or a >= n or b >= n:
                continue
            m = a * n + b
            if not free[m]:
                continue
            rise = height[m] - hk
            if rise > step_up and (rise > max_rise(slope[k], slope[m])):
                continue
            if di and dj and not (free[a * n + j] and free[i * n + b]):
                continue
            nd = d + (_SQRT2 if di and dj else 1.0) * res * 0.5 * (ck + cost[m])
            if nd < dist[m]:
                dist[m] = nd
                parent[m] = k
                heapq.heappush(heap, (nd, m))
        if hk > step_up:
            # Rolling off a ledge: over cells the agent clears at this height, down to a free cell.
            for di, dj in _NEIGHBOURS:
                for reach_d in range(1, _MAX_DROP_CELLS + 1):
                    a, b = i + di * reach_d, j + dj * reach_d
                    if a < 0 or b < 0 or a >= n or b >= n:
                        break
                    m = a * n + b
                    if free[m] and height[m] < hk - step_up:
                        if reach_d > 1:
                            nd = d + (_SQRT2 if di and dj else 1.0) * res * reach_d * ck
                            if nd < dist[m]:
                                dist[m] = nd
                                parent[m] = k
                                heapq.heappush(heap, (nd, m))
                        break
                    if free[m] or not safe[m] or near_top[m] > hk + step_up or height[m] > hk + step_up:
                        break
    return SearchResult(amap, dist, parent, start)


def segment_clear(
    amap: ArenaMap, a: tuple[float, float], b: tuple[float, float], max_cost: float, start_ok: float = 0.0
) -> bool:
    """Whether the straight leg a -> b stays on free cells no costlier than ``max_cost``.

    Points within ``start_ok`` of ``a`` are exempt (the agent's own, possibly unfree, spot).
    Heights along the leg may rise by at most ``step_up`` per sample (drops are fine).
    """
    res = amap.settings.resolution
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    samples = max(int(length / (res * 0.25)), 1)
    t = np.linspace(0.0, 1.0, samples + 1)
    i = np.clip(((a[0] + (b[0] - a[0]) * t) / res).astype(int), 0, amap.n - 1)
    j = np.clip(((a[1] + (b[1] - a[1]) * t) / res).astype(int), 0, amap.n - 1)
    checked = t * length > start_ok
    if np.any(amap.cost[i, j][checked] > max_cost + 1e-9):
        return False
    h = amap.height[i, j]
    free = amap.free[i, j]
    if not np.all(free[checked]):
        # Unfree samples may still be passed over at the height of the last free one (a drop).
        last = np.maximum.accumulate(np.where(free, np.arange(len(free)), 0))
        level = h[last]
        step = amap.settings.step_up
        above = amap.safe[i, j] & (amap.near_top[i, j] <= level + step) & (h <= level + step)
        if not np.all((free | above)[checked]):
            return False
    limit = np.maximum(
        amap.settings.step_up, 1.5 * res * np.maximum(amap.slope[i, j][1:], amap.slope[i, j][:-1]) + 0.01
    )
    return bool(np.all(np.diff(h) <= limit))


def shorten(
    amap: ArenaMap, start: tuple[float, float], path: list[tuple[float, float]], start_ok: float = 1.0
) -> list[tuple[float, float]]:
    """Waypoints: from each point, go straight to the farthest later path point still in sight.

    The scan runs forward and stops at the first leg that is not clear, which keeps it linear in
    the path length and never skips round a corner the path had to take.
    """
    costs = [float(amap.cost[amap.cell_of(*p)]) for p in path]
    level = float(amap.height[amap.cell_of(*path[0])]) if path else 0.0
    out: list[tuple[float, float]] = []
    here, at = start, -1
    while at < len(path) - 1:
        nxt = at + 1
        worst = costs[nxt]
        for k in range(at + 2, len(path)):
            worst = max(worst, costs[k])
            if not segment_clear(amap, here, path[k], worst, start_ok if at < 0 else 0.0):
                break
            if at < 0 and amap.blocks_way(start, path[k], level, thin_only=True):
                break  # the exempt start may not cut the corner of a post the agent leans on
            nxt = k
        out.append(path[nxt])
        here, at = path[nxt], nxt
    return out
