"""Small Animal-AI arena files for the arena's tests: an arena's YAML text, an agent, an item.

A test fixture, so it lives in tests/support/, outside the shipped package. Positions are the
file's (base centre, y up); ``reset`` takes the written file's path as a task.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def arena_text(items: str, t: int = 0) -> str:
    return f"!ArenaConfig\narenas:\n  0: !Arena\n    t: {t}\n    items:\n{items}"


def agent(x: float, z: float, rotation: float = 0, y: float = 0) -> str:
    return (
        f"    - !Item\n      name: Agent\n      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n"
        f"      rotations: [{rotation}]\n"
    )


def item(name: str, x: float, z: float, size=(1, 1, 1), y: float = 0, rotation: float = 0) -> str:
    sx, sy, sz = size
    return (
        f"    - !Item\n      name: {name}\n      positions: [!Vector3 {{x: {x}, y: {y}, z: {z}}}]\n"
        f"      rotations: [{rotation}]\n      sizes: [!Vector3 {{x: {sx}, y: {sy}, z: {sz}}}]\n"
    )


def arena_writer(folder: Path) -> Callable[..., str]:
    """``write(items, t=0)``: a new arena file in ``folder`` holding ``items``; returns its path."""

    def write(items: str, t: int = 0) -> str:
        path = folder / f"arena{len(list(folder.iterdir()))}.yaml"
        path.write_text(arena_text(items, t))
        return str(path)

    return write
