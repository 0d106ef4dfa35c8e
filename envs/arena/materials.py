"""Masses, friction and damping of the arena's bodies, per Animal-AI version, as pybullet parameters.

Why a module of its own: Unity (PhysX) and pybullet (Bullet) combine materials differently, so the
numbers given to pybullet are not the prefab's numbers but the ones that make each contact that
matters behave as in Animal-AI:

* Unity averages the friction of two materials (``frictionCombine: 0``), Bullet multiplies them. The
  static surfaces (floor, fence, walls, ramps, tunnels) get friction 1 here, so a moving body on them
  slides with its own number, which is set to the Unity average of its material and the default one
  (0.6): goals and U/L blocks 0.6, cardboard boxes (``LowFriction.physicMaterial``, 0.25) 0.425.
  The agent gets friction 0 in Bullet: ``world.py`` applies its Coulomb friction itself, from its
  contacts, exactly as PhysX would for the agent's default material (see ``motion.py``).
* No material in the v3.1.3 arena bounces (default bounciness 0; ``BounceBall.physicMaterial`` is used
  by no prefab), so every restitution is 0.
* Unity's drag multiplies a velocity by ``1 - drag x dt`` each 0.02 s update; Bullet multiplies by
  ``(1 - damping) ^ dt``. ``bullet_damping`` converts one into the other. Goals and blocks have drag 0
  and angular drag 0.05 (their prefabs); the agent's drag is applied by ``world.py`` (so 0 here).

* Walls and ramps have no material of their own (``m_Material: {fileID: 0}``: Unity's default, 0.6)
  and are dynamic bodies. They get Bullet friction 1 like the static surfaces (``set_heavy``), so a
  goal resting on a wall slides with 0.6 and a cardboard box with 0.425, as Unity's averages give;
  Bullet's product would give 0.36 and 0.255 with the default's 0.6 on the wall.

Masses (the prefabs' ``Rigidbody.m_Mass``): v3.1.3 Cardbox1 1, Cardbox2 2, UObject/LObject/LObject2 1.5,
goals 1, walls 10000, ramps 1000, the agent 100; v4.1.0 LightBlock 220, HeavyBlock 420, U/L/J blocks
180, HollowBox 500. Walls and ramps stay dynamic for the whole episode (``world.py``).
"""

from __future__ import annotations

from agentkit.envs.animalai_common.items import ITEM_TYPES, MASS
from agentkit.envs.animalai_common.motion import (
    AGENT_MASS,
    DEFAULT_FRICTION,
    LOW_FRICTION,
    PHYSICS_DT,
    combined_friction,
)
from agentkit.envs.animalai_common.versions import AAI_VERSIONS, DEFAULT_VERSION  # noqa: F401  (re-exported)
from agentkit.envs.pybullet_support.bullet import p

STATIC_FRICTION_BULLET = 1.0  # see the module docstring: Bullet multiplies, so the mover's number decides
ANGULAR_DRAG = 0.05  # goals' and blocks' prefabs: Rigidbody m_AngularDrag
MAX_ANGULAR_VELOCITY = 7.0  # Unity's default Rigidbody.maxAngularVelocity (rad/s)

# v4.1.0's block masses (Moveable/LightBlock, HeavyBlock, UBlock, LBlock, JBlock, HollowBox.prefab:
# m_Mass), by our item name (aliases are resolved to these names). Everything else weighs in v4.1.0
# what v3.1.3's prefab says, which the catalogue holds (``items.MASS``).
V4_MASSES = {
    "Cardbox1": 220.0,
    "Cardbox2": 420.0,
    "UObject": 180.0,
    "LObject": 180.0,
    "LObject2": 180.0,
    "HollowBox": 500.0,
}
WALL_MASS = MASS["wall"]  # Immoveable/Wall.prefab, WallTransparent.prefab: m_Mass (both versions)
_LOW_FRICTION_ITEMS = frozenset({"Cardbox1", "Cardbox2"})


def check_version(version: str) -> str:
    if version not in AAI_VERSIONS:
        raise ValueError(f"aai_version must be one of {', '.join(AAI_VERSIONS)}; got {version!r}")
    return version


def bullet_damping(unity_drag: float, dt: float = PHYSICS_DT) -> float:
    """Bullet's damping coefficient that keeps the same fraction of a velocity per ``dt`` as Unity's drag."""
    kept = max(0.0, 1.0 - unity_drag * dt)
    return 1.0 - kept ** (1.0 / dt)


def item_mass(name: str, version: str) -> float:
    """The mass of a dynamic item in ``version`` (the catalogue's v3.1.3 mass unless v4.1.0 changed it)."""
    if version == "4.1.0" and name in V4_MASSES:
        return V4_MASSES[name]
    return ITEM_TYPES[name].mass


def item_friction(name: str) -> float:
    """Friction of a moving item against a static surface (the Unity average with the default material)."""
    own = LOW_FRICTION if name in _LOW_FRICTION_ITEMS else DEFAULT_FRICTION
    return combined_friction(own, DEFAULT_FRICTION)


def set_static(client: int, body: int) -> None:
    p.changeDynamics(
        body,
        -1,
        lateralFriction=STATIC_FRICTION_BULLET,
        restitution=0.0,
        rollingFriction=0.0,
        spinningFriction=0.0,
        physicsClientId=client,
    )


def set_dynamic(client: int, body: int, name: str, mass: float) -> None:
    _set_moving(client, body, mass, item_friction(name))


def set_heavy(client: int, body: int, mass: float) -> None:
    """A wall or a ramp: dynamic and heavy, with the default material (Bullet friction as a static
    surface's: see the module docstring) and the prefabs' angular drag (``m_AngularDrag`` 0.05)."""
    _set_moving(client, body, mass, STATIC_FRICTION_BULLET)


def _set_moving(client: int, body: int, mass: float, friction: float) -> None:
    """A body that moves: its mass and Bullet friction, no bounce, no rolling or spinning friction,
    no linear drag and the prefabs' angular drag."""
    p.changeDynamics(
        body,
        -1,
        mass=mass,
        lateralFriction=friction,
        restitution=0.0,
        rollingFriction=0.0,
        spinningFriction=0.0,
        linearDamping=0.0,
        angularDamping=bullet_damping(ANGULAR_DRAG),
        physicsClientId=client,
    )


def set_agent(client: int, body: int) -> None:
    p.changeDynamics(
        body,
        -1,
        mass=AGENT_MASS,
        lateralFriction=0.0,
        restitution=0.0,
        rollingFriction=0.0,
        spinningFriction=0.0,
        linearDamping=0.0,
        angularDamping=0.0,
        physicsClientId=client,
    )
