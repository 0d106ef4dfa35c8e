"""The arena's physics: a pybullet world built from a layout, stepped as Animal-AI's Unity steps it.

Why like this: the agent's motion, pushes, falls and climbs decide what a script achieves, so the
world runs Animal-AI's own schedule: one environment step is ``motion.DECISION_PERIOD`` (3) physics
updates of ``motion.PHYSICS_DT`` (0.02 s), and in each update the agent's velocity is changed by
``TrainingAgent.MoveAgent`` and PhysX's integrator (``motion.drive``, ``motion.integrate``) and by the
Coulomb friction of the contacts it has (computed here from the contact normals: PhysX removes the
velocity into a surface and slows the sliding by up to friction x that impulse), before pybullet
resolves the contacts and moves every body. Bullet adds gravity itself during its step, so the agent's
velocity is handed over with that update's gravity taken back out. ``physics_substeps`` pybullet steps
make one update (default 1, the time step Unity uses).

Speed: an update makes only the pybullet calls it needs (the agent's contacts, velocity and
position, and the spin of rolling goals); nothing else is queried until an observation asks for the
full state.

Contacts and goals: the agent's contacts are refreshed at the start of every update (positions after
the previous one). They give the surfaces its friction acts on, the goals it touched in the previous
update, and Unity's sticky ``_isGrounded`` (``TrainingAgent.cs``): set by any contact whose normal
points up (``OnCollisionEnter``/``OnCollisionStay``), cleared only when a body stops touching the agent
(``OnCollisionExit``) while the last contact the agent stored pointed up, and false when the episode
begins (``OnEpisodeBegin``). So leaving a box or a wall can cost the agent a drive update, and an agent
that never touched anything yet cannot drive.

No physics runs before the first frame: as in Animal-AI, where the arena is built and observed before
its first physics update, every item stands 0.01 above its spawn point (``Prefab.AdjustY``) in the
first frame and falls the gap once the episode runs; a goal given in the air is seen in the air.
Walls (mass 10000, ``Immoveable/Wall.prefab``) and ramps (mass 1000, ``Immoveable/Ramp.prefab``) are
dynamic rigid bodies for the whole episode, as in Unity: they fall onto what holds them, and the agent
(mass 100) hardly moves them. Bounce goals get their push before the first update
(``BallGoalBounce.Start``): a velocity change of ``forceToApply x fixedDeltaTime`` = 500 x 0.02 = 10
units/s along the goal's facing; after that they roll freely and, with no restitution anywhere, stop
against what they hit.
"""

from __future__ import annotations

import logging
import math
import random
from dataclasses import dataclass, field, replace

from agentkit.envs.animalai_common import motion
from agentkit.envs.animalai_common.geometry import Box, sphere_box_distance
from agentkit.envs.animalai_common.items import AGENT_DIAMETER
from agentkit.envs.animalai_common.layout import Layout, PlacedItem
from agentkit.envs.arena import item_bodies, materials
from agentkit.envs.arena.bodies import ItemBody, add_agent, add_ground, add_item, to_bullet
from agentkit.envs.arena.heavy_bodies import HeavyBodies
from agentkit.envs.arena.item_runtime import ItemRuntime
from agentkit.envs.pybullet_support.bullet import connect, disconnect, p

logger = logging.getLogger(__name__)

BOUNCE_PUSH = (
    500.0 * motion.PHYSICS_DT
)  # BallGoalBounce.cs / *Bounce.prefab: forceToApply 500, VelocityChange x dt
_CONTACT_DISTANCE = 0.02  # a contact closer than this counts as touching (Unity's default contact offset is 0.01 per collider)
_UP_NORMAL = 1e-3  # TrainingAgent.OnCollisionStay: grounded when a contact normal has y > 0
_SUPPORT_NORMAL = 0.5  # a contact normal steeper than 60 degrees from the vertical holds the agent up
_RADIUS = AGENT_DIAMETER / 2
# ML-Agents resets an episode inside a fixed update (the reset command arrives in the Academy's step,
# and OnEpisodeBegin rebuilds the arena); that update's physics then runs once, with no action, before
# the next step collects the first observation. So items have fallen one update's worth of their 0.01
# spawn gap in the first frame, and the agent resting on the floor is grounded for its first action.
RESET_UPDATES = 1


@dataclass
class UpdateReport:
    """What happened to the agent during one physics update."""

    touched: list[PlacedItem] = field(default_factory=list)  # goals touched (already removed)
    in_death_zone: bool = False
    # HotZone charges this update: one per zone the agent is in (HotZone.OnTriggerStay), and one more
    # for each zone it entered in this update (HotZone.OnTriggerEnter charges too).
    hot_zone_charges: int = 0
    frozen: bool = False  # the agent was frozen (frozenAgentDelays): it did not act, no reward counts

    @property
    def in_hot_zone(self) -> bool:
        return self.hot_zone_charges > 0


@dataclass
class StepEvents:
    """What happened during one environment step, update by update."""

    updates: list[UpdateReport] = field(default_factory=list)

    @property
    def touched(self) -> list[PlacedItem]:
        return [item for update in self.updates for item in update.touched]


class ArenaWorld:
    """A pybullet DIRECT server holding one arena."""

    def __init__(self, physics_substeps: int = 1, aai_version: str = materials.DEFAULT_VERSION) -> None:
        if physics_substeps < 1:
            raise ValueError(f"physics_substeps must be at least 1, got {physics_substeps}")
        self.substeps = physics_substeps
        self.version = materials.check_version(aai_version)
        self._dt = motion.PHYSICS_DT / physics_substeps
        self.client = connect()
        self.heading = 0.0
        self.agent = -1
        self.bodies: list[ItemBody] = []
        self._goal_by_body: dict[int, ItemBody] = {}
        self._rolling: list[int] = []  # dynamic goals, whose spin Unity caps
        self._zones: list[tuple[Box, str]] = []
        self._in_hot_zones: set[int] = set()  # indices into _zones the agent was in at the last update
        self._active: dict[int, bool] = {}
        self._static: set[int] = set()
        self._dynamic: set[int] = (
            set()
        )  # bodies the agent's friction pushes back on (walls, ramps, blocks...)
        self._mass: dict[int, float] = {}
        self._heavy = HeavyBodies(self.client)
        self._gone: set[int] = set()  # bodies removed since the last update (what they held may fall)
        self._friction: dict[int, float] = {}
        self._contacts: tuple = ()
        self._grounded = False
        self._touching: set[int] = set()  # bodies in contact with the agent at the last refresh
        self._last_contact_up = False  # TrainingAgent._lastContactPoint.normal.y > 0
        self._position = (0.0, 0.0, 0.0)  # agent base centre, arena coordinates

    # -- building -----------------------------------------------------------------------------

    def build(self, layout: Layout, freeze_seconds: float = 0.0) -> None:
        """Replace whatever was there with ``layout``; the same layout always builds the same world.
        ``freeze_seconds``: the agent's start freeze (the file's ``frozenAgentDelays``)."""
        c = self.client
        p.resetSimulation(physicsClientId=c)
        p.setPhysicsEngineParameter(
            fixedTimeStep=self._dt,
            numSubSteps=0,
            numSolverIterations=12,
            deterministicOverlappingPairs=1,
            physicsClientId=c,
        )
        p.setGravity(0, 0, -motion.GRAVITY, physicsClientId=c)
        floor, fences = add_ground(c)
        self._static = {floor, *fences}
        for body in self._static:
            materials.set_static(c, body)
        built = [
            item_bodies.add_body(c, item, self.version, random.Random(layout.seed)) for item in layout.items
        ]
        self.bodies = [main for main, _ in built]
        extras = {item.id: more for item, (_, more) in zip(layout.items, built) if more}
        self._friction, self._dynamic, self._mass = {}, set(), {}
        self._heavy, self._gone = HeavyBodies(c), set()
        for b in self.bodies:
            self._set_material(b)
        self._goal_by_body = {b.body: b for b in self.bodies if b.item.type.is_goal}
        self._active = {b.item.id: True for b in self.bodies}
        self._zones = [
            (b.item.boxes()[0], b.item.name)
            for b in self.bodies
            if b.item.type.kind == "zone" and b.item.type.behaviour != "data_zone"
        ]
        self.agent = add_agent(c, layout.agent.position)
        materials.set_agent(c, self.agent)
        self._rolling = [b.body for b in self.bodies if b.dynamic and b.item.type.is_goal]
        self.heading = layout.agent.rotation % 360.0
        (x, y, z), _ = p.getBasePositionAndOrientation(self.agent, physicsClientId=c)
        self._position = (x, z - _RADIUS, y)
        self._in_hot_zones = set()
        self._touching = set()
        # TrainingAgent.OnEpisodeBegin: not grounded, and no contact remembered, until collisions are
        # reported; then the one physics update of the reset (see RESET_UPDATES), with no action.
        self._grounded = False
        self._last_contact_up = False
        for _ in range(RESET_UPDATES):
            self._idle_update()
        self._refresh_contacts()
        self._in_hot_zones = self._hot_zones_inside()
        for b in self.bodies:  # BallGoalBounce.Start runs before the new goal's first fixed update
            if b.item.type.bounce:
                dx, dz = motion.facing(b.item.rotation)
                (vx, vy, vz), w = p.getBaseVelocity(b.body, physicsClientId=c)
                p.resetBaseVelocity(
                    b.body, [vx + dx * BOUNCE_PUSH, vy + dz * BOUNCE_PUSH, vz], w, physicsClientId=c
                )
        self.items = ItemRuntime(self, layout, extras, self.version, freeze_seconds)
        logger.debug("built arena: %d items, agent at %s", len(self.bodies), layout.agent.position)

    def _set_material(self, b: ItemBody) -> None:
        t = b.item.type
        if not b.dynamic:
            materials.set_static(self.client, b.body)
            self._friction[b.body] = motion.DEFAULT_FRICTION
            if t.solid:
                self._static.add(b.body)
            return
        mass = materials.item_mass(t.name, self.version)
        if t.kind in ("obstacle", "ramp"):  # walls and ramps: heavy, default material (see materials.py)
            materials.set_heavy(self.client, b.body, mass)
            self._heavy.add(b.body, mass)
        else:
            materials.set_dynamic(self.client, b.body, t.name, mass)
        self._friction[b.body] = materials.item_friction(t.name)
        self._dynamic.add(b.body)
        self._mass[b.body] = mass

    # -- stepping -----------------------------------------------------------------------------

    def step(self, b0: int, b1: int) -> StepEvents:
        """Apply one action ``[b0, b1]`` for the step's physics updates."""
        events = StepEvents()
        for index in range(motion.DECISION_PERIOD):
            if index:
                self._refresh_contacts()
                self._collect(events.updates[-1])
            events.updates.append(UpdateReport(frozen=self.items.frozen))
            self._update(b0, b1)
        self._refresh_contacts()
        last = events.updates[-1]
        self._collect(last)
        return events

    def _update(self, b0: int, b1: int) -> None:
        """One 0.02 s physics update: Animal-AI's drive, PhysX's integration and friction, then Bullet."""
        c = self.client
        (vx, vy, vz), _ = p.getBaseVelocity(self.agent, physicsClientId=c)
        if self.items.frozen:  # TrainingAgent.OnActionReceived: a frozen agent does not move (nor brake)
            v = (vx, vz, vy)
        else:
            self.heading = motion.turn(self.heading, b1)
            v = motion.drive((vx, vz, vy), self.heading, b0, self._grounded)  # arena axes (x, y up, z)
        self._advance(v)
        self.items.update()

    def _idle_update(self) -> None:
        """A physics update in which the agent takes no action (not even braking): gravity and drag only."""
        (vx, vy, vz), _ = p.getBaseVelocity(self.agent, physicsClientId=self.client)
        self._advance((vx, vz, vy))

    def _advance(self, v: tuple[float, float, float]) -> None:
        """The rest of an update from the agent's velocity ``v`` (arena axes) after its own action:
        PhysX's integration and friction, Unity's spin cap, Bullet's step, the heavy bodies."""
        c = self.client
        v = motion.integrate(v)
        ax, ay, az = self._apply_friction((v[0], v[2], v[1]))  # bullet axes
        p.resetBaseVelocity(
            self.agent, [ax, ay, az + motion.GRAVITY * motion.PHYSICS_DT], [0, 0, 0], physicsClientId=c
        )
        if self._rolling:
            self._cap_spin()
        for _ in range(self.substeps):
            p.stepSimulation(physicsClientId=c)
        self._settle_heavy()

    def _settle_heavy(self) -> None:
        """Walls and ramps that came to rest are pinned, those whose support moved are let go
        (``heavy_bodies.py``); the agent's friction treats a pinned one as the static world."""
        pinned, released = self._heavy.update(self._dynamic, self._gone)
        for body in pinned:
            self._dynamic.discard(body)
            self._static.add(body)
        for body in released:
            self._static.discard(body)
            self._dynamic.add(body)
        self._gone.clear()

    def _apply_friction(self, v: tuple[float, float, float]) -> tuple[float, float, float]:
        """Coulomb friction of the agent's surfaces, as PhysX applies the agent's default material.

        For each surface pressed on, the sliding of the agent over it (relative to the surface's own
        motion at the contact) is slowed by up to friction x the normal impulse, the velocity into it
        being left to the solver. Against a body that moves (a block, a goal, and the walls and ramps,
        which are dynamic as in Unity) the normal impulse is the two bodies' reduced mass times the
        approach speed, and the friction impulse is given back to that body at the contact, so a box
        the agent stands on or drags is pulled along (PhysX friction acts on both bodies). A body the
        agent stands on is held up by what is under it, so it bears the agent as the floor would:
        the agent slides over it with the pair's friction (0.425 on cardboard) and the solver then
        decides whether the reaction moves it.
        """
        vx, vy, vz = v
        seen: set[tuple[int, float, float, float]] = set()
        c = self.client
        for contact in self._contacts:
            body = contact[2]
            if contact[8] > _CONTACT_DISTANCE:
                continue
            moving = body in self._dynamic
            if not moving and body not in self._static:
                continue
            n = contact[7]
            key = (body, round(n[0], 3), round(n[1], 3), round(n[2], 3))
            if key in seen:
                continue
            seen.add(key)
            bx = by = bz = 0.0
            share = 1.0  # the agent's share of the normal impulse per unit approach speed
            if moving:
                (bx, by, bz), (wx, wy, wz) = p.getBaseVelocity(body, physicsClientId=c)
                (ox, oy, oz), _ = p.getBasePositionAndOrientation(body, physicsClientId=c)
                px, py, pz = contact[6]  # the contact on the body
                rx, ry, rz = px - ox, py - oy, pz - oz
                bx, by, bz = bx + wy * rz - wz * ry, by + wz * rx - wx * rz, bz + wx * ry - wy * rx
                if n[2] <= _SUPPORT_NORMAL:  # pressed sideways: a light body gives way (reduced mass)
                    other = self._mass.get(body, 0.0)
                    share = other / (other + motion.AGENT_MASS) if other > 0 else 1.0
            rvx, rvy, rvz = vx - bx, vy - by, vz - bz
            into = rvx * n[0] + rvy * n[1] + rvz * n[2]
            # the part of the approach that only closes a gap pushes nothing (PhysX's speculative
            # contacts): an agent landing from its 0.01 spawn gap is not braked by the whole fall
            pressed = -into - max(0.0, contact[8]) / motion.PHYSICS_DT
            if pressed <= 0.0:
                continue
            tx, ty, tz = rvx - into * n[0], rvy - into * n[1], rvz - into * n[2]
            slide = math.sqrt(tx * tx + ty * ty + tz * tz)
            if slide <= 0.0:
                continue
            # at most what stops the sliding between the two (the body takes the opposite impulse)
            cut = min(slide * share, self._friction.get(body, motion.DEFAULT_FRICTION) * pressed * share)
            dvx, dvy, dvz = -tx / slide * cut, -ty / slide * cut, -tz / slide * cut
            vx, vy, vz = vx + dvx, vy + dvy, vz + dvz
            if moving:
                k = -motion.AGENT_MASS / self._dt  # the opposite impulse, as a force over one Bullet step
                p.applyExternalForce(
                    body, -1, [dvx * k, dvy * k, dvz * k], contact[6], p.WORLD_FRAME, physicsClientId=c
                )
        return vx, vy, vz

    def _cap_spin(self) -> None:
        """Unity caps a rigid body's spin at ``maxAngularVelocity`` (7 rad/s by default): a rolling goal
        that is pushed faster slides instead of spinning up."""
        c = self.client
        cap = materials.MAX_ANGULAR_VELOCITY
        for body in self._rolling:
            if not self._active_body(body):
                continue
            linear, (wx, wy, wz) = p.getBaseVelocity(body, physicsClientId=c)
            spin = math.sqrt(wx * wx + wy * wy + wz * wz)
            if spin > cap:
                k = cap / spin
                p.resetBaseVelocity(body, linear, [wx * k, wy * k, wz * k], physicsClientId=c)

    def _refresh_contacts(self) -> None:
        """The agent's contacts and position now, and Unity's sticky ``_isGrounded``.

        ``TrainingAgent.OnCollisionEnter``/``OnCollisionStay`` set it for any contact normal pointing
        up and store the collision's last contact; ``OnCollisionExit`` clears it when that stored
        contact pointed up. Unity calls them per touching body, in PhysX's pair order, which we take
        as pybullet's contact order, with the bodies that stopped touching handled after them.
        """
        c = self.client
        p.performCollisionDetection(physicsClientId=c)
        self._contacts = p.getContactPoints(bodyA=self.agent, physicsClientId=c)
        touching: dict[int, tuple] = {}  # body -> its last contact, in contact order
        for contact in self._contacts:
            if contact[8] > _CONTACT_DISTANCE:
                continue
            if contact[7][2] > _UP_NORMAL:
                self._grounded = True
            touching.pop(contact[2], None)
            touching[contact[2]] = contact
        if touching:
            self._last_contact_up = next(reversed(touching.values()))[7][2] > _UP_NORMAL
        if self._last_contact_up and any(body not in touching for body in self._touching):
            self._grounded = False
        self._touching = set(touching)
        (x, y, z), _ = p.getBasePositionAndOrientation(self.agent, physicsClientId=c)
        self._position = (x, z - _RADIUS, y)

    def _collect(self, report: UpdateReport) -> None:
        """Goals among the current contacts (once each, then removed) and the zones the agent is in."""
        for contact in self._contacts:
            goal = self._goal_by_body.get(contact[2])
            if goal is not None and contact[8] <= _CONTACT_DISTANCE and self._active[goal.item.id]:
                self._active[goal.item.id] = False
                report.touched.append(goal.item)
        for item in report.touched:
            self._remove(item)
        if report.touched:
            self._contacts = tuple(
                c for c in self._contacts if c[2] not in self._goal_by_body or self._active_body(c[2])
            )
        if self._zones:
            touched = self._zones_touched()
            report.in_death_zone = any(self._zones[i][1] == "DeathZone" for i in touched)
            inside = {i for i in touched if self._zones[i][1] != "DeathZone"}
            # HotZone.OnTriggerStay charges every update inside; OnTriggerEnter also charges in the
            # update the agent comes in, so that update is charged twice.
            report.hot_zone_charges = len(inside) + len(inside - self._in_hot_zones)
            self._in_hot_zones = inside

    def _zones_touched(self) -> list[int]:
        """Indices of the zones the agent's sphere overlaps (Unity's trigger test, sphere against box)."""
        x, y, z = self._position
        centre = (x, y + _RADIUS, z)
        return [i for i, (box, _) in enumerate(self._zones) if sphere_box_distance(centre, box) < _RADIUS]

    def _hot_zones_inside(self) -> set[int]:
        return {i for i in self._zones_touched() if self._zones[i][1] != "DeathZone"}

    def _active_body(self, body: int) -> bool:
        goal = self._goal_by_body.get(body)
        return goal is not None and self._active[goal.item.id]

    def _remove(self, item: PlacedItem) -> None:
        body = next(b for b in self.bodies if b.item.id == item.id)
        p.removeBody(body.body, physicsClientId=self.client)
        self._rolling = [b for b in self._rolling if b != body.body]
        self._dynamic.discard(body.body)
        self._gone.add(body.body)

    # -- items that appear, change or move during the episode (item_runtime.py) ------------------

    def _body_of(self, item_id: int) -> ItemBody | None:
        return next((b for b in self.bodies if b.item.id == item_id), None)

    def add_goal(self, item: PlacedItem, hanging: bool = False) -> ItemBody:
        """A goal that appears during the episode: built, registered, dynamic unless ``hanging``
        (a spawner's goal hangs still, as Unity's kinematic rigid body, until released)."""
        b = add_item(self.client, item)
        if hanging:
            p.changeDynamics(b.body, -1, mass=0.0, physicsClientId=self.client)
            b = ItemBody(b.item, b.body, False)
            materials.set_static(self.client, b.body)
        else:
            self._set_material(b)
            self._rolling.append(b.body)
        self.bodies.append(b)
        self._goal_by_body[b.body] = b
        self._active[item.id] = True
        return b

    def release_goal(self, item_id: int) -> None:
        """A hanging goal starts to fall (``useGravity = true, isKinematic = false``)."""
        b = self._body_of(item_id)
        if b is None or b.dynamic or not self._active.get(item_id, False):
            return
        released = ItemBody(b.item, b.body, True)
        self.bodies[self.bodies.index(b)] = released
        self._goal_by_body[b.body] = released
        self._static.discard(b.body)
        self._set_material(released)
        self._rolling.append(b.body)

    def resize_goal(self, item_id: int, diameter: float) -> None:
        """Rebuild a goal's sphere at a new diameter, keeping its velocity, and its centre if it hangs
        still or its lowest point if it lies on something (PhysX would push a growing ball out of the floor)."""
        b = self._body_of(item_id)
        if b is None or not self._active.get(item_id, False):
            return
        c = self.client
        (x, y, z), q = p.getBasePositionAndOrientation(b.body, physicsClientId=c)
        velocity, spin = p.getBaseVelocity(b.body, physicsClientId=c)
        if b.dynamic:
            z += (diameter - b.item.size[0]) / 2
        item = replace_size(b.item, (x, z, y), diameter)
        p.removeBody(b.body, physicsClientId=c)
        self._goal_by_body.pop(b.body, None)
        self._static.discard(b.body)
        self._dynamic.discard(b.body)
        self._gone.add(b.body)
        was_rolling = b.body in self._rolling
        self._rolling = [r for r in self._rolling if r != b.body]
        new = add_item(c, item)
        if b.dynamic:
            self._set_material(new)
            p.resetBaseVelocity(new.body, velocity, spin, physicsClientId=c)
            if was_rolling:
                self._rolling.append(new.body)
        else:
            p.changeDynamics(new.body, -1, mass=0.0, physicsClientId=c)
            new = ItemBody(new.item, new.body, False)
            materials.set_static(c, new.body)
        self.bodies[self.bodies.index(b)] = new
        self._goal_by_body[new.body] = new

    def recolour(self, item_id: int, color: tuple[int, int, int]) -> None:
        """A goal's colour changed (a decaying goal): the camera reads it from its body's item."""
        b = self._body_of(item_id)
        if b is not None:
            b.item = replace(b.item, color=color)

    def goal_centre(self, item_id: int) -> tuple[float, float, float] | None:
        """A goal's centre (arena axes), None once collected."""
        b = self._body_of(item_id)
        if b is None or not self._active.get(item_id, False):
            return None
        (x, y, z), _ = p.getBasePositionAndOrientation(b.body, physicsClientId=self.client)
        return (x, z, y)

    def push_goal(self, item_id: int, velocity: tuple[float, float, float]) -> None:
        """Add a velocity change (arena axes) to a goal, as ``AddForce(..., VelocityChange)``."""
        b = self._body_of(item_id)
        if b is None:
            return
        (vx, vy, vz), w = p.getBaseVelocity(b.body, physicsClientId=self.client)
        p.resetBaseVelocity(
            b.body, [vx + velocity[0], vy + velocity[2], vz + velocity[1]], w, physicsClientId=self.client
        )

    def free_to_grow(self, item_id: int, step: float) -> bool:
        """``SizeChangeGoal``: nothing within ``step`` above the goal's top (a ray) and no static body
        inside its sphere shrunk by 0.05 (the walls, ramps and fence it is not allowed to grow into)."""
        b = self._body_of(item_id)
        if b is None:
            return False
        c = self.client
        (x, y, z), _ = p.getBasePositionAndOrientation(b.body, physicsClientId=c)
        r = b.item.size[0] / 2
        hits = p.rayTest([x, y, z + r], [x, y, z + r + step], physicsClientId=c)
        if any(hit[0] >= 0 and hit[0] != b.body for hit in hits):
            return False
        for other in self._static:
            if p.getClosestPoints(b.body, other, distance=-0.05, physicsClientId=c):
                return False
        return True

    def render_bodies(self) -> list[ItemBody]:
        """Every body the camera draws: the items and their extra parts (a sign's symbol, doors...)."""
        return self.bodies + self.items.extra_bodies()

    # -- state --------------------------------------------------------------------------------

    @property
    def agent_position(self) -> tuple[float, float, float]:
        """Centre of the agent's base in arena coordinates (as of the last step)."""
        return self._position

    def agent_velocity(self) -> tuple[float, float, float]:
        """The agent's velocity in arena units per second, arena axes (x, y up, z)."""
        (vx, vy, vz), _ = p.getBaseVelocity(self.agent, physicsClientId=self.client)
        return (vx, vz, vy)

    def is_active(self, item_id: int) -> bool:
        return self._active.get(item_id, False)

    def item_poses(self) -> dict[int, tuple[tuple[float, float, float], float]]:
        """Current base centre and rotation of every dynamic item still in the arena."""
        poses = {}
        c = self.client
        for b in self.bodies:
            if not b.dynamic or not self._active[b.item.id]:
                continue
            (x, y, z), q = p.getBasePositionAndOrientation(b.body, physicsClientId=c)
            if b.item.type.shape == "sphere":  # a rolling ball's spin means nothing: keep its given rotation
                rotation = b.item.rotation
            else:
                rotation = (-math.degrees(p.getEulerFromQuaternion(q)[2])) % 360.0
            # a ramp's body origin is the middle of its base, every other body's its middle (bodies.py)
            base = z if b.item.type.shape == "ramp" else z - b.item.size[1] / 2
            poses[b.item.id] = ((x, base, y), rotation)
        return poses

    def eye(self) -> tuple[tuple[float, float, float], float]:
        """The camera's pybullet position and the heading, for the renderer."""
        x, y, z = self._position
        return to_bullet(x, y + _RADIUS, z), self.heading

    def close(self) -> None:
        if self.client >= 0:
            disconnect(self.client)
            self.client = -1

    def __del__(self) -> None:  # a forgotten close() must not leak a physics server per episode
        try:
            self.close()
        except Exception:  # interpreter shutdown may have torn pybullet down already
            pass


def replace_size(item: PlacedItem, centre: tuple[float, float, float], diameter: float) -> PlacedItem:
    """A goal's item at a new diameter around the same centre (arena axes)."""
    x, y, z = centre
    return replace(item, position=(x, y - diameter / 2, z), size=(diameter, diameter, diameter))
