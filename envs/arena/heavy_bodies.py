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


class HeavyBodies:
    """The heavy bodies of one arena; ``update`` after each physics update says which changed state."""

    def __init__(self, client: int) -> None:
        self.client = client
        self._bodies: dict[int, HeavyBody] = {}

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
                if any(s in gone or (s in movable and self._moving(s)) for s in heavy.supports):
                    self._release(heavy)
                    released.append(heavy.body)
                continue
            heavy.at_rest = heavy.at_rest + 1 if not self._moving(heavy.body) else 0
            if heavy.at_rest >= PIN_AFTER:
                self._pin(heavy, movable)
                pinned.append(heavy.body)
        return pinned, released

    def _moving(self, body: int) -> bool:
        (vx, vy, vz), (wx, wy, wz) = p.getBaseVelocity(body, physicsClientId=self.client)
        return vx * vx + vy * vy + vz * vz > AT_REST**2 or wx * wx + wy * wy + wz * wz > AT_REST**2

    def _pin(self, heavy: HeavyBody, movable: set[int]) -> None:
        c = self.client
        p.performCollisionDetection(physicsClientId=c)
        # what holds it up: bodies whose contact normal (on them, towards this body) points up; a goal
        # or a box lying on top of a wall, or leaning on its side, does not hold it
        below = {
            contact[2]
            for contact in p.getContactPoints(bodyA=heavy.body, physicsClientId=c)
            if contact[7][2] > SUPPORT_NORMAL
        }
        heavy.supports = frozenset(b for b in below if b in movable or b in self._bodies)
        heavy.pinned = True
        heavy.at_rest = 0
        p.changeDynamics(heavy.body, -1, mass=0.0, physicsClientId=c)
        p.resetBaseVelocity(heavy.body, [0, 0, 0], [0, 0, 0], physicsClientId=c)

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
