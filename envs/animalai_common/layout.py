"""Turn an arena's configuration and an episode seed into the items that actually get spawned.

Why here and not in the physics: which objects exist, where and how big, is decided by Animal-AI's
spawning rules, not by physics, and it must be the same for the same (file, seed) on every machine.
This module is plain Python (``random.Random(seed)``), so it is deterministic and testable alone.

The rules, as v3.1.3's ``ArenaBuilders.cs`` and ``Prefab.cs`` apply them:

* Item i of an ``!Item`` takes entry i of each list; a missing entry is -1, i.e. random: position,
  rotation, size and colour alike (``InstantiateSpawnable``). A -1 component is sampled: x and z
  uniformly so that the unrotated item fits in the arena, y becomes 0 (the floor); a rotation of -1
  is uniform in [0, 360); a size component uniform in the item's range; a colour component uniform
  in [0, 255] (only for items whose prefab lets the colour change: Wall, Ramp, CylinderTunnel).
* Sizes are clamped to the item's range and built 0.1% smaller (``Prefab.sizeAdjustement`` = 0.999);
  a goal is a sphere of diameter size.x (``BallGoal.SetSize``: any -1 draws one diameter for all axes).
* Each item is lifted by 0.01 (``Prefab.AdjustY``), the small gap that keeps it clear of the floor
  it is tested against; it falls into place when the arena settles.
* When the file names an Agent, the agent is spawned FIRST (``InstantiateSpawnables``), against the
  empty arena, and items spawned later whose box would reach into its sphere collider (radius 0.5,
  whatever its heading) are dropped; otherwise it is spawned
  last, at a random free place. It gets 100 attempts (``TrainingArena.maxSpawnAttemptsForAgent``); if
  its given place is taken by the fence, Unity would fail to build the arena, so it is moved to a free
  place with a warning.
* Items are placed in file order, each with up to 20 attempts (``maxSpawnAttemptsForPrefabs``; a fixed
  item's attempts differ only in what is random); an item whose box overlaps an earlier solid item,
  the agent or the fence is not spawned (``IsSpotFree``). Zones are triggers: other items may overlap
  them and a zone may overlap anything but the fence. A zone's trigger reaches ``items.zone_height``
  above the floor whatever y the file gives. The agent may not start inside a zone.

The free-space test looks only at boxes near the new one (``box_grid.py``), which gives the same answer
as testing every box placed before, so placing n items costs about n tests, not n^2.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, replace

from agentkit.envs.animalai_common.box_grid import BoxGrid
from agentkit.envs.animalai_common.config import RANDOM, ArenaSpec, ItemParams, ItemSpec, Vector3
from agentkit.envs.animalai_common.geometry import (
    Box,
    bounding_box,
    boxes_overlap,
    footprint_size,
    sphere_box_distance,
    world_boxes,
)
from agentkit.envs.animalai_common.item_sizes import built_size
from agentkit.envs.animalai_common.items import AGENT_DIAMETER, ITEM_TYPES, RGB, ItemType, Vec, zone_height

logger = logging.getLogger(__name__)

ARENA_SIZE = 40.0
ITEM_ATTEMPTS = 20  # TrainingArena.cs: maxSpawnAttemptsForPrefabs
AGENT_ATTEMPTS = 100  # TrainingArena.cs: maxSpawnAttemptsForAgent
FALLBACK_AGENT_ATTEMPTS = 2000  # ours: when the file's own place for the agent is not free
SIZE_ADJUSTMENT = 0.999  # Prefab.cs: sizeAdjustement (every prefab keeps it)
SPAWN_GAP = 0.01  # Prefab.AdjustY / TrainingAgent.GetPosition: + 0.01 above the given y
_AGENT_OVERLAP_TOLERANCE = 1e-6  # Physics.OverlapBox is exact; this only absorbs rounding
FENCE_THICKNESS = 1.0
FENCE_COLLIDER_HEIGHT = 50.0

_T, _H, _MID, _FAR = (
    FENCE_THICKNESS / 2,
    FENCE_COLLIDER_HEIGHT,
    ARENA_SIZE / 2,
    ARENA_SIZE + FENCE_THICKNESS / 2,
)
_FENCE = (  # the four walls around [0, 40] x [0, 40], as boxes for the free-space test
    Box(-_T, _MID, -1.0, _H, _T, ARENA_SIZE, 0.0),
    Box(_FAR, _MID, -1.0, _H, _T, ARENA_SIZE, 0.0),
    Box(_MID, -_T, -1.0, _H, ARENA_SIZE, _T, 0.0),
    Box(_MID, _FAR, -1.0, _H, ARENA_SIZE, _T, 0.0),
)


class ArenaLayoutError(ValueError):
    """The arena cannot be built (e.g. no free place for the agent)."""


@dataclass(frozen=True)
class PlacedItem:
    """An item that was spawned: its catalogue type and resolved geometry (Animal-AI coordinates)."""

    id: int
    type: ItemType
    position: Vec  # centre of the base
    size: Vec  # clamped
    rotation: float  # degrees in [0, 360), clockwise seen from above
    color: RGB
    params: ItemParams = (
        ItemParams()
    )  # the file's optional values for this object (item behaviours read them)

    @property
    def name(self) -> str:
        return self.type.name

    def boxes(self) -> list[Box]:
        return world_boxes(self.type.shape, self.position, self.size, self.rotation)


@dataclass(frozen=True)
class AgentStart:
    position: Vec  # centre of the base (the sphere's lowest point)
    rotation: float  # heading in degrees, 0 = facing +z, clockwise seen from above


@dataclass(frozen=True)
class Layout:
    items: tuple[PlacedItem, ...]
    agent: AgentStart
    skipped: int  # items not spawned because there was no free place
    seed: int = 0  # the draws items make during the episode (the arena's random_seed when not 0, as Animal-AI reseeds)


def build_layout(arena: ArenaSpec, seed: int, version: str = "3.1.3") -> Layout:
    """The spawned items and the agent's start for ``arena`` with episode ``seed``; ``version`` (the
    Animal-AI version) decides the built size of the items whose size follows their own rules (``item_sizes.py``)."""
    rng = random.Random(seed)
    placed: list[PlacedItem] = []
    solid = BoxGrid(_FENCE)
    zones: list[Box] = []
    agents = [spec for spec in arena.items if spec.name == "Agent"]
    if len(agents) > 1:
        logger.warning("more than one Agent item; using the first")
    agent: AgentStart | None = None
    agent_centre: Vec | None = None
    if agents:  # a given agent comes first, and later items may not overlap its sphere
        agent = _place_agent(agents[0], rng, solid)
        ax, ay, az = agent.position
        agent_centre = (ax, ay + AGENT_DIAMETER / 2, az)
    skipped = 0
    for spec in arena.items:
        if spec.name == "Agent":
            continue
        item_type = ITEM_TYPES[spec.name]
        for index in range(spec.count):
            item = _place(item_type, spec, index, len(placed), rng, solid, agent_centre, version)
            if item is None:
                skipped += 1
                logger.debug("not spawned (no free place): %s #%d", spec.name, index)
                continue
            placed.append(item)
            (zones if item_type.kind == "zone" else solid).extend(item.boxes())
    if agent is None:
        # The agent may not start on a zone, however thin: test the zones' footprints up to its height.
        zone_columns = [replace(box, y1=max(box.y1, box.y0 + AGENT_DIAMETER)) for box in zones]
        agent = _place_agent(None, rng, BoxGrid([*solid.boxes, *zone_columns]))
    return Layout(items=tuple(placed), agent=agent, skipped=skipped, seed=arena.random_seed or seed)


def _entry(values: tuple, index: int):
    return values[index] if index < len(values) else None


def _place(
    item_type: ItemType,
    spec: ItemSpec,
    index: int,
    item_id: int,
    rng: random.Random,
    solid: BoxGrid,
    agent_centre: Vec | None = None,
    version: str = "3.1.3",
) -> PlacedItem | None:
    position = _entry(spec.positions, index)
    rotation = _entry(spec.rotations, index)
    size = _entry(spec.sizes, index)
    color = _entry(spec.colors, index)
    randomized = (
        position is None
        or RANDOM in position.as_tuple()
        or rotation is None
        or rotation < 0
        or size is None
        or any(v < 0 for v in size.as_tuple())
    )
    resolved_color = _color(item_type, color, rng)
    params = spec.params(index)
    if item_type.kind == "zone":
        zone = _place_zone(item_type, position, rotation, size, item_id, rng, resolved_color)
        return None if zone is None else replace(zone, params=params)
    obstacles = solid
    for _ in range(ITEM_ATTEMPTS if randomized else 1):
        s = built_size(item_type, size, _size(item_type, size, rng), params, version)
        r = _rotation(rotation, rng, item_type.rotation_range)
        extent = footprint_size(item_type.shape, s)
        p = _position(position, extent, rng)
        box = bounding_box(p, extent, r)
        if not obstacles.overlaps(box) and not _touches_agent(box, agent_centre):
            return PlacedItem(item_id, item_type, p, s, r, resolved_color, params)
    return None


def _place_zone(
    item_type: ItemType,
    position: Vector3 | None,
    rotation: float | None,
    size: Vector3 | None,
    item_id: int,
    rng: random.Random,
    color: RGB,
) -> PlacedItem | None:
    """A zone lies on the floor whatever y the file gives (``items.zone_height``); only the fence stops it."""
    randomized = (
        position is None
        or RANDOM in position.as_tuple()
        or rotation is None
        or rotation < 0
        or (size is None or any(v < 0 for v in size.as_tuple()))
    )
    for _ in range(ITEM_ATTEMPTS if randomized else 1):
        sx, sy, sz = _size(item_type, size, rng)
        r = _rotation(rotation, rng, item_type.rotation_range)
        x, _, z = _position(position, (sx, sy, sz), rng)
        placed = PlacedItem(
            item_id, item_type, (x, 0.0, z), (sx, zone_height(item_type.name, sy), sz), r, color
        )
        box = bounding_box(placed.position, placed.size, r)
        if not any(boxes_overlap(box, fence) for fence in _FENCE):
            return placed
    return None


def _touches_agent(box: Box, agent_centre: Vec | None) -> bool:
    """Whether an item's box reaches into a given agent: ``IsSpotFree`` tests the item's box against the
    agent's collider, a sphere (AAI3Agent.prefab: SphereCollider, radius 0.5), whatever its heading."""
    if agent_centre is None:
        return False
    return sphere_box_distance(agent_centre, box) < AGENT_DIAMETER / 2 - _AGENT_OVERLAP_TOLERANCE


def _size(item_type: ItemType, size: Vector3 | None, rng: random.Random) -> Vec:
    """``Prefab.SetSize``: -1 components drawn from the range, the others clamped and built 0.999 smaller."""
    given = size.as_tuple() if size is not None else (RANDOM, RANDOM, RANDOM)
    if item_type.shape == "sphere":  # BallGoal.SetSize: one diameter for all axes
        if any(v < 0 for v in given):
            d = rng.uniform(item_type.size_min[0], item_type.size_max[0])
        else:
            d = min(max(given[0], item_type.size_min[0]), item_type.size_max[0]) * SIZE_ADJUSTMENT
        return (d, d, d)
    return tuple(  # type: ignore[return-value]
        rng.uniform(lo, hi) if v < 0 else min(max(v, lo), hi) * SIZE_ADJUSTMENT
        for v, lo, hi in zip(given, item_type.size_min, item_type.size_max)
    )


def _rotation(rotation: float | None, rng: random.Random, span: tuple[float, float] = (0.0, 360.0)) -> float:
    """``Prefab.GetRotation``: a -1 (or missing) rotation is drawn in the prefab's ``rotationRange``
    (0..360 for most items; 0..0 for still goals, signs, spawners and the button: they face +z)."""
    if rotation is None or rotation < 0:
        return 0.0 if span[0] == span[1] else rng.uniform(span[0], span[1]) % 360.0
    return rotation % 360.0


def _position(position: Vector3 | None, size: Vec, rng: random.Random) -> Vec:
    """Animal-AI's rule: random x/z keep the (unrotated) item inside; fixed ones are clamped to the arena."""
    x, y, z = position.as_tuple() if position is not None else (RANDOM, RANDOM, RANDOM)

    def axis(value: float, half: float) -> float:
        if value < 0:
            lo, hi = half, ARENA_SIZE - half
            return rng.uniform(min(lo, hi), max(lo, hi))
        return min(max(value, 0.0), ARENA_SIZE)

    return (axis(x, size[0] / 2), max(y, 0.0) + SPAWN_GAP, axis(z, size[2] / 2))


def _color(item_type: ItemType, color, rng: random.Random) -> RGB:
    """``Prefab.SetColor``: only recolourable items take a colour; -1 (or missing) components are random."""
    if not item_type.colorable:
        return item_type.color
    given = color.as_tuple() if color is not None else (-1, -1, -1)
    return tuple(min(int(c), 255) if c >= 0 else int(rng.uniform(0.0, 255.0)) for c in given)  # type: ignore[return-value]


def _place_agent(spec: ItemSpec | None, rng: random.Random, occupied: BoxGrid) -> AgentStart:
    """``ArenaBuilder.SpawnAgent``: the given (or a random) place and heading, 100 attempts."""
    given = _entry(spec.positions, 0) if spec else None
    rotation = _entry(spec.rotations, 0) if spec else None
    radius = AGENT_DIAMETER / 2
    x, y, z = given.as_tuple() if given is not None else (RANDOM, RANDOM, RANDOM)
    height = max(y, 0.0) + SPAWN_GAP  # TrainingAgent.GetPosition: y + half its height + 0.01 (its centre)

    def coordinate(value: float) -> float:
        if value < 0:
            return rng.uniform(radius, ARENA_SIZE - radius)
        return min(max(value, 0.0), ARENA_SIZE)

    for _attempt in range(AGENT_ATTEMPTS):
        heading = _rotation(rotation, rng)
        px, pz = coordinate(x), coordinate(z)
        box = bounding_box((px, height, pz), (AGENT_DIAMETER,) * 3, heading)
        if not occupied.overlaps(box):
            return AgentStart((px, height, pz), heading)
        if x >= 0 and z >= 0:
            break  # a fixed place stays taken
    # Unity cannot build such an arena (SpawnAgent would dereference a failed sample); keep it playable.
    logger.warning("the agent's place (%s, %s) is not free; moving it to a random free place", x, z)
    heading = _rotation(rotation, rng)
    for _ in range(FALLBACK_AGENT_ATTEMPTS):
        px, pz = rng.uniform(radius, ARENA_SIZE - radius), rng.uniform(radius, ARENA_SIZE - radius)
        box = bounding_box((px, height, pz), (AGENT_DIAMETER,) * 3, heading)
        if not occupied.overlaps(box):
            return AgentStart((px, height, pz), heading)
    raise ArenaLayoutError(f"no free place for the agent after {FALLBACK_AGENT_ATTEMPTS} attempts")
