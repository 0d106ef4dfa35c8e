"""The items that act during an episode, run beside the physics: changing goals, spawners, buttons,
data zones and the agent's start freeze.

Why one place: each behaviour is a plain state machine of its own module (``goal_changes.py``,
``spawners.py``, ``buttons.py``, ``data_zones.py``); this runtime owns them for one built arena, feeds
them what the physics knows (the agent's place, what stands on a growing goal) once per 0.02 s physics
update, and turns what they decide into pybullet changes through the world's item hooks
(``ArenaWorld.add_goal``, ``release_goal``, ``resize_goal``). The world calls ``update`` after each
physics update; the backend reads rewards, goal counts and records from here.

What a touched goal is worth and whether it ends the episode (``touch``) also lives here, because it
depends on the goal's story: a changing goal gives its current reward; a goal a spawner dropped counts
among the arena's good goals (``ArenaBuilder.AddToGoodGoalsMultiSpawned``); a goal a button spawned
is the Resources prefab as it is (reward +1 / -1, diameter 1) and was never counted, so it keeps its
prefab's ``numberOfGoals`` of 1 (a GoodGoalMulti from a button ends the episode only when it is the
first multi goal collected; v4.1.0 compares with >=, so there it always does).
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from agentkit.envs.animalai_common.geometry import BUTTON_TRIGGER, Box, sphere_box_distance, to_world
from agentkit.envs.animalai_common.goal_changes import RewardChange, SizeChange, reward_change, size_change
from agentkit.envs.animalai_common.items import AGENT_DIAMETER, ITEM_TYPES, Vec
from agentkit.envs.animalai_common.layout import Layout, PlacedItem
from agentkit.envs.animalai_common.motion import PHYSICS_DT
from agentkit.envs.arena import item_bodies
from agentkit.envs.arena.bodies import ItemBody
from agentkit.envs.arena.buttons import SpawnerButton
from agentkit.envs.arena.data_zones import DataZoneTracker
from agentkit.envs.arena.spawners import Fruit, GoalSpawner
from agentkit.envs.pybullet_support.bullet import p

if TYPE_CHECKING:
    from agentkit.envs.arena.world import ArenaWorld

logger = logging.getLogger(__name__)

RESIZE_STEP = 0.01  # a changing goal's body is rebuilt when its diameter has moved this much
DOOR_STEP = 0.05  # a door's body is rebuilt when it has moved this share of its travel
COLOUR_STEP = 6  # a decaying goal's colour is handed to the camera when a channel has moved this much
BUTTON_GOAL_DIAMETER = 1.0  # Assets/Resources/*Goal*.prefab: m_LocalScale 1, never sized
BUTTON_GOAL_REWARD = {
    "GoodGoal": 1.0,
    "GoodGoalBounce": 1.0,
    "GoodGoalMulti": 1.0,
    "GoodGoalMultiBounce": 1.0,
    "BadGoal": -1.0,
    "BadGoalBounce": -1.0,
    "DecoyGoal": 0.0,
    "DecoyGoalBounce": 0.0,
    "DecoyGoalMulti": 0.0,
}  # Resources prefabs: Goal.reward
BOUNCE_PUSH = 500.0 * PHYSICS_DT  # BallGoalBounce.Start: forceToApply x dt, along the goal's facing
_RADIUS = AGENT_DIAMETER / 2


@dataclass(frozen=True)
class TouchValue:
    """What a touched goal gives and how it counts (``Goal.OnCollisionEnter``)."""

    reward: float
    good: bool
    multi: bool
    own_count: int | None = None  # the goal's own numberOfGoals when the builder never counted it


@dataclass
class _Spawner:
    item: PlacedItem
    machine: GoalSpawner
    door: ItemBody | None = None
    openness: float = 0.0
    goal_ids: dict[int, int] = field(default_factory=dict)  # fruit serial -> spawned item id


@dataclass
class _Button:
    item: PlacedItem
    machine: SpawnerButton
    trigger: Box
    face: ItemBody | None
    travel: float = 0.0


class ItemRuntime:
    """The acting items of one built arena."""

    def __init__(
        self,
        world: ArenaWorld,
        layout: Layout,
        extras: dict[int, list[ItemBody]],
        version: str,
        freeze_seconds: float = 0.0,
    ) -> None:
        self.world = world
        self.version = version
        self.rng = random.Random(layout.seed)
        self.time = 0.0
        self.updates = 0
        self.freeze_left = max(0.0, freeze_seconds)  # TrainingAgent.SetFreezeDelay: seconds, clamped at 0
        self.extras = extras  # extra bodies by item id (the camera draws them)
        self.revision = (
            0  # changes whenever bodies appear, vanish or change colour (the camera re-reads them)
        )
        self.new_good_goals = 0
        self.items: dict[int, PlacedItem] = {item.id: item for item in layout.items}
        self._next_id = max(self.items, default=-1) + 1
        self.changing: dict[int, RewardChange | SizeChange] = {}
        self._built_diameter: dict[int, float] = {}
        self._colours: dict[int, tuple[int, int, int]] = {}
        self.spawners: list[_Spawner] = []
        self.buttons: list[_Button] = []
        self.spawned: dict[int, str] = {}  # spawned goal id -> who spawned it ("tree", "button", ...)
        self._fruit: dict[int, Fruit] = {}
        zones = []
        for item in layout.items:
            behaviour = item.type.behaviour
            if behaviour in ("decay", "ripen"):
                change = reward_change(behaviour, item.params, version)
                self.changing[item.id] = change
                self._colours[item.id] = change.color
            elif behaviour in ("grow", "shrink"):
                self.changing[item.id] = size_change(behaviour, item.params, version)
            elif behaviour in ("tree", "dispenser", "container"):
                spawner = _Spawner(item, GoalSpawner(behaviour, item.params, item.position))
                doors = [b for b in extras.get(item.id, []) if behaviour != "tree"]
                spawner.door = doors[0] if doors else None
                self.spawners.append(spawner)
            elif behaviour == "button":
                faces = extras.get(item.id, [])
                self.buttons.append(
                    _Button(
                        item,
                        SpawnerButton(item.params, version),
                        _trigger_box(item),
                        faces[0] if faces else None,
                    )
                )
            elif behaviour == "data_zone":
                zones.append(item)
        for item_id in self.changing:
            self._built_diameter[item_id] = self.items[item_id].size[0]
        self.data_zones = DataZoneTracker(zones)

    # -- what the backend asks ----------------------------------------------------------------------

    @property
    def frozen(self) -> bool:
        """The agent is frozen at the start (``frozenAgentDelays``): it does not act, and no reward counts."""
        return self.freeze_left > 1e-9

    def take_new_good_goals(self) -> int:
        n, self.new_good_goals = self.new_good_goals, 0
        return n

    def touch(self, item: PlacedItem) -> TouchValue:
        t = item.type
        state = self.changing.get(item.id)
        if state is not None:
            return TouchValue(state.reward, True, True)
        fruit = self._fruit.get(item.id)
        if fruit is not None:
            return TouchValue(fruit.reward, True, True)
        if self.spawned.get(item.id) == "button":
            return TouchValue(
                BUTTON_GOAL_REWARD.get(t.name, float(t.reward_sign)), t.reward_sign > 0, t.multi, 1
            )
        if t.behaviour == "decoy":  # reward 0, multi, never counted: numberOfGoals stays 1
            return TouchValue(0.0, False, True, 1)
        return TouchValue(t.reward_sign * item.size[0], t.reward_sign > 0, t.multi)

    def current(self, item: PlacedItem) -> PlacedItem:
        """The item as it is now (a changing goal's size and colour, a hanging fruit's size)."""
        fruit = self._fruit.get(item.id)
        if fruit is not None:
            d = fruit.diameter
            return replace(self.items[item.id], size=(d, d, d))
        state = self.changing.get(item.id)
        if isinstance(state, SizeChange):
            d = state.diameter
            return replace(item, size=(d, d, d))
        if isinstance(state, RewardChange):
            return replace(item, color=state.color)
        return self.items.get(item.id, item)

    def spawned_items(self) -> list[PlacedItem]:
        return [self.items[i] for i in self.spawned]

    def extra_bodies(self) -> list[ItemBody]:
        return [b for bodies in self.extras.values() for b in bodies]

    def records(self) -> dict:
        """What the items recorded: button presses and spawns, data zone visits, spawned goals."""
        return {
            "button_presses": {b.item.id: b.machine.presses for b in self.buttons},
            "button_spawns": {b.item.id: dict(b.machine.spawned) for b in self.buttons},
            "data_zone_events": [dict(e) for e in self.data_zones.events],
            "spawned_goals": len(self.spawned),
        }

    # -- one physics update -------------------------------------------------------------------------

    def update(self) -> None:
        dt = PHYSICS_DT
        self.time += dt
        self.updates += 1
        if self.freeze_left > 0:
            self.freeze_left -= dt
        if self.changing:
            self._update_changing()
        for spawner in self.spawners:
            self._update_spawner(spawner, dt)
        if self.buttons or self.data_zones.zones:
            x, y, z = self.world.agent_position
            centre = (x, y + _RADIUS, z)
            for button in self.buttons:
                self._update_button(button, centre, dt)
            self.data_zones.update(centre, self.updates)

    def _update_changing(self) -> None:
        for item_id, state in self.changing.items():
            if not self.world.is_active(item_id):
                continue
            if isinstance(state, SizeChange):
                free = state.shrinking or self.world.free_to_grow(item_id, abs(state.rate))
                state.update(free)
                d = state.diameter
                built = self._built_diameter[item_id]
                if abs(d - built) >= RESIZE_STEP or (state.finished and d != built):
                    self.world.resize_goal(item_id, max(d, 0.01))
                    self._built_diameter[item_id] = d
                    self.revision += 1
            else:
                state.update()
                colour = state.color
                if max(abs(a - b) for a, b in zip(colour, self._colours[item_id])) >= COLOUR_STEP:
                    self._colours[item_id] = colour
                    self.world.recolour(item_id, colour)
                    self.revision += 1

    def _new_goal(
        self, name: str, centre: Vec, diameter: float, source: str, hanging: bool, rotation: float = 0.0
    ) -> PlacedItem:
        t = ITEM_TYPES[name]
        x, y, z = centre
        item = PlacedItem(self._next_id, t, (x, y - diameter / 2, z), (diameter,) * 3, rotation, t.color)
        self._next_id += 1
        self.items[item.id] = item
        self.spawned[item.id] = source
        self.world.add_goal(item, hanging=hanging)
        self.revision += 1
        return item

    def _update_spawner(self, spawner: _Spawner, dt: float) -> None:
        machine = spawner.machine
        occupied = []
        for fruit_id in spawner.goal_ids.values():
            centre = self.world.goal_centre(fruit_id)
            if centre is not None:
                occupied.append((centre, self._fruit[fruit_id].diameter))
        events = machine.update(dt, occupied)
        self.new_good_goals += len(events.spawned)  # spawnNewGoal: AB.AddToGoodGoalsMultiSpawned
        chamber = machine.kind == "dispenser"
        for fruit in events.spawned:
            if fruit.material and not chamber:
                self._add_fruit(spawner, fruit, hanging=True)
        for fruit in events.released:
            item_id = spawner.goal_ids.get(fruit.serial)
            if item_id is None:  # a dispenser's goal (or one that waited) enters the world now
                item_id = self._add_fruit(spawner, fruit, hanging=False, in_chamber=chamber)
            else:
                self.world.release_goal(item_id)
        for item_id in spawner.goal_ids.values():
            fruit = self._fruit[item_id]
            if (
                not fruit.released
                and abs(fruit.diameter - self._built_diameter.get(item_id, 0.0)) >= RESIZE_STEP
            ):
                self.world.resize_goal(item_id, fruit.diameter)
                self._built_diameter[item_id] = fruit.diameter
                self.revision += 1
        if machine.door is not None and spawner.door is not None:
            openness = machine.door.openness
            settled = openness in (0.0, 1.0) and openness != spawner.openness
            if abs(openness - spawner.openness) >= DOOR_STEP or settled:
                spawner.openness = openness
                c = self.world.client
                p.removeBody(spawner.door.body, physicsClientId=c)
                new_door = item_bodies.door_body(c, spawner.item, openness)
                bodies = self.extras[spawner.item.id]
                bodies[bodies.index(spawner.door)] = new_door
                spawner.door = new_door
                self.revision += 1

    def _add_fruit(self, spawner: _Spawner, fruit: Fruit, hanging: bool, in_chamber: bool = False) -> int:
        centre = fruit.position
        if in_chamber:  # the dispenser's goal drops down its chute to the back of the chamber
            bx, by, bz = spawner.item.position
            dx, dz = to_world(-0.35, 0.0, spawner.item.rotation)
            centre = (bx + dx, by + item_bodies.CHUTE_DROP + fruit.diameter / 2 + 0.02, bz + dz)
        item = self._new_goal("GoodGoalMulti", centre, fruit.diameter, spawner.machine.kind, hanging)
        spawner.goal_ids[fruit.serial] = item.id
        self._fruit[item.id] = fruit
        self._built_diameter[item.id] = fruit.diameter
        return item.id

    def _update_button(self, button: _Button, centre: Vec, dt: float) -> None:
        inside = sphere_box_distance(centre, button.trigger) < _RADIUS
        spawn = button.machine.update(dt, inside, self.rng)
        travel = button.machine.travel
        if button.face is not None and (
            abs(travel - button.travel) >= 0.05 or (travel == 0 and button.travel != 0)
        ):
            button.travel = travel
            item_bodies.place_extra(
                self.world.client, button.face, (item_bodies.PRESS_DEPTH * travel, 0.0, 0.0)
            )
        if spawn is None:
            return
        x, y, z = spawn.position
        # Instantiated with its centre at the spawn point; a centre below its radius is pushed out of the floor.
        item = self._new_goal(
            spawn.name,
            (x, max(y, BUTTON_GOAL_DIAMETER / 2 + 0.001), z),
            BUTTON_GOAL_DIAMETER,
            "button",
            hanging=False,
        )
        if item.type.bounce:
            self.world.push_goal(item.id, (0.0, 0.0, BOUNCE_PUSH))  # identity rotation: it faces +z
        logger.debug(
            "button %d spawned %s at %s (press %d)", button.item.id, spawn.name, spawn.position, spawn.press
        )


def _trigger_box(item: PlacedItem) -> Box:
    """The button's trigger (Cube-Trigger) as a box in the arena."""
    k = item.size[1] / 1.598
    x0, x1, z0, z1, y0, y1 = (v * k for v in BUTTON_TRIGGER)
    dx, dz = to_world((x0 + x1) / 2, (z0 + z1) / 2, item.rotation)
    bx, by, bz = item.position
    return Box(bx + dx, bz + dz, by + y0, by + y1, (x1 - x0) / 2, (z1 - z0) / 2, item.rotation)


def freeze_seconds(arena_items) -> float:
    """``frozenAgentDelays[0]`` of the file's Agent item (seconds; 0 when none)."""
    for spec in arena_items:
        if spec.name == "Agent" and spec.frozen_agent_delays:
            return max(0.0, float(spec.frozen_agent_delays[0]))
    return 0.0
