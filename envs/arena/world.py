"""The arena's physics: a pybullet world built from a layout, stepped one Animal-AI action at a time.

Why like this: an environment step must be cheap (thousands per second without rendering), so a
step makes only the pybullet calls it needs: the agent's velocity in, the physics substeps, the
agent's contacts and position out, plus the velocity of each bounce goal. Nothing else is queried
until an observation asks for the full state.

One step lasts ``motion.STEP_SECONDS`` (0.06 s, Animal-AI's three fixed updates of 0.02 s) split
into ``physics_substeps`` pybullet steps (default 3, so the time step is 0.02 s and the agent,
at its top speed of 1.23 units per step, moves at most 0.41 units per substep: less than its
radius plus half the thinnest wall, so it cannot tunnel through 0.1-thick walls).

When an arena is built, the physics runs for 0.6 s before the episode starts, so that items placed
in the air (Animal-AI adds a small gap under items, and some files place goals above ramps) have
come to rest in the first frame; bounce goals start moving when the episode does. Walls take part
in this settling as heavy bodies (a bar on posts of unequal height ends up sloping, as in Animal-AI)
and are fixed in place when it ends (``_fix_walls``).

Bounce goals keep a constant speed (``BOUNCE_SPEED``) along their facing direction; collisions
change their direction (walls have restitution 1, see ``bodies.py``), and one that gets stuck
reverses. Goals are touched when the agent's contact list names them; zones are tested against
the agent's sphere geometrically, since they are triggers without a collision shape.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

from agentkit.envs.arena import motion
from agentkit.envs.arena.bodies import ItemBody, add_agent, add_ground, add_item, to_bullet
from agentkit.envs.arena.bullet import connect, disconnect, p
from agentkit.envs.arena.geometry import Box, sphere_box_distance
from agentkit.envs.arena.items import AGENT_DIAMETER
from agentkit.envs.arena.layout import Layout, PlacedItem

logger = logging.getLogger(__name__)

# Gravity in arena units per s^2. The agent covers up to 1.2 units per 0.06 s step (about 20 units/s);
# with Earth's 9.81 it would sail several units off the top of a ramp, with 25 it hops a few tenths of
# a unit and lands on the platform, and falls from platforms stay short.
GRAVITY = 25.0
BOUNCE_SPEED = 0.25  # units per step (a fifth of the agent's top speed), as a bounce goal's constant speed
_CONTACT_DISTANCE = 0.02  # a contact closer than this counts as touching
_GROUND_NORMAL = 0.5  # a contact whose normal points up more than this supports the agent (slopes < 60 deg)
_RADIUS = AGENT_DIAMETER / 2
SETTLE_SECONDS = 0.6  # physics run at build time, before the episode starts
SETTLE_REFINE = 4  # settling runs with time steps this many times finer than the episode's
WALL_SETTLE_LIMIT = 4  # walls still moving then get up to this many times longer to come to rest
_AT_REST = 0.05  # units (radians) per second


@dataclass
class StepEvents:
    """What happened to the agent during one step."""

    touched: list[PlacedItem] = field(default_factory=list)  # goals touched (already removed)
    in_death_zone: bool = False
    in_hot_zone: bool = False


@dataclass
class _Bouncer:
    body: int
    direction: tuple[float, float]  # unit (x, y) in pybullet's horizontal plane


class ArenaWorld:
    """A pybullet DIRECT server holding one arena."""

    def __init__(self, physics_substeps: int = 3) -> None:
        if physics_substeps < 1:
            raise ValueError(f"physics_substeps must be at least 1, got {physics_substeps}")
        self.substeps = physics_substeps
        self._settle_steps = max(1, round(SETTLE_SECONDS / (motion.STEP_SECONDS / physics_substeps)))
        self.client = connect()
        self.heading = 0.0
        self.agent = -1
        self.bodies: list[ItemBody] = []
        self._goal_by_body: dict[int, ItemBody] = {}
        self._bouncers: list[_Bouncer] = []
        self._zones: list[tuple[Box, str]] = []
        self._active: dict[int, bool] = {}
        self._grounded = False
        self._position = (0.0, 0.0, 0.0)  # agent base centre, arena coordinates

    # -- building -----------------------------------------------------------------------------

    def build(self, layout: Layout) -> None:
        """Replace whatever was there with ``layout``; the same layout always builds the same world."""
        c = self.client
        p.resetSimulation(physicsClientId=c)
        p.setPhysicsEngineParameter(fixedTimeStep=motion.STEP_SECONDS / self.substeps, numSubSteps=0,
                                    numSolverIterations=10, deterministicOverlappingPairs=1, physicsClientId=c)
        p.setGravity(0, 0, -GRAVITY, physicsClientId=c)
        add_ground(c)
        self.bodies = [add_item(c, item) for item in layout.items]
        self._goal_by_body = {b.body: b for b in self.bodies if b.item.type.is_goal}
        self._active = {b.item.id: True for b in self.bodies}
        self._zones = [(b.item.boxes()[0], b.item.name) for b in self.bodies if b.item.type.kind == "zone"]
        self.agent = add_agent(c, layout.agent.position)
        # Let items placed in the air come to rest before the first frame, with finer time steps: a
        # resting body sinks into its support by about gravity x time step^2 / ERP (0.05 units at
        # the episode's 0.02 s), which would leave walls fixed that deep in the floor.
        p.setPhysicsEngineParameter(fixedTimeStep=motion.STEP_SECONDS / self.substeps / SETTLE_REFINE, physicsClientId=c)
        for _ in range(self._settle_steps * SETTLE_REFINE):
            p.stepSimulation(physicsClientId=c)
        self._fix_walls()
        p.setPhysicsEngineParameter(fixedTimeStep=motion.STEP_SECONDS / self.substeps, physicsClientId=c)
        p.resetBaseVelocity(self.agent, [0, 0, 0], [0, 0, 0], physicsClientId=c)
        self._bouncers = []
        for b in self.bodies:
            if b.item.type.bounce:
                direction = motion.facing(b.item.rotation)
                self._bouncers.append(_Bouncer(b.body, direction))
                speed = BOUNCE_SPEED / motion.STEP_SECONDS
                p.resetBaseVelocity(b.body, [direction[0] * speed, direction[1] * speed, 0], [0, 0, 0],
                                    physicsClientId=c)
        self.heading = layout.agent.rotation % 360.0
        (x, y, z), _ = p.getBasePositionAndOrientation(self.agent, physicsClientId=c)
        self._position = (x, z - _RADIUS, y)
        p.performCollisionDetection(physicsClientId=c)
        contacts = p.getContactPoints(bodyA=self.agent, physicsClientId=c)
        self._grounded = any(self._supports(contact) for contact in contacts)
        logger.debug("built arena: %d items, agent at %s", len(self.bodies), layout.agent.position)

    def _fix_walls(self) -> None:
        """Walls fall into place while the arena settles, then stay where they came to rest.

        Animal-AI's walls are rigid bodies of mass 10000 (100 in v3): they drop under gravity, but
        nothing the agent does moves them. Here the agent is driven by setting its velocity, which
        the solver treats as an unbounded force, so a wall left dynamic would slowly give way when
        the agent keeps pushing; fixing it once it has come to rest keeps both properties.
        """
        c = self.client
        walls = [b.body for b in self.bodies if b.dynamic and b.item.type.kind == "obstacle"]
        extra = 0
        limit = self._settle_steps * SETTLE_REFINE * WALL_SETTLE_LIMIT
        while walls and extra < limit and any(self._moving(w) for w in walls):
            for _ in range(10):
                p.stepSimulation(physicsClientId=c)
            extra += 10
        for body in walls:
            p.changeDynamics(body, -1, mass=0.0, physicsClientId=c)
            p.resetBaseVelocity(body, [0, 0, 0], [0, 0, 0], physicsClientId=c)

    def _moving(self, body: int) -> bool:
        (vx, vy, vz), (wx, wy, wz) = p.getBaseVelocity(body, physicsClientId=self.client)
        return vx * vx + vy * vy + vz * vz > _AT_REST ** 2 or wx * wx + wy * wy + wz * wz > _AT_REST ** 2

    # -- stepping -----------------------------------------------------------------------------

    def step(self, b0: int, b1: int) -> StepEvents:
        """Apply one action ``[b0, b1]`` and run the physics for one step."""
        c = self.client
        self.heading = motion.turn(self.heading, b1)
        (vx, vy, vz), _ = p.getBaseVelocity(self.agent, physicsClientId=c)
        t = motion.STEP_SECONDS
        hx, hz = motion.drive(vx * t, vy * t, self.heading, b0, self._grounded)
        p.resetBaseVelocity(self.agent, [hx / t, hz / t, vz], [0, 0, 0], physicsClientId=c)
        if self._bouncers:
            self._keep_bouncing()
        events = StepEvents()
        # pybullet finds contacts before it moves the bodies, so the list a substep leaves describes
        # the positions before its move. Goals are collected from every substep's list (a pushed goal
        # may already be clear again at the end of the step) and from a list refreshed at the final
        # positions (else a touch made in the last substep would count one step late).
        for _ in range(self.substeps):
            p.stepSimulation(physicsClientId=c)
            if self._goal_by_body:
                self._collect(p.getContactPoints(bodyA=self.agent, physicsClientId=c), events)
        p.performCollisionDetection(physicsClientId=c)
        final = p.getContactPoints(bodyA=self.agent, physicsClientId=c)
        self._collect(final, events)
        self._grounded = any(self._supports(contact) for contact in final)
        for goal in events.touched:
            self._remove(goal)
        (x, y, z), _ = p.getBasePositionAndOrientation(self.agent, physicsClientId=c)
        self._position = (x, z - _RADIUS, y)
        if self._zones:
            centre = (x, z, y)
            for box, name in self._zones:
                if sphere_box_distance(centre, box) < _RADIUS:
                    if name == "DeathZone":
                        events.in_death_zone = True
                    else:
                        events.in_hot_zone = True
        return events

    def _collect(self, contacts: tuple, events: StepEvents) -> None:
        """Mark the goals among ``contacts`` as touched (once each)."""
        for contact in contacts:
            goal = self._goal_by_body.get(contact[2])
            if goal is not None and contact[8] <= _CONTACT_DISTANCE and self._active[goal.item.id]:
                self._active[goal.item.id] = False
                events.touched.append(goal.item)

    @staticmethod
    def _supports(contact: tuple) -> bool:
        """A contact under the agent: close, with its normal (pointing at the agent) mostly upwards."""
        return contact[8] <= _CONTACT_DISTANCE and contact[7][2] > _GROUND_NORMAL

    def _keep_bouncing(self) -> None:
        c = self.client
        speed = BOUNCE_SPEED / motion.STEP_SECONDS
        for bouncer in self._bouncers:
            if not self._active_body(bouncer.body):
                continue
            (vx, vy, vz), _ = p.getBaseVelocity(bouncer.body, physicsClientId=c)
            horizontal = math.hypot(vx, vy)
            if horizontal > 0.2 * speed:
                bouncer.direction = (vx / horizontal, vy / horizontal)
            else:  # stopped against something: go back the way it came
                bouncer.direction = (-bouncer.direction[0], -bouncer.direction[1])
            dx, dy = bouncer.direction
            p.resetBaseVelocity(bouncer.body, [dx * speed, dy * speed, vz], [0, 0, 0], physicsClientId=c)

    def _active_body(self, body: int) -> bool:
        goal = self._goal_by_body.get(body)
        return goal is not None and self._active[goal.item.id]

    def _remove(self, item: PlacedItem) -> None:
        body = next(b for b in self.bodies if b.item.id == item.id)
        p.removeBody(body.body, physicsClientId=self.client)
        self._bouncers = [b for b in self._bouncers if b.body != body.body]

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
            poses[b.item.id] = ((x, z - b.item.size[1] / 2, y), rotation)
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
        except Exception:  # noqa: BLE001 - interpreter shutdown may have torn pybullet down already
            pass
