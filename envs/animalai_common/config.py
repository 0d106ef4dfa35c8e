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
class ItemParams:
    """The optional values of one spawned object: entry i of each per-object list (None: not given),
    and the per-item values every object of the entry shares (ArenaBuilders.InstantiateSpawnable).

    Defaults are not applied here: they depend on the item and on the Animal-AI version, and the
    behaviour modules apply them (``goal_changes.py``, ``spawners.py``, ``buttons.py``, ...).
    """

    color: RGB | None = None  # the file's colours entry (a sign's symbol takes it; see signboards.py)
    symbol_name: str | None = None
    delay: float | None = None
    initial_value: float | None = None
    final_value: float | None = None
    change_rate: float | None = None
    spawn_count: int | None = None
    spawn_color: RGB | None = None
    time_between_spawns: float | None = None
    ripen_time: float | None = None
    door_delay: float | None = None
    time_between_door_opens: float | None = None
    move_duration: float | None = None
    reset_duration: float | None = None
    spawn_probability: float = 1.0
    reward_names: tuple[str, ...] = ()
    reward_weights: tuple[float, ...] = ()
    reward_spawn_pos: Vector3 = Vector3(0.0, 0.0, 0.0)
    max_reward_counts: tuple[int, ...] = ()
    trigger_zone_id: str | None = None  # v4.1.0 gives every DataZone of an entry triggerZoneID[0]
    zone_visibility: bool = True


def _at(values: tuple, index: int):
    return values[index] if index < len(values) else None


@dataclass(frozen=True)
class ItemSpec:
    """One ``!Item``: entry i of each list describes the i-th object of this name.

    Besides the five standard lists, Animal-AI's optional per-item fields (YAMLclasses.cs ``Item``, v3.1.3
    and v4.1.0) are kept, typed, under their YAML names in snake case. Each applies to some items only
    (``items.py`` says which behaviour uses which); Animal-AI ignores the others on an item, and so do we.
    """

    name: str  # the catalogue name (aliases already resolved)
    positions: tuple[Vector3, ...] = ()
    rotations: tuple[float, ...] = ()
    sizes: tuple[Vector3, ...] = ()
    colors: tuple[RGB, ...] = ()
    # Agent
    skins: tuple[str, ...] = ()
    frozen_agent_delays: tuple[float, ...] = ()  # seconds the agent stays frozen at the start
    # SignPosterboard
    symbol_names: tuple[str, ...] = ()
    # Decay/AntiDecay/Grow/Shrink goals and spawners
    delays: tuple[float, ...] = ()
    initial_values: tuple[float, ...] = ()
    final_values: tuple[float, ...] = ()
    change_rates: tuple[float, ...] = ()
    # Spawners
    spawn_counts: tuple[int, ...] = ()
    spawn_colors: tuple[RGB, ...] = ()
    times_between_spawns: tuple[float, ...] = ()
    ripen_times: tuple[float, ...] = ()
    door_delays: tuple[float, ...] = ()
    times_between_door_opens: tuple[float, ...] = ()
    # Pillar-Button / SpawnerButton (one value per item entry, not per object, except the durations)
    move_durations: tuple[float, ...] = ()
    reset_durations: tuple[float, ...] = ()
    spawn_probability: float = 1.0
    reward_names: tuple[str, ...] = ()
    reward_weights: tuple[float, ...] = ()
    reward_spawn_pos: Vector3 = Vector3(0.0, 0.0, 0.0)
    max_reward_counts: tuple[int, ...] = ()
    # DataZone (v4.1.0)
    trigger_zone_ids: tuple[str, ...] = ()
    zone_visibility: bool = True

    @property
    def count(self) -> int:
        """How many objects this entry spawns: the longest of the per-object lists, at least one
        (ArenaBuilders.InstantiateSpawnable: ``n = ns.Max()``, a do-while loop)."""
        return max(1, *(len(values) for values in self.per_object_lists()))

    def params(self, index: int) -> ItemParams:
        """The optional values of the ``index``-th object of this entry."""
        return ItemParams(
            color=_at(self.colors, index),
            symbol_name=_at(self.symbol_names, index),
            delay=_at(self.delays, index),
            initial_value=_at(self.initial_values, index),
            final_value=_at(self.final_values, index),
            change_rate=_at(self.change_rates, index),
            spawn_count=_at(self.spawn_counts, index),
            spawn_color=_at(self.spawn_colors, index),
            time_between_spawns=_at(self.times_between_spawns, index),
            ripen_time=_at(self.ripen_times, index),
            door_delay=_at(self.door_delays, index),
            time_between_door_opens=_at(self.times_between_door_opens, index),
            move_duration=_at(self.move_durations, index),
            reset_duration=_at(self.reset_durations, index),
            spawn_probability=self.spawn_probability,
            reward_names=self.reward_names,
            reward_weights=self.reward_weights,
            reward_spawn_pos=self.reward_spawn_pos,
            max_reward_counts=self.max_reward_counts,
            trigger_zone_id=self.trigger_zone_ids[0] if self.trigger_zone_ids else None,
            zone_visibility=self.zone_visibility,
        )

    def per_object_lists(self) -> tuple[tuple, ...]:
        """The lists whose i-th entry belongs to the i-th object (ArenaBuilders.InstantiateSpawnable: ``ns``)."""
        return (
            self.positions,
            self.rotations,
            self.sizes,
            self.colors,
            self.symbol_names,
            self.delays,
            self.initial_values,
            self.final_values,
            self.change_rates,
            self.spawn_counts,
            self.spawn_colors,
            self.times_between_spawns,
            self.ripen_times,
            self.door_delays,
            self.times_between_door_opens,
            self.move_durations,
            self.reset_durations,
        )


@dataclass(frozen=True)
class ArenaSpec:
    """One ``!Arena``: time limit ``t`` in steps (0 = none), pass mark, blackouts and items.

    ``random_seed`` (v3 ``random_seed``, v4 ``randomSeed``): when not 0, Animal-AI reseeds its random
    generator with it after building the arena (TrainingArena.ResetArena); here it seeds the draws
    the items make during the episode (button rewards, sign codes). The other flags are Animal-AI's
    play-mode options (notifications, the player's reset key and camera), kept for the record.
    """

    t: int = 0
    pass_mark: float | None = None
    blackouts: tuple[int, ...] = ()
    items: tuple[ItemSpec, ...] = ()
    random_seed: int = 0
    show_notification: bool = False
    can_reset_episode: bool = True
    can_change_perspective: bool = True
    merge_next_arena: bool = False  # v4.1.0: play this arena and the next one as one episode (not modelled)


@dataclass(frozen=True)
class ArenaConfig:
    """A whole ``!ArenaConfig`` file: arenas by their index, and where the text came from.

    Animal-AI plays the arenas of a file in the order of their numbers, one per episode, starting
    again at the first after the last (TrainingArena.ResetArena); with ``randomize_arenas`` it draws
    one at random instead (never the one just played). ``arena_order`` is that cycle.
    """

    arenas: dict[int, ArenaSpec] = field(default_factory=dict)
    source: str = "<string>"
    randomize_arenas: bool = False

    def first(self) -> ArenaSpec:
        """The arena with the lowest index (the one the first episode plays)."""
        return self.arenas[min(self.arenas)]

    @property
    def arena_order(self) -> tuple[int, ...]:
        return tuple(sorted(self.arenas))

    def arena(self, index: int) -> ArenaSpec:
        """The arena numbered ``index`` in the file; ``KeyError`` naming the numbers there are."""
        if index not in self.arenas:
            raise KeyError(
                f"{self.source} has no arena {index} (arenas: {', '.join(map(str, self.arena_order))})"
            )
        return self.arenas[index]

    def next_index(self, previous: int | None) -> int:
        """The arena Animal-AI plays after ``previous`` (None: the first episode): the next number, cycling."""
        order = self.arena_order
        if previous is None or previous not in self.arenas:
            return order[0]
        return order[(order.index(previous) + 1) % len(order)]
