"""The catalogue of arena items: what each Animal-AI name is, how big, what colour, how it behaves.

Why one table: the config loader (is this name known?), the layout (default sizes, size ranges),
the world builder (shape, mass, colour) and the privileged state (kind, solid, transparent) must all
agree on every item, so each fact is written here once.

Sources. Size ranges are Animal-AI's documented ranges (``definitionsOfObjects.md`` of the
Animal-AI repository; sizes outside them are clamped, as Animal-AI does); goals are spheres whose
diameter is ``size.x`` (y and z are ignored, as documented). Colours: walls grey (153,153,153),
ramps magenta (255,0,255), goals green / gold / red, DeathZone red and HotZone orange, as in the
Animal-AI docs and ``data/README.md``; the cardboard boxes are cardboard brown (Animal-AI draws them
with a cardboard texture; the heavy one darker) and the U/L blocks light grey; only Wall, Ramp and
CylinderTunnel take a colour from the config (the others are "not changeable" in Animal-AI).
Masses: Animal-AI's walls are rigid bodies under gravity too (the v3 Wall prefab has a Rigidbody of
mass 100, 10000 in later versions), so a wall placed in the air falls until something holds it and
a bar laid on two posts of different heights comes to rest sloping (Testbed 02-29 rolls its goals
down such rails); here walls get mass 100 while the arena settles and are then fixed where they
came to rest (``world.ArenaWorld._fix_walls``), since nothing the agent does moves them. Animal-AI's light
block has mass 1 and its heavy block 420; here the agent (mass 1) pushes
by a velocity rule rather than a force, so the heavy block gets a mass (``MASS``) that makes it hard
but possible to push: in 40 forward steps the agent pushes the light block about 22 units and the
heavy one about 5.

Default sizes (used when a config gives fewer sizes than positions) are 1 on every axis, clamped
to the item's range; Animal-AI would draw a random size instead, which makes an arena depend on
the seed in a way the file's author rarely meant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["goal", "obstacle", "zone", "ramp", "movable", "agent"]
Shape = Literal["box", "sphere", "ramp", "tunnel", "u", "l_left", "l_right", "flat"]
RGB = tuple[int, int, int]
Vec = tuple[float, float, float]

AGENT_DIAMETER = 1.0


@dataclass(frozen=True)
class ItemType:
    """Everything the arena needs to know about one Animal-AI item name."""

    name: str
    kind: Kind
    shape: Shape
    size_min: Vec
    size_max: Vec
    color: RGB
    colorable: bool = False  # the config's colour is used (Animal-AI: "Color: RGB range")
    transparent: bool = False  # drawn as its edges only (the renderer has no translucency)
    mass: float = 0.0  # 0 = static
    reward_sign: int = 0  # goals: +1 good, -1 bad
    multi: bool = False  # GoodGoalMulti: does not end the episode unless it is the last good goal
    bounce: bool = False  # moves at a constant speed along its rotation, bouncing off obstacles

    @property
    def solid(self) -> bool:
        return self.kind != "zone"

    @property
    def is_goal(self) -> bool:
        return self.kind == "goal"

    def clamp_size(self, size: Vec) -> Vec:
        """The size Animal-AI would build: each axis clamped to the range; goals are spheres of size.x."""
        if self.shape == "sphere":
            d = min(max(size[0], self.size_min[0]), self.size_max[0])
            return (d, d, d)
        clamped = (min(max(v, lo), hi) for v, lo, hi in zip(size, self.size_min, self.size_max))
        return tuple(clamped)  # type: ignore[return-value]

    def default_size(self) -> Vec:
        return self.clamp_size((1.0, 1.0, 1.0))


_WALL_RANGE = ((0.1, 0.1, 0.1), (40.0, 10.0, 40.0))
_RAMP_RANGE = ((0.5, 0.1, 0.5), (40.0, 10.0, 40.0))
_TUNNEL_RANGE = ((2.5, 2.5, 2.5), (10.0, 10.0, 10.0))
_BLOCK_RANGE = ((0.5, 0.5, 0.5), (10.0, 10.0, 10.0))
_HOLLOW_RANGE = ((1.0, 0.3, 3.0), (5.0, 2.0, 20.0))
_GOAL_RANGE = ((0.5, 0.5, 0.5), (5.0, 5.0, 5.0))
_ZONE_RANGE = ((1.0, 0.5, 1.0), (40.0, 10.0, 40.0))

GREY: RGB = (153, 153, 153)
MAGENTA: RGB = (255, 0, 255)
GLASS: RGB = (190, 215, 235)  # edges of transparent items
GREEN: RGB = (40, 200, 40)
GOLD: RGB = (255, 200, 0)
RED: RGB = (210, 30, 30)
DEATH_RED: RGB = (235, 20, 20)
HOT_ORANGE: RGB = (255, 140, 0)
LIGHT_BLOCK: RGB = (200, 165, 115)  # cardboard
HEAVY_BLOCK: RGB = (150, 112, 72)  # darker cardboard
HOLLOW_BLOCK: RGB = (200, 200, 200)  # light grey

# Masses of dynamic items (the agent has mass 1; see world.py for how it pushes).
MASS = {"goal": 1.0, "light": 1.0, "heavy": 4.0, "hollow": 2.0, "wall": 100.0}


def _goal(name: str, sign: int, color: RGB, multi: bool = False, bounce: bool = False) -> ItemType:
    return ItemType(name, "goal", "sphere", *_GOAL_RANGE, color, mass=MASS["goal"], reward_sign=sign,
                    multi=multi, bounce=bounce)


ITEM_TYPES: dict[str, ItemType] = {
    t.name: t
    for t in (
        ItemType("Agent", "agent", "sphere", (1.0,) * 3, (1.0,) * 3, (0, 0, 0), mass=1.0),
        ItemType("Wall", "obstacle", "box", *_WALL_RANGE, GREY, colorable=True, mass=MASS["wall"]),
        ItemType("WallTransparent", "obstacle", "box", *_WALL_RANGE, GLASS, transparent=True, mass=MASS["wall"]),
        ItemType("Ramp", "ramp", "ramp", *_RAMP_RANGE, MAGENTA, colorable=True),
        ItemType("CylinderTunnel", "obstacle", "tunnel", *_TUNNEL_RANGE, GREY, colorable=True),
        ItemType("CylinderTunnelTransparent", "obstacle", "tunnel", *_TUNNEL_RANGE, GLASS, transparent=True),
        ItemType("Cardbox1", "movable", "box", *_BLOCK_RANGE, LIGHT_BLOCK, mass=MASS["light"]),
        ItemType("Cardbox2", "movable", "box", *_BLOCK_RANGE, HEAVY_BLOCK, mass=MASS["heavy"]),
        ItemType("UObject", "movable", "u", *_HOLLOW_RANGE, HOLLOW_BLOCK, mass=MASS["hollow"]),
        ItemType("LObject", "movable", "l_left", *_HOLLOW_RANGE, HOLLOW_BLOCK, mass=MASS["hollow"]),
        ItemType("LObject2", "movable", "l_right", *_HOLLOW_RANGE, HOLLOW_BLOCK, mass=MASS["hollow"]),
        _goal("GoodGoal", +1, GREEN),
        _goal("GoodGoalBounce", +1, GREEN, bounce=True),
        _goal("GoodGoalMulti", +1, GOLD, multi=True),
        _goal("GoodGoalMultiBounce", +1, GOLD, multi=True, bounce=True),
        _goal("BadGoal", -1, RED),
        _goal("BadGoalBounce", -1, RED, bounce=True),
        ItemType("DeathZone", "zone", "flat", *_ZONE_RANGE, DEATH_RED),
        ItemType("HotZone", "zone", "flat", *_ZONE_RANGE, HOT_ORANGE),
    )
}

# Names later Animal-AI versions use for the same items (v3.1+/v4 docs list them as aliases).
ALIASES: dict[str, str] = {
    "LightBlock": "Cardbox1",
    "CardBox1": "Cardbox1",
    "HeavyBlock": "Cardbox2",
    "CardBox2": "Cardbox2",
    "UBlock": "UObject",
    "LBlock": "LObject",
    "JBlock": "LObject2",
}


# How far above the floor a zone reaches (its trigger volume is [0, this] over its footprint).
# v3.1.3's DeathZone and HotZone are both trigger cubes scaled to their (0.999-adjusted) size and
# centred 0.15 below the floor whatever y the file gives (Rewards/DeathZone.cs and HotZone.cs:
# ``AdjustY`` returns -0.15; ``SetSize`` scales y by the size), while the floor's top is at -0.01
# (AAI3Arena.prefab: Ground at y -0.51, 1 high). So a zone of y size h rises h / 2 - 0.14 above the
# floor everything rests on: 1.36 for the h = 3 (2.997 built) of Testbed 04-13, 0.11 for the smallest
# (h = 0.5), which is higher than a 0.1 wall lying on the floor (so in v3.1.3 the bridge of Testbed
# 04-22 does not save the agent; see docs/arena-fidelity.md).
ZONE_CENTRE_Y = -0.15  # Rewards/DeathZone.cs, HotZone.cs: AdjustY
FLOOR_TOP_Y = -0.01  # AAI3Arena.prefab: Ground m_LocalPosition.y -0.51, scale y 1
MIN_ZONE_TOP = 0.001  # keeps a zone's trigger above the floor whatever the size


def zone_height(name: str, size_y: float) -> float:
    """Height above the floor of the zone ``name`` given the y of its size as built."""
    return max(size_y / 2 + ZONE_CENTRE_Y - FLOOR_TOP_Y, MIN_ZONE_TOP)


def canonical_name(name: str) -> str | None:
    """The catalogue name for ``name`` (aliases resolved), or None when the item is unknown."""
    if name in ITEM_TYPES:
        return name
    return ALIASES.get(name)


def known_names() -> list[str]:
    return list(ITEM_TYPES)
