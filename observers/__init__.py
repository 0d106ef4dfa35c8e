"""Observers turn what a backend sees (a RawObservation) into the Observation a prompt shows.

They know no backend and no task by name: a gridworld arrives as a GridView of generic cells,
a camera as an RGB array. ``Observer(ObserverConfig(...)).observe(raw)`` produces the requested
views: encoded images, status text, an ASCII map, an English description, a structured dict.
Beside them, the typed pictures of where things are: the agent's ``Pose`` (every observation) and
a backend's ``WorldMap`` of ``WorldShape`` footprints (``Backend.world_map``).
"""

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
