"""The arena seen from above, as plain footprints for the transcript viewer (``Backend.world_map``).

Why a file of its own: the viewer draws the agent's trajectory on a map, and only the arena knows
what stands where once an episode's layout is spawned (random placements included). Items are
drawn as their footprints in Animal-AI coordinates: x to the right, z up, the 40 x 40 floor.
"""

from __future__ import annotations

from agentkit.envs.animalai_common.layout import ARENA_SIZE, Layout
from agentkit.observers import WorldMap, WorldShape

ZONE_OPACITY = 0.45  # a floor zone is drawn see-through, so the path over it shows
TRANSPARENT_OPACITY = 0.35  # a transparent item, fainter still


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(max(0, min(255, int(c))) for c in rgb))


def arena_world_map(layout: Layout) -> WorldMap:
    """Footprints of the spawned items (goals as discs, zones translucent), in spawn order."""
    shapes: list[WorldShape] = []
    for item in layout.items:
        t = item.type
        fill = _hex(item.color)
        opacity = ZONE_OPACITY if t.kind == "zone" else TRANSPARENT_OPACITY if t.transparent else 1.0
        if t.shape == "sphere":
            x, _, z = item.position
            shapes.append(
                WorldShape(
                    "circle",
                    round(x, 3),
                    round(z, 3),
                    r=round(item.size[0] / 2, 3),
                    fill=fill,
                    opacity=opacity,
                    label=t.name,
                )
            )
            continue
        for box in item.boxes():
            shapes.append(
                WorldShape(
                    "rect",
                    round(box.cx, 3),
                    round(box.cz, 3),
                    w=round(2 * box.hx, 3),
                    h=round(2 * box.hz, 3),
                    angle=round(box.rotation, 2),
                    fill=fill,
                    opacity=opacity,
                    label=t.name,
                )
            )
    return WorldMap(0.0, 0.0, float(ARENA_SIZE), float(ARENA_SIZE), True, tuple(shapes))
