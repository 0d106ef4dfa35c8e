"""The typed model of an Animal-AI arena configuration, as written in its YAML file.

Why a model of its own: the YAML is read once (``config_loader.py``) and checked there, so the
layout and the world work with plain frozen dataclasses whose fields are known to be well typed.
These are the file's values before any randomness: ``-1`` still means "sample from the seed",
lists may be shorter than each other, sizes are not yet clamped. ``layout.py`` resolves them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

RANDOM = -1.0  # Animal-AI's marker for "sample this component"


@dataclass(frozen=True)
class Vector3:
    x: float
    y: float
    z: float

    def as_tuple(self) -> tuple[float, float, float]:
        return (self.x, self.y, self.z)


@dataclass(frozen=True)
class RGB:
    r: float
    g: float
    b: float

    def as_tuple(self) -> tuple[int, int, int]:
        return (int(round(self.r)), int(round(self.g)), int(round(self.b)))


@dataclass(frozen=True)
class ItemSpec:
    """One ``!Item``: entry i of each list describes the i-th object of this name."""

    name: str  # the catalogue name (aliases already resolved)
    positions: tuple[Vector3, ...] = ()
    rotations: tuple[float, ...] = ()
    sizes: tuple[Vector3, ...] = ()
    colors: tuple[RGB, ...] = ()

    @property
    def count(self) -> int:
        """How many objects this entry spawns (the longest list; at least one)."""
        return max(1, len(self.positions), len(self.rotations), len(self.sizes), len(self.colors))


@dataclass(frozen=True)
class ArenaSpec:
    """One ``!Arena``: time limit ``t`` in steps (0 = none), pass mark, blackouts and items."""

    t: int = 0
    pass_mark: float | None = None
    blackouts: tuple[int, ...] = ()
    items: tuple[ItemSpec, ...] = ()


@dataclass(frozen=True)
class ArenaConfig:
    """A whole ``!ArenaConfig`` file: arenas by their index, and where the text came from."""

    arenas: dict[int, ArenaSpec] = field(default_factory=dict)
    source: str = "<string>"

    def first(self) -> ArenaSpec:
        """The arena with the lowest index (the one an episode plays)."""
        return self.arenas[min(self.arenas)]
