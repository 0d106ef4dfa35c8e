"""The catalogue of arena items: what each Animal-AI name is, how big, what colour, how it behaves.

Why one table: the config loader (is this name known?), the layout (default sizes, size ranges),
the world builder (shape, mass, colour) and the privileged state (kind, solid, transparent) must all
agree on every item, so each fact is written here once.

The names are those of Animal-AI v3.1.3's scene (the 28 prefabs of ``AAI3Arena.prefab``'s
``allPrefabs``: the agent, walls, ramps, tunnels, boxes, U/L objects, the six ball goals, the two
zones, Decay/AntiDecay/Grow/Shrink goals, the three spawners, the sign and the button) plus the
v4.1.0-only DataZone and decoys; ``ALIASES`` maps the v4.1.0 names (LightBlock, RipenGoal,
SignBoard, SpawnerButton, ...) onto them. ``aai_version`` decides how an item behaves where the
versions differ (masses: ``materials.py``; defaults of the changing goals: ``goal_changes.py``).

Sources. Size ranges are the prefabs' ``sizeMin``/``sizeMax`` (the same numbers as
``definitionsOfObjects.md`` of the Animal-AI repository; sizes outside them are clamped, as Animal-AI
does); goals are spheres whose diameter is ``size.x`` (y and z are ignored, as documented). Colours:
walls grey (153,153,153), ramps magenta (255,0,255), goals green / gold / red, DeathZone red and
HotZone orange, as in the Animal-AI docs and ``data/README.md``; the cardboard boxes are cardboard
brown (Animal-AI draws them with a cardboard texture; the heavy one darker) and the U/L blocks light
grey; only Wall, Ramp and CylinderTunnel take a colour from the config (the others are "not
changeable" in Animal-AI; a sign's colour is its symbol's, ``signboards.py``). Masses and frictions
are in ``materials.py``. Items made from a fixed model (spawners, the button, the sign) carry the
model's size (``base_size``), measured from the v3.1.3 meshes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

Kind = Literal["goal", "obstacle", "zone", "ramp", "movable", "agent"]
Shape = Literal[
    "box",
    "sphere",
    "ramp",
    "tunnel",
    "u",
    "l_left",
    "l_right",
    "flat",
    "tree",
    "dispenser",
    "container",
    "button",
    "sign",
]
# What an item does besides being there; each behaviour lives in a module of its own:
# decay/ripen/grow/shrink in goal_changes.py, tree/dispenser/container in spawners.py, button in
# buttons.py, sign in signboards.py, data_zone in data_zones.py.
Behaviour = Literal[
    "plain",
    "decay",
    "ripen",
    "grow",
    "shrink",
    "tree",
    "dispenser",
    "container",
    "button",
    "sign",
    "data_zone",
    "decoy",
]
RGB = tuple[int, int, int]
Vec = tuple[float, float, float]

AGENT_DIAMETER = 1.0
BOTH_VERSIONS = ("3.1.3", "4.1.0")
V4_ONLY = ("4.1.0",)


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
    transparent: bool = False  # glass: drawn translucent (Transparent.mat, alpha 0.416; camera.py)
    mass: float = 0.0  # 0 = static
    reward_sign: int = 0  # goals: +1 good, -1 bad
    multi: bool = False  # GoodGoalMulti: does not end the episode unless it is the last good goal
    bounce: bool = False  # moves at a constant speed along its rotation, bouncing off obstacles
    behaviour: Behaviour = "plain"
    # Items built from a fixed model: the file's size is a scale factor (clamped to size_min..size_max)
    # on this model size (SignPosterboard), or ignored (spawners and the button: their range is 1..1).
    base_size: Vec | None = None
    rotation_range: tuple[float, float] = (0.0, 360.0)  # Prefab.rotationRange: where a -1 rotation is drawn
    versions: tuple[str, ...] = BOTH_VERSIONS  # the Animal-AI versions whose scene lists this prefab

    @property
    def solid(self) -> bool:
        return self.kind != "zone"

    @property
    def is_goal(self) -> bool:
        return self.kind == "goal"

    @property
    def changes(self) -> bool:
        """A goal whose reward or size changes over time (goal_changes.py)."""
        return self.behaviour in ("decay", "ripen", "grow", "shrink")

    def model_size(self, scale: Vec) -> Vec:
        """The built size of an item made from a fixed model, given its (clamped, 0.999-adjusted) scale."""
        if self.base_size is None:
            return scale
        return (self.base_size[0] * scale[0], self.base_size[1] * scale[1], self.base_size[2] * scale[2])


_WALL_RANGE = ((0.1, 0.1, 0.1), (40.0, 10.0, 40.0))
_RAMP_RANGE = ((0.5, 0.1, 0.5), (40.0, 10.0, 40.0))
_TUNNEL_RANGE = ((2.5, 2.5, 2.5), (10.0, 10.0, 10.0))
_BLOCK_RANGE = ((0.5, 0.5, 0.5), (10.0, 10.0, 10.0))
_HOLLOW_RANGE = ((1.0, 0.3, 3.0), (5.0, 2.0, 20.0))
_GOAL_RANGE = ((0.5, 0.5, 0.5), (5.0, 5.0, 5.0))
_ZONE_RANGE = ((1.0, 0.5, 1.0), (40.0, 10.0, 40.0))
_DATA_ZONE_RANGE = ((1.0, 0.5, 1.0), (30.0, 10.0, 30.0))  # v4.1.0 DataZone.prefab: sizeMin, sizeMax
_UNIT_RANGE = ((1.0, 1.0, 1.0), (1.0, 1.0, 1.0))  # spawners, button: the size is fixed (sizeMin = sizeMax)
_SIGN_RANGE = ((0.5, 0.5, 0.5), (2.5, 2.5, 2.5))  # SignPosterboard.prefab: sizeMin, sizeMax (a scale)
# Decay/AntiDecay goals take their size from their reward values (0..5, DecayGoal.Awake: sizeMax 5);
# Grow/Shrink goals from their size values (0..8, SizeChangeGoal.Start: sizeMax 8). The range here only
# bounds what the layout tests for free space; goal_changes.py decides the size.
_DECAY_RANGE = ((0.0, 0.0, 0.0), (5.0, 5.0, 5.0))
_SIZE_CHANGE_RANGE = ((0.0, 0.0, 0.0), (8.0, 8.0, 8.0))

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
DECAY_PURPLE: RGB = (142, 0, 255)  # DecayGoal.prefab initialColour (0.555, 0, 1): the fresh end of the decay
DECAY_GREY: RGB = (100, 100, 100)  # DecayGoal.prefab finalColour (0.392, 0.392, 0.392): fully decayed
TREE_GREEN: RGB = (70, 140, 60)
TREE_BROWN: RGB = (120, 85, 55)
SPAWNER_BLUE: RGB = (0, 201, 255)  # SpawnerDispenser.prefab: colourOverride (0, 0.788, 1)
PILLAR_YELLOW: RGB = (222, 224, 134)  # Pieces/Material-forModularPieces.mat: _BaseColor (0.870, 0.877, 0.527)
BOARD_WHITE: RGB = (237, 232, 237)  # Meshes-Models/Materials/board_front_white.mat: _BaseColor
DATA_ZONE_BLUE: RGB = (90, 160, 255)
DECOY_GREY: RGB = (170, 170, 170)

# Model sizes (x, y, z) of the items built from a fixed mesh, read from the v3.1.3 meshes' bounds
# (Meshes-Models/*.fbx) and the prefabs' colliders; the docs give the same numbers
# ("fixed size: dimensions 5.19 x 5.95 x 5.02" for the tree, 1.67 x 4.46 x 1.67 the dispenser,
# 1.67 x 1.67 x 1.67 the container). Each is built at Prefab.sizeAdjustement (0.999) of this.
TREE_SIZE: Vec = (5.19, 5.952, 5.022)  # custom_tree.fbx: x -2.875..2.315, y -0.010..5.942, z -2.623..2.399
DISPENSER_SIZE: Vec = (1.672, 4.464, 1.672)  # spawner-dispenser/dispenser.fbx: x, z +-0.836, y -0.032..4.432
CONTAINER_SIZE: Vec = (1.672, 1.667, 1.672)  # spawner-container/spawner-container.fbx: y -0.035..1.632
SIGN_SIZE: Vec = (0.1, 2.0, 3.0)  # SignPosterboard.prefab: BoxCollider m_Size (posterboard.fbx: same bounds)
# Pillar-Button: pillar3.fbx (1 x 1 x 4 mesh units) and cube6.fbx under the prefab's root scale
# (Prefab.SetSize: sizeMin 80 x sizeAdjustement 0.999 x ratioSize 0.5 = 39.96 mesh units). The box
# Animal-AI tests for free space spans the pillar, its panel, the button and the trigger in front of
# it: x -0.375..0.4, y 0..1.6, z -0.162..0.570 around the item's position (see geometry.button_parts).
BUTTON_SIZE: Vec = (0.775, 1.598, 0.732)

# Rigidbody masses of v3.1.3's prefabs (m_Mass): Rewards/*Goal*.prefab 1, Moveable/Cardbox1.prefab 1,
# Cardbox2.prefab 2, UObject/LObject/LObject2.prefab 1.5, Immoveable/Wall(Transparent).prefab 10000,
# Immoveable/Ramp.prefab 1000 (not kinematic, gravity on: it falls onto what holds it).
# v4.1.0's differ for the blocks (``materials.V4_MASSES``); the agent's is ``motion.AGENT_MASS``.
MASS = {"goal": 1.0, "light": 1.0, "heavy": 2.0, "hollow": 1.5, "wall": 10000.0, "ramp": 1000.0}
_FIXED = (0.0, 0.0)  # rotationRange (0, 0): a -1 rotation is 0


def _goal(
    name: str,
    sign: int,
    color: RGB,
    multi: bool = False,
    bounce: bool = False,
    behaviour: Behaviour = "plain",
    size_range: tuple[Vec, Vec] = _GOAL_RANGE,
    rotation_range: tuple[float, float] = (0.0, 360.0),
    versions: tuple[str, ...] = BOTH_VERSIONS,
) -> ItemType:
    return ItemType(
        name,
        "goal",
        "sphere",
        *size_range,
        color,
        mass=MASS["goal"],
        reward_sign=sign,
        multi=multi,
        bounce=bounce,
        behaviour=behaviour,
        rotation_range=rotation_range,
        versions=versions,
    )


def _fixed_model(
    name: str,
    shape: Shape,
    behaviour: Behaviour,
    size: Vec,
    color: RGB,
    size_range: tuple[Vec, Vec] = _UNIT_RANGE,
    colorable: bool = False,
) -> ItemType:
    return ItemType(
        name,
        "obstacle",
        shape,
        *size_range,
        color,
        colorable=colorable,
        behaviour=behaviour,
        base_size=size,
        rotation_range=_FIXED,
    )


# Names: the v3.1.3 scene's prefab list (AAI3Arena.prefab: TrainingArena.prefabs.allPrefabs, 28 names,
# the agent included) are the catalogue's names; later names are aliases (ALIASES) or v4-only items.
# rotation_range: each prefab's rotationRange (goals that do not bounce, signs, spawners and the
# button have (0, 0): a -1 rotation gives 0).
ITEM_TYPES: dict[str, ItemType] = {
    t.name: t
    for t in (
        ItemType("Agent", "agent", "sphere", (1.0,) * 3, (1.0,) * 3, (0, 0, 0), mass=1.0),
        ItemType("Wall", "obstacle", "box", *_WALL_RANGE, GREY, colorable=True, mass=MASS["wall"]),
        ItemType(
            "WallTransparent", "obstacle", "box", *_WALL_RANGE, GLASS, transparent=True, mass=MASS["wall"]
        ),
        ItemType("Ramp", "ramp", "ramp", *_RAMP_RANGE, MAGENTA, colorable=True, mass=MASS["ramp"]),
        ItemType("CylinderTunnel", "obstacle", "tunnel", *_TUNNEL_RANGE, GREY, colorable=True),
        ItemType("CylinderTunnelTransparent", "obstacle", "tunnel", *_TUNNEL_RANGE, GLASS, transparent=True),
        ItemType("Cardbox1", "movable", "box", *_BLOCK_RANGE, LIGHT_BLOCK, mass=MASS["light"]),
        ItemType("Cardbox2", "movable", "box", *_BLOCK_RANGE, HEAVY_BLOCK, mass=MASS["heavy"]),
        ItemType("UObject", "movable", "u", *_HOLLOW_RANGE, HOLLOW_BLOCK, mass=MASS["hollow"]),
        ItemType("LObject", "movable", "l_left", *_HOLLOW_RANGE, HOLLOW_BLOCK, mass=MASS["hollow"]),
        ItemType("LObject2", "movable", "l_right", *_HOLLOW_RANGE, HOLLOW_BLOCK, mass=MASS["hollow"]),
        _goal("GoodGoal", +1, GREEN, rotation_range=_FIXED),
        _goal("GoodGoalBounce", +1, GREEN, bounce=True),
        _goal("GoodGoalMulti", +1, GOLD, multi=True),
        _goal("GoodGoalMultiBounce", +1, GOLD, multi=True, bounce=True),
        _goal("BadGoal", -1, RED, rotation_range=_FIXED),
        _goal("BadGoalBounce", -1, RED, bounce=True),
        ItemType("DeathZone", "zone", "flat", *_ZONE_RANGE, DEATH_RED),
        ItemType("HotZone", "zone", "flat", *_ZONE_RANGE, HOT_ORANGE),
        # Goals whose reward or size changes (Rewards/DecayGoal.prefab, AntiDecayGoal.prefab: DecayGoal.cs;
        # GrowGoal.prefab, ShrinkGoal.prefab: SizeChangeGoal.cs). All are "multi": they end the episode
        # only as the last good goal, and count among the good goals.
        _goal(
            "DecayGoal",
            +1,
            DECAY_PURPLE,
            multi=True,
            behaviour="decay",
            size_range=_DECAY_RANGE,
            rotation_range=_FIXED,
        ),
        _goal(
            "AntiDecayGoal",
            +1,
            DECAY_GREY,
            multi=True,
            behaviour="ripen",
            size_range=_DECAY_RANGE,
            rotation_range=_FIXED,
        ),
        _goal("GrowGoal", +1, GOLD, multi=True, behaviour="grow", size_range=_SIZE_CHANGE_RANGE),
        _goal("ShrinkGoal", +1, GOLD, multi=True, behaviour="shrink", size_range=_SIZE_CHANGE_RANGE),
        # Spawners (Spawners/SpawnerTree.prefab: GoalSpawner.cs; SpawnerDispenser/Container.prefab:
        # SpawnerStockpiler.cs) and the unique objects (Other-Unique/SignPosterboard.prefab,
        # Modular-Pieces/Pillar-Button.prefab: Spawner_InteractiveButton.cs).
        _fixed_model("SpawnerTree", "tree", "tree", TREE_SIZE, TREE_GREEN),
        _fixed_model("SpawnerDispenser", "dispenser", "dispenser", DISPENSER_SIZE, SPAWNER_BLUE),
        replace(
            _fixed_model("SpawnerContainer", "container", "container", CONTAINER_SIZE, SPAWNER_BLUE),
            transparent=True,
        ),  # "a small transparent container" (definitionsOfObjects.md)
        _fixed_model("SignPosterboard", "sign", "sign", SIGN_SIZE, BOARD_WHITE, size_range=_SIGN_RANGE),
        _fixed_model("Pillar-Button", "button", "button", BUTTON_SIZE, PILLAR_YELLOW),
        # v4.1.0 only (its scene's prefab list): a trigger that records the agent's visits, and decoys
        # (reward 0; Rewards/DecoyGoal.prefab, DecoyGoalBounce.prefab). Loaded with any aai_version.
        ItemType(
            "DataZone",
            "zone",
            "flat",
            *_DATA_ZONE_RANGE,
            DATA_ZONE_BLUE,
            behaviour="data_zone",
            versions=V4_ONLY,
        ),
        _goal(
            "DecoyGoal", 0, DECOY_GREY, multi=True, behaviour="decoy", rotation_range=_FIXED, versions=V4_ONLY
        ),
        _goal("DecoyGoalBounce", 0, DECOY_GREY, multi=True, bounce=True, behaviour="decoy", versions=V4_ONLY),
    )
}

# Names other Animal-AI versions and docs use for the same prefabs. v4.1.0's own table
# (YAMLclasses.cs: AliasMapper) maps the v3 names to v4 ones; here it is read the other way, plus the
# docs' spellings (CardBox1/2, SpawnerDispenserShort) and v4.1.0's "episode-ending" decay variants,
# whose prefabs differ from the plain ones only in name and colour (both keep isMulti 1).
ALIASES: dict[str, str] = {
    "LightBlock": "Cardbox1",
    "CardBox1": "Cardbox1",
    "HeavyBlock": "Cardbox2",
    "CardBox2": "Cardbox2",
    "UBlock": "UObject",
    "LBlock": "LObject",
    "JBlock": "LObject2",
    "RipenGoal": "AntiDecayGoal",
    "RipenGoalEpEnding": "AntiDecayGoal",
    "DecayGoalEpEnding": "DecayGoal",
    "SpawnerDispenserTall": "SpawnerDispenser",
    "SpawnerContainerShort": "SpawnerContainer",
    "SpawnerDispenserShort": "SpawnerContainer",
    "SignBoard": "SignPosterboard",
    "SpawnerButton": "Pillar-Button",
}

# Names of items later Animal-AI versions added (Unity project, AAI3Arena.prefab allPrefabs at tag
# v4.2.0-base: BadGoalMulti, DecoyGoalMulti, HollowBox; the docs' Arena-Objects.yaml of 2025 adds
# BadGoalMultiBounce, DecayGoalBounce). v3.1.3 and v4.1.0 do not know them and, like any name they do
# not know, leave them out of the arena (ArenasParameters.SetGameObject finds no prefab); the loader
# does the same, with a warning, instead of refusing the file as it refuses a misspelt name.
LATER_VERSION_NAMES: dict[str, str] = {
    "BadGoalMulti": "4.2.0",
    "DecoyGoalMulti": "4.2.0",
    "HollowBox": "4.2.0",
    "BadGoalMultiBounce": "4.3",
    "DecayGoalBounce": "4.3",
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
    if name == "DataZone":  # DataZone.prefab keeps Prefab.AdjustY: its whole height stands on the floor
        return size_y
    return max(size_y / 2 + ZONE_CENTRE_Y - FLOOR_TOP_Y, MIN_ZONE_TOP)


# The goals a Pillar-Button / SpawnerButton can spawn: the prefabs under Assets/Resources, which
# Spawner_InteractiveButton loads by name (Resources.Load); any other name spawns nothing.
BUTTON_REWARDS: dict[str, tuple[str, ...]] = {
    "3.1.3": (
        "GoodGoal",
        "GoodGoalBounce",
        "GoodGoalMulti",
        "GoodGoalMultiBounce",
        "BadGoal",
        "BadGoalBounce",
    ),
    "4.1.0": (
        "GoodGoal",
        "GoodGoalBounce",
        "GoodGoalMulti",
        "GoodGoalMultiBounce",
        "BadGoal",
        "BadGoalBounce",
        "DecoyGoal",
        "DecoyGoalBounce",
        "DecoyGoalMulti",
        "GrowGoal",
        "RipenGoal",
        "ShrinkGoal",
    ),
}


def version_names(version: str) -> tuple[str, ...]:
    """The names an Animal-AI ``version`` itself knows: its scene's prefabs and, for 4.1.0, the old
    names its AliasMapper accepts."""
    v4 = {
        "Cardbox1": "LightBlock",
        "Cardbox2": "HeavyBlock",
        "LObject": "LBlock",
        "LObject2": "JBlock",
        "UObject": "UBlock",
        "AntiDecayGoal": "RipenGoal",
        "SpawnerDispenser": "SpawnerDispenserTall",
        "SpawnerContainer": "SpawnerContainerShort",
        "SignPosterboard": "SignBoard",
        "Pillar-Button": "SpawnerButton",
    }
    names = [name for name, t in ITEM_TYPES.items() if version in t.versions]
    if version == "4.1.0":
        names += list(v4.values()) + ["DecayGoalEpEnding", "RipenGoalEpEnding"]
    return tuple(names)


def canonical_name(name: str) -> str | None:
    """The catalogue name for ``name`` (aliases resolved), or None when the item is unknown."""
    if name in ITEM_TYPES:
        return name
    return ALIASES.get(name)


def known_names() -> list[str]:
    return list(ITEM_TYPES)
