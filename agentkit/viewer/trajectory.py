"""Where the agent was on each turn, and a top-down map to draw it on, read from stored observations.

Why a separate reader: the viewer knows no backend by name, so it looks for positions in the
backend-neutral, structured data the observers store with every turn, in this order:

1. ``structured.position`` (the structured view: ``[x, y]`` grid cells, or ``[x, y, z]`` world
   coordinates of which ``x`` and ``z`` are the ground plane, y being up as in Unity and pybullet
   scenes), with ``structured.orientation`` (the structured view's word for the heading, as
   models are shown it) and ``structured.grid_size`` when present;
2. ``pose`` (``Pose.to_json()``: ``{"position": [...], "heading": ..., "label": ...}``), the
   backend's pose, which the observation stores whenever the backend reports one
   (``Observation.pose``: every packaged backend does; TriFinger's is its block's, labelled so,
   since no body of it walks);
3. the ASCII map view (``observers.grid_ascii``), a grid world's map: its rows are the map, and its
   legend names the agent's cell ("... at x=6, y=5").

Positions are never parsed back out of the status text meant for the model: a transcript whose
observations carry none of these (one stored before observations kept the pose) gets no map and
no path, and the rest of the viewer works.
What the agent moved among comes from the ASCII view (grid worlds) or, where the backend draws one,
from the episode's stored world map (``Backend.world_map``, a ``WorldMap`` of footprints on the
ground plane, which the store's reader hands back typed). A numeric heading is in compass degrees:
0 towards +y of the ground plane, growing clockwise (``agentkit.observers.pose``).
Observations are those the model saw *before* each turn's script ran, so the trajectory has one
point per turn; where the agent ended after the last script is not stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from agentkit.observers.pose import Pose

# The grid observers' ASCII legend line for the agent, e.g. "< = you, facing west, at x=6, y=5 (...)".
_AGENT_LEGEND = re.compile(r"^(\S) = you, facing (\w+), at x=(-?\d+), y=(-?\d+)")
_AGENT_GLYPHS = {">": "east", "v": "south", "<": "west", "^": "north"}
_HEADINGS = {"east", "south", "west", "north"}


@dataclass(frozen=True)
class GridMap:
    """A top-down grid map: one symbol per cell, ``rows[y][x]``, with the legend that explains them."""

    rows: tuple[str, ...]
    legend: tuple[tuple[str, str], ...]

    @property
    def width(self) -> int:
        return max((len(r) for r in self.rows), default=0)

    @property
    def height(self) -> int:
        return len(self.rows)


def pose_of(observation: dict[str, Any] | None) -> Pose | None:
    """The agent's pose in a stored observation, or None if nothing usable is stored."""
    pose = _first_pose(observation)
    extra = observation.get("pose") if isinstance(observation, dict) else None
    label = extra.get("label") if isinstance(extra, dict) else None
    if pose is not None and isinstance(label, str) and label:
        return replace(pose, label=label[:40])
    return pose


def _first_pose(observation: dict[str, Any] | None) -> Pose | None:
    if not isinstance(observation, dict):
        return None
    structured = observation.get("structured")
    if isinstance(structured, dict):
        pose = Pose.from_position(structured.get("position"), structured.get("orientation"))
        if pose is not None:
            return pose
    extra = observation.get("pose")
    if isinstance(extra, dict):
        pose = Pose.from_position(extra.get("position"), extra.get("heading"))
        if pose is not None:
            return pose
    ascii_text = observation.get("ascii")
    if isinstance(ascii_text, str):
        pose = _pose_from_ascii(ascii_text)
        if pose is not None:
            return pose
    return None


def grid_of(observation: dict[str, Any] | None) -> GridMap | None:
    """The ASCII map of a stored observation as a grid, or None when it has none."""
    if not isinstance(observation, dict):
        return None
    text = observation.get("ascii")
    if not isinstance(text, str) or not text.strip():
        return None
    head, _, tail = text.partition("\n\nLegend:\n")
    rows = tuple(line for line in head.split("\n") if line)
    if not rows:
        return None
    legend = []
    for line in tail.split("\n"):
        symbol, sep, meaning = line.partition(" = ")
        if sep and len(symbol) == 1:
            legend.append((symbol, meaning))
    return GridMap(rows, tuple(legend))


def grid_size_of(observation: dict[str, Any] | None) -> tuple[int, int] | None:
    """(width, height) of the grid the observation describes, if it says."""
    if not isinstance(observation, dict):
        return None
    structured = observation.get("structured")
    if isinstance(structured, dict) and isinstance(structured.get("grid_size"), dict):
        size = structured["grid_size"]
        if isinstance(size.get("width"), int) and isinstance(size.get("height"), int):
            return size["width"], size["height"]
    grid = grid_of(observation)
    if grid is not None:
        return grid.width, grid.height
    return None


def _pose_from_ascii(text: str) -> Pose | None:
    head, _, tail = text.partition("\n\nLegend:\n")
    for line in tail.split("\n"):
        m = _AGENT_LEGEND.match(line)
        if m:
            heading = m.group(2) if m.group(2) in _HEADINGS else None
            return Pose(float(m.group(3)), float(m.group(4)), heading)
    for y, row in enumerate(head.split("\n")):  # no legend line: find the agent glyph
        for x, ch in enumerate(row):
            if ch in _AGENT_GLYPHS:
                return Pose(float(x), float(y), _AGENT_GLYPHS[ch])
    return None
