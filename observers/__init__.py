"""Observers turn what a backend sees (a RawObservation) into the Observation a prompt shows.

They know no backend and no task by name: a gridworld arrives as a GridView of generic cells,
a camera as an RGB array.
"""

from agentkit.observers.observation import Cell, EncodedImage, GridView, Observation, RawObservation

__all__ = ["Cell", "EncodedImage", "GridView", "Observation", "RawObservation"]
