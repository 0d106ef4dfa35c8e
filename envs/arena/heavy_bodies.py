"""Walls and ramps: dynamic as in Animal-AI, held still by the world while nothing under them moves.

Why: Animal-AI's walls (mass 10000, ``Immoveable/Wall.prefab``) and ramps (mass 1000,
``Immoveable/Ramp.prefab``) are ordinary rigid bodies. They fall onto what holds them, come to rest,
and fall again if what holds them goes away; the agent (mass 100, a drive of 5000 N) cannot shift a
wall, whose floor friction resists with 0.6 x 98,100 N. Bullet keeps a resting box on as few as two
contact points, and keeps its corners rounded by the collision margin, so a thin wall left dynamic
topples under a push of about 1000 N: measured on a 10 x 2 x 0.1 wall (PhysX holds it up to the
9,810 N its own weight gives). So each heavy body runs as a dynamic body until it has come to rest,
is then pinned where it lies (mass 0 in Bullet: what the agent does cannot move it), and is let go
again as soon as a movable body it rests on moves or disappears (a wall laid on a box that is pushed
away falls, as in Unity). Pinned bodies that rest on each other release in a chain: a released body
moves, and what it holds sees it move.

Bullet cannot stack 10000 on 1: a wall slab laid on four 1 kg cardboard boxes (Testbed 06-08, 03-26,
03-27) crushes them into the floor (0.6-0.95 in 30 steps, measured), where PhysX's boxes carry it. A
box or goal carrying a heavy body cannot be moved by anything in the arena either (a 10000 kg wall
presses it with 0.425 x 98,100 N of friction), so the movable bodies a falling heavy body lands on are
pinned with it as its carriers, and let go with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentkit.envs.pybullet_support.bullet import p

AT_REST = 0.05  # units (radians) per second: slower than this counts as at rest
SUPPORT_NORMAL = 0.1  # a contact normal with more upward part than this holds the body up
PIN_AFTER = 5  # consecutive physics updates at rest before a heavy body is pinned (0.1 s)


@dataclass
class HeavyBody:
    """One wall or ramp: its mass and inertia to restore when let go, and what it rests on."""

    body: int
    mass: float
    inertia: tuple[float, float, float] = (0.0, 0.0, 0.0)
    pinned: bool = False
    at_rest: int = 0  # consecutive updates at rest while dynamic
    supports: frozenset[int] = field(default_factory=frozenset)  # movable bodies it lay on when pinned
    carriers: set[int] = field(default_factory=set)  # movable bodies pinned because it lies on them


class HeavyBodies:
    """The heavy bodies of one arena; ``update`` after each physics update says which changed state."""

    def __init__(self, client: int) -> None:
        self.client = client
        self._bodies: dict[int, HeavyBody] = {}
        self._carried: dict[int, tuple[float, tuple[float, float, float]]] = {}  # carrier -> mass, inertia

    def add(self, body: int, mass: float) -> None:
        inertia = p.getDynamicsInfo(body, -1, physicsClientId=self.client)[2]
        self._bodies[body] = HeavyBody(body, mass, tuple(inertia))

    def is_pinned(self, body: int) -> bool:
        heavy = self._bodies.get(body)
        return heavy is not None and heavy.pinned

    def update(self, movable: set[int], gone: set[int]) -> tuple[list[int], list[int]]:
        """Pin the bodies that have come to rest; let go of those whose support moved or went.

        ``movable``: the bodies that can move now (not pinned, not static); ``gone``: bodies removed
        from the world. Returns (pinned now, released now).
        """
        pinned: list[int] = []
        released: list[int] = []
        for heavy in self._bodies.values():
            if heavy.pinned:
                lost = heavy.carriers & gone  # a goal it lay on was collected
                if lost or any(s in gone or (s in movable and self._moving(s)) for s in heavy.supports):
                    self._release(heavy)
                    released.append(heavy.body)
                    released.extend(self._drop_carriers(heavy, gone))
                continue
            for carrier in self._bodies_below(heavy.body):
                if carrier in movable and carrier not in self._bodies and carrier not in self._carried:
                    self._pin_carrier(carrier)
                    heavy.carriers.add(carrier)
                    pinned.append(carrier)
            heavy.at_rest = heavy.at_rest + 1 if not self._moving(heavy.body) else 0
            if heavy.at_rest >= PIN_AFTER:
                self._pin(heavy, movable)
                pinned.append(heavy.body)
        return pinned, released

    def _resting_contacts(self, body: int) -> list[tuple]:
        """``body``'s contacts with what it rests on: their normal (on the other body, towards
        ``body``) points up; a body lying on top of it or leaning on its side does not count."""
        return [
            contact
            for contact in p.getContactPoints(bodyA=body, physicsClientId=self.client)
            if contact[7][2] > SUPPORT_NORMAL
        ]

    def _bodies_below(self, body: int) -> set[int]:
        return {contact[2] for contact in self._resting_contacts(body)}

    def _pin_carrier(self, body: int) -> None:
        c = self.client
        mass, _, inertia = p.getDynamicsInfo(body, -1, physicsClientId=c)[:3]
        self._carried[body] = (mass, tuple(inertia))
        p.changeDynamics(body, -1, mass=0.0, physicsClientId=c)
        p.resetBaseVelocity(body, [0, 0, 0], [0, 0, 0], physicsClientId=c)

    def _drop_carriers(self, heavy: HeavyBody, gone: set[int]) -> list[int]:
        """Let go of the carriers no other pinned heavy body still lies on."""
        still = {c for other in self._bodies.values() if other is not heavy for c in other.carriers}
        freed = []
        for carrier in heavy.carriers - still:
            mass, inertia = self._carried.pop(carrier)
            if carrier not in gone:
                p.changeDynamics(
                    carrier, -1, mass=mass, localInertiaDiagonal=list(inertia), physicsClientId=self.client
                )
                freed.append(carrier)
        heavy.carriers = set()
        return freed

    def _moving(self, body: int) -> bool:
        (vx, vy, vz), (wx, wy, wz) = p.getBaseVelocity(body, physicsClientId=self.client)
        return vx * vx + vy * vy + vz * vz > AT_REST**2 or wx * wx + wy * wy + wz * wz > AT_REST**2

    def _pin(self, heavy: HeavyBody, movable: set[int]) -> None:
        c = self.client
        p.performCollisionDetection(physicsClientId=c)
        resting = self._resting_contacts(heavy.body)  # what holds it up
        below = {contact[2] for contact in resting}
        heavy.supports = frozenset(
            b
            for b in below
            if b in movable or b in self._bodies or (b in self._carried and b not in heavy.carriers)
        )
        heavy.pinned = True
        heavy.at_rest = 0
        p.changeDynamics(heavy.body, -1, mass=0.0, physicsClientId=c)
        p.resetBaseVelocity(heavy.body, [0, 0, 0], [0, 0, 0], physicsClientId=c)
        # Bullet lets a resting body sink into its support (about a hundredth of a unit for a ramp on a
        # wall); PhysX rests it on the surface. Lift it out before pinning it there.
        sunk = max((-contact[8] for contact in resting), default=0.0)
        if sunk > 0.0:
            position, orientation = p.getBasePositionAndOrientation(heavy.body, physicsClientId=c)
            lifted = [position[0], position[1], position[2] + sunk]
            p.resetBasePositionAndOrientation(heavy.body, lifted, orientation, physicsClientId=c)

    def _release(self, heavy: HeavyBody) -> None:
        heavy.pinned = False
        heavy.supports = frozenset()
        p.changeDynamics(
            heavy.body,
            -1,
            mass=heavy.mass,
            localInertiaDiagonal=list(heavy.inertia),
            physicsClientId=self.client,
        )
