"""Goal spawners: SpawnerTree grows fruit that drops after ripening; SpawnerDispenser and SpawnerContainer
release goals behind a door. Plain state machines over physics updates, as Animal-AI's
``GoalSpawner.cs`` and ``SpawnerStockpiler.cs`` (v3.1.3; v4.1.0 has the same logic) run them.

Why a module of its own: when and where food appears, how big, and when it falls, decide what an
agent can collect; the timing follows the source's coroutines, including what they read when.
``item_runtime.py`` turns the events into pybullet bodies.

Timing. Each spawner starts its spawning coroutine in ``Awake``, at instantiation, before the
arena builder passes the file's values; the first wait therefore uses the prefab's delay, and the
file's ``delays`` (and, for dispensers and containers, ``doorDelays``) have no effect:

* first spawn after the prefab's ``delaySeconds`` (tree 2 s, dispenser and container 0), then one
  every ``timesBetweenSpawns`` (file; default 4 s for a tree, 1.5 s otherwise), while the count
  (``spawnCounts``; default -1 = without end) is not exhausted;
* a new goal hangs still (kinematic) at its spawn point for ``ripenTimes`` (file; default 6 s, also
  for dispensers and containers, which are GoalSpawners too), changing size from the initial to the
  ripened value, then falls under gravity;
* the door of a dispenser or container opens over 1 s after the prefab's ``doorOpenDelay``
  (dispenser 0 s, container 1 s); with ``timesBetweenDoorOpens`` < 0 (the default) it stays open,
  otherwise it stays open ``min(1.5, v)`` s (v at least 1.4), closes over 1 s and reopens after the rest.

Sizes. ``initialValues``/``finalValues`` (defaults 0.2/1.0 for a tree, 2.5/0.5 otherwise) are
clamped to 0.2..3 (dispensers and containers first to 0.2..1). A spawned goal is a GoodGoalMulti
whose size bounds become [initial - 0.25, ripened + 0.25] on a tree (``variableSize``) and
[initial, ripened] otherwise; the tree's size "noise" is the new goal's prefab reward (1) minus the
initial size, so by default its fruit grows from 1.0 to 1.25 (clamped), not from 0.2 to 1.0 as the
docs say. Each size goes through ``BallGoal.SetSize`` (x 0.999) and the goal hangs under the
spawner (scale 0.999), so its collider is 0.999 x 0.999 x the value and its reward 0.999 x it.

Places. A tree drops each fruit at a point of a sphere of radius 2.25 around (-0.1, 4.3, -0.1) above
its base: azimuth uniform, polar angle in [0.2, 0.8] pi, both from ``System.Random(1)``
(``dotnet_random.py``), the same sequence in every episode. A dispenser's goals appear 3.65 above its
base, a container's 0.55; a stockpiling spawner keeps a new goal out of the world while another
goal sits at its spawn point (``freeToMaterialise``: within 0.4 x the ripened size).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from agentkit.envs.animalai_common.config import ItemParams
from agentkit.envs.animalai_common.items import Behaviour, Vec
from agentkit.envs.arena.dotnet_random import DotNetRandom

SIZE_ADJUSTMENT = 0.999  # Prefab.sizeAdjustement; also the spawner's own scale (GoalSpawner.SetSize(one))
GOAL_PREFAB_REWARD = 1.0  # Rewards/GoodGoalMulti.prefab: reward (what GoalSpawner reads as the "size noise")
VARIABLE_SIZE_MARGIN = 0.25  # GoalSpawner.spawnNewGoal: sizeMax + 0.25, sizeMin - 0.25
SPAWN_SIZE_RANGE = (0.2, 3.0)  # GoalSpawner.SetInitialValue / SetFinalValue: Mathf.Clamp(v, 0.2, 3)
STOCKPILE_SIZE_RANGE = (0.2, 1.0)  # SpawnerStockpiler.SetInitialValue / SetFinalValue
DEFAULT_RIPEN_TIME = 6.0  # ArenaBuilders.InstantiateSpawnable: ripenTime default
DEFAULT_SPAWN_COUNT = -1  # ArenaBuilders: spawnCount default (-1 = no end)
DOOR_MOVE_SECONDS = 1.0  # SpawnerStockpiler.manageDoor: the door's scale moves over dt < 1
MIN_DOOR_OPEN = 1.4  # SpawnerStockpiler.prefab: minDoorOpenTime
DOOR_CLOSES_AFTER = 1.5  # SpawnerStockpiler prefabs: timeUntilDoorCloses
MATERIALISE_RADIUS = 0.4  # SpawnerStockpiler.freeToMaterialise: OverlapSphere(spawn point, r * 0.4)
_F32_06, _F32_02 = float(np.float32(0.6)), float(np.float32(0.2))  # the C# literals 0.6f and 0.2f
_EPS = 1e-9


@dataclass(frozen=True)
class SpawnerPrefab:
    """What a spawner's prefab fixes (Spawners/*.prefab, GoalSpawner fields)."""

    delay_seconds: float
    spawn_point: Vec  # defaultSpawnPosition, relative to the spawner's base, not turned with it
    sphere_radius: float  # sphericalSpawnRadius (variableSpawnPosition when > 0)
    variable_size: bool
    default_between: float  # ArenaBuilders: timeBetweenSpawns default (4 for names holding "Tree")
    default_values: tuple[float, float]  # ArenaBuilders: initial/final defaults for this name
    size_range: tuple[float, float]
    stockpiling: bool = False
    door_open_delay: float = 0.0  # SpawnerStockpiler.doorOpenDelay


PREFABS: dict[str, SpawnerPrefab] = {
    # SpawnerTree.prefab: delaySeconds 2, defaultSpawnPosition (-0.1, 4.3, -0.1), radius 2.25, variableSize 1
    "tree": SpawnerPrefab(2.0, (-0.1, 4.3, -0.1), 2.25, True, 4.0, (0.2, 1.0), SPAWN_SIZE_RANGE),
    # SpawnerDispenser.prefab: delaySeconds 0, defaultSpawnPosition (0, 3.65, 0), doorOpenDelay 0
    "dispenser": SpawnerPrefab(
        0.0,
        (0.0, 3.65, 0.0),
        0.0,
        False,
        1.5,
        (2.5, 0.5),
        STOCKPILE_SIZE_RANGE,
        stockpiling=True,
        door_open_delay=0.0,
    ),
    # SpawnerContainer.prefab: delaySeconds 0, defaultSpawnPosition (0, 0.55, 0), doorOpenDelay 1
    "container": SpawnerPrefab(
        0.0,
        (0.0, 0.55, 0.0),
        0.0,
        False,
        1.5,
        (2.5, 0.5),
        STOCKPILE_SIZE_RANGE,
        stockpiling=True,
        door_open_delay=1.0,
    ),
}


@dataclass
class Fruit:
    """One spawned goal (a GoodGoalMulti), in arena coordinates."""

    serial: int  # order of spawning at this spawner, from 0
    position: Vec  # centre, where it hangs (the world moves it once released)
    value: float  # the size before the 0.999 of BallGoal.SetSize: reward = 0.999 x value
    age: float = 0.0  # seconds since spawned
    released: bool = False  # falls freely
    material: bool = True  # stockpilers: False while it waits for a free spawn point

    @property
    def reward(self) -> float:
        return SIZE_ADJUSTMENT * self.value

    @property
    def diameter(self) -> float:
        """The collider's diameter: the goal's own 0.999 and the spawner's scale 0.999."""
        return SIZE_ADJUSTMENT * SIZE_ADJUSTMENT * self.value


@dataclass
class SpawnerEvents:
    """What one update changed."""

    spawned: list[Fruit] = field(default_factory=list)
    materialised: list[Fruit] = field(default_factory=list)
    released: list[Fruit] = field(default_factory=list)


def _clamp(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


class GoalSpawner:
    """A SpawnerTree, SpawnerDispenser or SpawnerContainer at ``base`` (arena coordinates of its base)."""

    def __init__(self, behaviour: Behaviour, params: ItemParams, base: Vec) -> None:
        if behaviour not in PREFABS:
            raise ValueError(f"not a spawner: {behaviour!r}")
        prefab = PREFABS[behaviour]
        self.kind = behaviour
        self.prefab = prefab
        self.base = base
        self.spawn_count = params.spawn_count if params.spawn_count is not None else DEFAULT_SPAWN_COUNT
        self.between = (
            params.time_between_spawns if params.time_between_spawns is not None else prefab.default_between
        )
        self.ripen_time = params.ripen_time if params.ripen_time is not None else DEFAULT_RIPEN_TIME
        initial = params.initial_value if params.initial_value is not None else prefab.default_values[0]
        final = params.final_value if params.final_value is not None else prefab.default_values[1]
        low, high = prefab.size_range
        self.initial_size = _clamp(_clamp(initial, low, high), *SPAWN_SIZE_RANGE)
        self.ripened_size = _clamp(_clamp(final, low, high), *SPAWN_SIZE_RANGE)
        margin = VARIABLE_SIZE_MARGIN if prefab.variable_size else 0.0
        self.size_min = self.initial_size - margin  # newGoal.sizeMin
        self.size_max = self.ripened_size + margin  # newGoal.sizeMax
        # The size noise: the new goal's prefab reward minus the initial size (variableSize only).
        self.noise = GOAL_PREFAB_REWARD - self.initial_size if prefab.variable_size else 0.0
        self.door = (
            DoorSchedule(prefab.door_open_delay, params.time_between_door_opens)
            if prefab.stockpiling
            else None
        )
        self._angle_rng = DotNetRandom(1)  # GoalSpawner.Awake: new System.Random(1) for the angles
        self._size_rng = DotNetRandom(1)  # spawnSizeSeed 1
        self.time = 0.0
        self._next_spawn = prefab.delay_seconds
        self.fruits: list[Fruit] = []
        self._waiting: list[Fruit] = []  # stockpilers: spawned, not yet materialised

    @property
    def spawn_point(self) -> Vec:
        bx, by, bz = self.base
        sx, sy, sz = self.prefab.spawn_point
        return (bx + sx, by + sy, bz + sz)

    def size_at(self, age: float) -> float:
        """The value of a hanging goal ``age`` seconds after it spawned (``ManageSingleSpawnLifeCycle``)."""
        low, high = self.initial_size + self.noise, self.ripened_size + self.noise
        if age >= self.ripen_time or self.ripen_time <= 0:
            value = high
        else:
            p = max(age, 0.0) / self.ripen_time
            value = high * p + low * (1 - p)
        return max(self.size_min, min(self.size_max, value))  # Vector3.Max(sizeMin, Vector3.Min(sizeMax, s))

    def update(self, dt: float, occupied: list[tuple[Vec, float]] | None = None) -> SpawnerEvents:
        """Advance one physics update of ``dt`` seconds. ``occupied``: centres and diameters of the
        GoodGoalMulti goals now in the world (stockpilers keep a new goal back while one is at the spawn point)."""
        events = SpawnerEvents()
        if self.door is not None:
            self.door.advance(dt)
        for fruit in self.fruits:
            if not fruit.released:
                fruit.age += dt
                fruit.value = self.size_at(fruit.age)
                if fruit.material and fruit.age + _EPS >= self.ripen_time:
                    fruit.released = True
                    events.released.append(fruit)
        if self._waiting and self._free(occupied):
            # SpawnerStockpiler.immaterialStorageChange(goal, true): shown, collider on, gravity on,
            # kinematic off: a goal that waited falls at once, ripe or not.
            fruit = self._waiting.pop(0)
            fruit.material = fruit.released = True
            events.materialised.append(fruit)
            events.released.append(fruit)
        if self.spawn_count != 0 and self.time + _EPS >= self._next_spawn:
            fruit = self._spawn(occupied)
            events.spawned.append(fruit)
            if self.spawn_count > 0:
                self.spawn_count -= 1
            self._next_spawn += self.between
        self.time += dt
        return events

    def _spawn(self, occupied: list[tuple[Vec, float]] | None) -> Fruit:
        if self.prefab.sphere_radius > 0:
            phi = float(np.float32(self._angle_rng.next_double() * 2 * math.pi))
            theta = float(np.float32((self._angle_rng.next_double() * _F32_06 + _F32_02) * math.pi))
            r = self.prefab.sphere_radius
            offset = (
                r * math.cos(phi) * math.sin(theta),
                r * math.cos(theta),
                r * math.sin(phi) * math.sin(theta),
            )
        else:
            offset = (0.0, 0.0, 0.0)
        if self.prefab.variable_size:
            self._size_rng.next_double()  # drawn by spawnNewGoal, then unused
        px, py, pz = self.spawn_point
        fruit = Fruit(len(self.fruits), (px + offset[0], py + offset[1], pz + offset[2]), self.size_at(0.0))
        if self.prefab.stockpiling and not self._free(occupied, fruit):
            fruit.material = False
            self._waiting.append(fruit)
        self.fruits.append(fruit)
        return fruit

    def _free(self, occupied: list[tuple[Vec, float]] | None, new: Fruit | None = None) -> bool:
        """``freeToMaterialise``: no other goal within 0.4 x the ripened size of the spawn point."""
        radius = MATERIALISE_RADIUS * self.ripened_size
        px, py, pz = self.spawn_point
        spheres = list(occupied or [])
        spheres += [
            (f.position, f.diameter) for f in self.fruits if f.material and f is not new and not f.released
        ]
        for (x, y, z), d in spheres:
            if math.dist((x, y, z), (px, py, pz)) < radius + d / 2:
                return False
        return True


class DoorSchedule:
    """How open a dispenser's or container's door is (``SpawnerStockpiler.manageDoor``): 0 shut, 1 open."""

    def __init__(self, open_delay: float, between_opens: float | None) -> None:
        self.open_delay = open_delay
        cycle = between_opens if between_opens is not None and between_opens >= 0 else None
        self.cycling = cycle is not None  # SetTimeBetweenDoorOpens
        v = max(cycle, MIN_DOOR_OPEN) if cycle is not None else 0.0
        self.stays_open = min(DOOR_CLOSES_AFTER, v) if cycle is not None else math.inf
        self.stays_shut = v - self.stays_open if cycle is not None else 0.0
        self.time = 0.0

    def advance(self, dt: float) -> None:
        self.time += dt

    @property
    def openness(self) -> float:
        t = self.time - self.open_delay
        if t <= 0:
            return 0.0
        period = 2 * DOOR_MOVE_SECONDS + self.stays_open + self.stays_shut
        if self.cycling:
            t = t % period
        if t < DOOR_MOVE_SECONDS:
            return t / DOOR_MOVE_SECONDS
        t -= DOOR_MOVE_SECONDS
        if t < self.stays_open:
            return 1.0
        t -= self.stays_open
        if t < DOOR_MOVE_SECONDS:
            return 1.0 - t / DOOR_MOVE_SECONDS
        return 0.0

    @property
    def is_open(self) -> bool:
        return self.openness >= 1.0 - _EPS
