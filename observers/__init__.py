"""Observers turn what a backend sees (a RawObservation) into the Observation a prompt shows.

They know no backend and no task by name: a gridworld arrives as a GridView of generic cells,
a camera as an RGB array. ``Observer(ObserverConfig(...)).observe(raw)`` produces the requested
views: encoded images, status text, an ASCII map, an English description, a structured dict.
Beside them, the typed pictures of where things are: the agent's ``Pose`` (every observation) and
a backend's ``WorldMap`` of ``WorldShape`` footprints (``Backend.world_map``).

The names below load on first use (PEP 562), each from its own module: the viewer and the
transcript reader need only ``Pose`` and ``WorldMap`` (plain dataclasses), and importing this
package must not make them pay for numpy, Pillow and pydantic, which the observer modules bring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentkit.leaves.lazy_names import lazy_names

if TYPE_CHECKING:
    from agentkit.observers.grid_ascii import AsciiMap, ascii_map, render_ascii
    from agentkit.observers.grid_language import describe_grid
    from agentkit.observers.grid_structured import structured_view
    from agentkit.observers.image_encoding import encode_image
    from agentkit.observers.observation import Cell, EncodedImage, GridView, Observation, RawObservation
    from agentkit.observers.observer import Observer, ObserverConfig
    from agentkit.observers.pose import Pose
    from agentkit.observers.status import status_text
    from agentkit.observers.world_map import WorldMap, WorldShape

__all__ = [
    "AsciiMap",
    "Cell",
    "EncodedImage",
    "GridView",
    "Observation",
    "Observer",
    "ObserverConfig",
    "Pose",
    "RawObservation",
    "WorldMap",
    "WorldShape",
    "ascii_map",
    "describe_grid",
    "encode_image",
    "render_ascii",
    "status_text",
    "structured_view",
]

# Each exported name and the module of this package that defines it.
_HOMES = {
    "AsciiMap": "grid_ascii",
    "ascii_map": "grid_ascii",
    "render_ascii": "grid_ascii",
    "describe_grid": "grid_language",
    "structured_view": "grid_structured",
    "encode_image": "image_encoding",
    "Cell": "observation",
    "EncodedImage": "observation",
    "GridView": "observation",
    "Observation": "observation",
    "RawObservation": "observation",
    "Observer": "observer",
    "ObserverConfig": "observer",
    "Pose": "pose",
    "status_text": "status",
    "WorldMap": "world_map",
    "WorldShape": "world_map",
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
