"""The arena seen from above, as plain shapes for the transcript viewer (``Backend.world_map``).

Why a file of its own: the viewer draws the agent's trajectory on a map, and only the arena knows
what stands where once an episode's layout is spawned (random placements included). Items are
drawn as their footprints in Animal-AI coordinates: x to the right, z up, the 40 x 40 floor.
"""

from __future__ import annotations

from typing import Any

from agentkit.envs.animalai_common.layout import ARENA_SIZE, Layout


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(max(0, min(255, int(c))) for c in rgb))


def arena_world_map(layout: Layout) -> dict[str, Any]:
    """Footprints of the spawned items (goals as discs, zones translucent), in spawn order."""
    shapes: list[dict[str, Any]] = []
    for item in layout.items:
        t = item.type
        base: dict[str, Any] = {"fill": _hex(item.color), "label": t.name}
        if t.kind == "zone":
            base["opacity"] = 0.45
        elif t.transparent:
            base["opacity"] = 0.35
        if t.shape == "sphere":
            x, _, z = item.position
            shapes.append(
                {
                    "kind": "circle",
                    "x": round(x, 3),
                    "y": round(z, 3),
                    "r": round(item.size[0] / 2, 3),
                    **base,
                }
            )
            continue
        for box in item.boxes():
            shapes.append(
                {
                    "kind": "rect",
                    "x": round(box.cx, 3),
                    "y": round(box.cz, 3),
                    "w": round(2 * box.hx, 3),
                    "h": round(2 * box.hz, 3),
                    "angle": round(box.rotation, 2),
                    **base,
                }
            )
    return {"bounds": [0.0, 0.0, float(ARENA_SIZE), float(ARENA_SIZE)], "y_up": True, "shapes": shapes}
