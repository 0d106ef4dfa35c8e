"""What Animal-AI v3.1.3 looks like through the agent's eye: camera, light, sky and materials.

Why a table of its own: the renderer (``camera.py``, ``room.py``, ``item_shading.py``) must draw the
arena as the Unity build did, so every number that decides a pixel is written here once, with the
source file and field it was read from (Animal-AI's Unity project at commit 4cfeca1, v3.1.3).

Colour model. The Unity project renders in linear colour space (``ProjectSettings.asset:
m_ActiveColorSpace: 1``); screenshots of the build were used to calibrate one simple model in 8-bit
(sRGB) values: ``pixel = albedo * (AMBIENT + LIGHT * max(0, n . l))``, with a bluish ambient from the
procedural sky and the warm directional light. Fitted on the fence in ``docs/figs/prefabs/arena/
arena-FP.png`` of the Animal-AI docs, whose three visible faces turn 0, 0.32 and 0.56 of their area
to the light: (161, 179, 194), (197, 213, 223), (221, 235, 242). In the shadow of something, the
direct term is dropped. Emissive goals (black base colour, ``_EmissionColor`` only) show their
emission colour flat, converted to sRGB: ``Goal.mat`` (0.506, 0.749, 0.255) is drawn as
(189, 224, 138), which is what the Animal-AI screenshots show.
"""

from __future__ import annotations

import math

import numpy as np

from agentkit.envs.animalai_common import geometry

# -- camera: AAI3Agent.prefab, GameObject 'AgentCamMid' (the Camera the CameraSensor component reads) --
FOV_DEGREES = 100.0  # 'field of view: 100' with 'm_FOVAxisMode: 0' (vertical)
NEAR = 0.01  # 'near clip plane: 0.01'
FAR = 70.0  # 'far clip plane: 70'
EYE_HEIGHT = 0.5  # the camera's m_LocalPosition is (0, 0, 0): the centre of the agent's sphere (radius 0.5)


def srgb(linear: tuple[float, float, float]) -> np.ndarray:
    """A linear-space Unity colour as the 8-bit sRGB value it is displayed with."""
    c = np.clip(np.asarray(linear, dtype=np.float64), 0.0, 1.0)
    s = np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)
    return np.round(s * 255).astype(np.float32)


# -- light: AAI3EnvironmentManager.unity (the only scene in EditorBuildSettings), 'Directional Light' --
# m_LocalEulerAnglesHint (50, -30, 0): the light shines along (-0.321, -0.766, 0.557) in arena axes
# (x, y up, z); LIGHT_TOWARDS is the opposite direction, from a surface towards the light.
_PITCH, _YAW = math.radians(50.0), math.radians(-30.0)
LIGHT_TOWARDS = np.array(
    [-math.sin(_YAW) * math.cos(_PITCH), math.sin(_PITCH), -math.cos(_YAW) * math.cos(_PITCH)]
)
LIGHT_COLOR = np.array([1.0, 0.95686275, 0.8392157])  # m_Color; m_Intensity 1; m_Shadows m_Type 2 (soft)
# The model's two terms (see the module docstring), as fractions of the albedo, per channel.
AMBIENT = np.array([161.0, 179.0, 194.0], dtype=np.float32) / 255.0
LIGHT = (0.42 * LIGHT_COLOR).astype(np.float32)

# -- sky: RenderSettings m_SkyboxMaterial = Materials/Skyboxes/brighterSkybox1.mat (Skybox/Procedural,
# _SkyTint 0.689 grey, _Exposure 1.3, _AtmosphereThickness 1). Colours by elevation, read from the
# sky of arena-FP.png (Animal-AI docs): near the horizon, at about 15 and about 30 degrees up.
SKY_STOPS = (  # (elevation in degrees, sRGB colour); below the horizon, _GroundColor (0.369, 0.349,
    (-8.0, (122, 116, 113)),  # 0.341) x _Exposure 1.3: seen only from above the fence
    (-1.0, (150, 180, 212)),
    (0.0, (150, 180, 212)),
    (4.0, (132, 163, 201)),
    (15.0, (108, 135, 175)),
    (30.0, (90, 114, 153)),
    (60.0, (74, 96, 135)),
)

# -- the arena: Prefabs/AAI3Arena.prefab --
# 'Ground' (a cube at y -0.51 scaled 42 x 1 x 42, top at -0.01) with floor tiles/materials/
# floor_SimpleLit.mat: its texture tiled 5 x 5, so one texture tile covers 8.4 units. Its albedo
# (albedoToonSimpler.psd) is not in the source mirror; the overhead screenshot docs/figs/prefabs/
# DefaultArena.png shows 8 bricks across a tile and 16 rows, each row shifted by half a brick:
# bricks 1.05 units along x by 0.525 along z, of sandy shades with thin dark joints.
FLOOR_TILE = 42.0 / 5.0
FLOOR_BRICKS = (8, 16)
FLOOR_JOINT = 0.02  # joint width, a fraction of a brick (ao.psd: about 4 of 256 px)
FLOOR_BASE = np.array([214.0, 176.0, 121.0], dtype=np.float32)  # mean brick albedo (fit to arena-FP.png)
FLOOR_SHADE_SPREAD = 0.10  # bricks vary in brightness by about this much either way
FLOOR_JOINT_SHADE = 0.62
# Fence: 'WallOut1..4' at 20.5 from the centre, each holding three sections 'fence1..3' of
# Materials/Fences/Model/V1_T2.obj at local z = 14, 0, -14, scaled (5, 6, 6) (the middle one
# (4.99, 6, 5.833)), y 2.9. In arena units, beyond the boundary line of each side: posts 1.0 deep
# (0 to 1) over y -0.1..7.1; two rails 0.25 deep (0.125 to 0.375) at y 0.95..1.25 and 4.55..4.85;
# the plank panel behind them (from 0.375) up to y 5.9. Posts, along each side (0..40):
FENCE_POSTS = ((-1.2, 0.0), (11.8, 14.1667), (25.8333, 28.2), (40.0, 41.2))
FENCE_POST_Y = (-0.1, 7.1)
FENCE_RAIL_DEPTH = 0.125
FENCE_RAILS = ((0.95, 1.25), (4.55, 4.85))
FENCE_PANEL_DEPTH = 0.375
FENCE_PANEL_TOP = 5.9
# Material Fences/Mats/T2/V1_T2_S2_Simple.mat: white tint, texture V1_T2_S2_Albedo_ToonSimple.png
# (pale grey-blue (203, 210, 213) with a dark plank line every 1/14 of its width), emission 0.2.
FENCE_ALBEDO = np.array([255.0, 255.0, 255.0], dtype=np.float32)
FENCE_PLANK = 0.52  # plank width in units (the texture's 14 planks over a section's 7.2 units)
FENCE_LINE_SHADE = 0.55
FENCE_LINE_WIDTH = 0.035  # fraction of a plank

# -- items: materials of the prefabs (Assets/Prefabs/**, Assets/Materials/**) --
# Goals: BallGoals/Goal.mat, GoalMulti.mat, Obstacle.mat (BadGoal): black base, _EMISSION on.
GOAL_GREEN = srgb((0.5058824, 0.7490196, 0.25490198))  # Goal.mat _EmissionColor
GOAL_GOLD = srgb((0.9098039, 0.7254902, 0.13725491))  # GoalMulti.mat _EmissionColor
GOAL_RED = srgb((0.6226415, 0.09803922, 0.09692062))  # Obstacle.mat _EmissionColor
# Walls: PrefabObjectMiscMats/WallSimpleTextured.mat, the config's colour times the floor tiles'
# ao.psd (white, black joints), tiled (0.18, 0.25) per unit of the face (Wall.prefab
# textureUVOverride 1): 8 x 12 bricks per texture, so bricks 0.694 wide and 0.333 high.
WALL_BRICK = (1.0 / (8 * 0.18), 1.0 / (12 * 0.25))
WALL_JOINT = 0.022  # ao.psd: joints about 4 px of a 256 px brick and of a 171 px row
WALL_JOINT_SHADE = 0.6  # black in ao.psd, but a few pixels wide: seen at a distance they grey out
# Ramps: RampSimpleTextured.mat, the config's colour times cloud_cow_patch_texture_light_grey.png
# (white with patches of 0.93 grey about a unit across).
RAMP_PATCH_SHADE = 0.93
# Transparent items: Materials/Transparent.mat, white, _Surface 1 (transparent), alpha 0.416.
GLASS_ALPHA = 0.41568628
GLASS_ALBEDO = np.array([255.0, 255.0, 255.0], dtype=np.float32)
# Cardboard boxes (cardboardBoxes_Material_AAI3.mat) and U/L blocks (L-U-Object_SIMPLE.mat): a grey
# texture used as both base and emission map (emission (1, 1, 1)): a flat pale grey face with a lighter
# frame (box_tex1_128x128.png: 145 frame, 124 inside, frame 1/8 of the face) or lighter seams.
# Calibrated on the U/L blocks of docs/figs/exampleGallery/TestCompetition10-13-01.PNG: tops (188, 194, 200),
# sides (174, 180, 186).
BLOCK_FACE = np.array([186.0, 192.0, 199.0], dtype=np.float32)
BLOCK_FRAME = np.array([214.0, 220.0, 226.0], dtype=np.float32)
BLOCK_FRAME_WIDTH = 0.125  # of the face
BLOCK_LIGHT_SHARE = 0.35  # how much of a block's brightness depends on the light (the rest is emission)
# Zones: Materials/DeathZone_Fog.mat and HotZone_Fog.mat (CustomShaders/ZoneShader.shader): colour =
# noise texture (good_perlin_noise.png, grey 132..204, world xz * _UVScale 0.2) times _EmissionColour,
# alpha _EmissionColour.a x (1 - depth), which is near 1 with Unity's reversed depth, plus _AdditiveAlpha,
# at least _MinAlpha 0.4, blended over what is behind.
DEATH_ZONE_COLOR = srgb((0.627451, 0.078431375, 0.078431375))  # _EmissionColour
DEATH_ZONE_ALPHA = (
    0.9  # _EmissionColour.a 0.88 (+ _AdditiveAlpha 0.25, capped at 1; the screenshots show the floor faintly)
)
HOT_ZONE_COLOR = srgb((1.0, 0.43564162, 0.124469034))  # _EmissionColour (HDR 1.19 clipped to 1)
# _EmissionColour.a 0.686, _AdditiveAlpha 0 (at least _MinAlpha 0.4); HotZone_Fog.mat has _Cull 0, so the
# near and the far face of the volume are both blended: 1 - (1 - 0.686)^2 seen through it.
HOT_ZONE_ALPHA = 0.9
HOT_ZONE_ALPHA_ONE_FACE = 0.686  # seen from inside: only the far faces are in front of the camera
ZONE_NOISE_SCALE = 0.2  # _UVScale: one noise texture per 5 units
# CylinderTunnel: Materials/Prefabs/Cylinder.blend, a tube of radius 1.04 and length 2 with a
# Solidify modifier 0.222 thick inwards, scaled by the size times ratioSize (0.4808, 0.4808, 0.5);
# Grounded.cs puts its axis on the floor, so the arch above the floor is half the tube.
TUNNEL_INNER = geometry.TUNNEL_INNER  # Cylinder.blend: radius 1.04, Solidify 0.222 inwards
TUNNEL_SEGMENTS = 24  # facets of the half circle
