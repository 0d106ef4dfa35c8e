"""Read Animal-AI arena YAML (v3 tags, v4 key names) into the typed model of ``config.py``.

Why a strict reader: a researcher's typo ("GoodGoall", "positon", "!Itme") would otherwise build a
silently different arena. Every problem is one ``ArenaConfigError`` line that names the file, the
arena and the item, e.g. ``01-04-03.yaml: arena 0, item 3 'GoodGoall': unknown item (known: ...)``.

Safety: the YAML is read with a subclass of ``yaml.SafeLoader`` (its C twin ``CSafeLoader`` when
libyaml is present) that knows exactly the five Animal-AI tags (``!ArenaConfig``, ``!Arena``,
``!Item``, ``!Vector3``, ``!RGB``); any other tag, ``!!python/...`` included, becomes a marker that
is reported as an error with its place, never an object constructor.

Fields: every field of Animal-AI's own YAML classes (``YAMLclasses.cs`` of v3.1.3 and v4.1.0) is read
and typed: the v3 spellings (``t``, ``pass_mark``, ``random_seed``) and the v4 ones (``timeLimit``,
``passMark``, ``randomSeed``); every optional item field (``delays``, ``initialValues``,
``spawnCounts``, ``symbolNames``, ``rewardNames``, ``rewardSpawnPos``, ``triggerZoneID``, ...) into
``config.ItemSpec``. Like Animal-AI's reader (YamlDotNet without ``IgnoreUnmatchedProperties``), an
unknown field is an error. Only play-mode options that change nothing in an episode
(``defaultPerspective``) are accepted and dropped, with a debug log.

Names: the catalogue's (``items.py``: the v3.1.3 scene's prefab names, the v4.1.0-only items) and their
aliases (v4.1.0 names such as ``LightBlock``, ``SignBoard``, ``SpawnerButton``). Animal-AI silently skips
an item whose name it does not know; here it is an error, so that a typo does not build a different
arena unnoticed.

Hostile files: ``yaml_limits.py`` bounds size, nesting, node count (aliases expanded), key shapes and
number lengths before anything is built, and every value quoted in an error is cut short; an arena may
spawn at most ``MAX_OBJECTS`` objects. Each such file is one ``ArenaConfigError`` line too.

Colours: Animal-AI divides each component by 255 and draws a negative one at random
(``Prefab.SetColor``); 256 gives 1.004, which shows as full intensity, so components up to 256 load
(and build as 255). A negative component is random, as in Animal-AI. Above 256 is refused as a typo.
"""

from __future__ import annotations

import logging
import math
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from agentkit.envs.animalai_common.config import RGB, ArenaConfig, ArenaSpec, ItemSpec, Vector3
from agentkit.envs.animalai_common.items import LATER_VERSION_NAMES, canonical_name, known_names
from agentkit.envs.animalai_common.yaml_limits import (
    LIBYAML_NESTING_PROBLEM,
    MAX_FILE_CHARS,
    NESTING_PROBLEM,
    check_shape,
    construct_bounded_int,
    construct_checked_mapping,
    show,
)

logger = logging.getLogger(__name__)

KNOWN_TAGS = ("!ArenaConfig", "!Arena", "!Item", "!Vector3", "!RGB")

_ITEM_FIELDS = (
    "name",
    "positions",
    "rotations",
    "sizes",
    "colors",
    "skins",
    "frozenAgentDelays",
    "symbolNames",
    "delays",
    "initialValues",
    "finalValues",
    "changeRates",
    "spawnCounts",
    "spawnColors",
    "timesBetweenSpawns",
    "ripenTimes",
    "doorDelays",
    "timesBetweenDoorOpens",
    "moveDurations",
    "resetDurations",
    "spawnProbability",
    "rewardNames",
    "rewardWeights",
    "rewardSpawnPos",
    "maxRewardCounts",
    "triggerZoneID",
    "zoneVisibility",
)
# Lists of numbers, by YAML name: the ItemSpec field they fill and whether they hold whole numbers.
_NUMBER_LISTS = {
    "frozenAgentDelays": ("frozen_agent_delays", False),
    "delays": ("delays", False),
    "initialValues": ("initial_values", False),
    "finalValues": ("final_values", False),
    "changeRates": ("change_rates", False),
    "spawnCounts": ("spawn_counts", True),
    "timesBetweenSpawns": ("times_between_spawns", False),
    "ripenTimes": ("ripen_times", False),
    "doorDelays": ("door_delays", False),
    "timesBetweenDoorOpens": ("times_between_door_opens", False),
    "moveDurations": ("move_durations", False),
    "resetDurations": ("reset_durations", False),
    "rewardWeights": ("reward_weights", False),
    "maxRewardCounts": ("max_reward_counts", True),
}
_TEXT_LISTS = {
    "skins": "skins",
    "symbolNames": "symbol_names",
    "rewardNames": "reward_names",
    "triggerZoneID": "trigger_zone_ids",
}
_ARENA_FIELDS = (
    "t",
    "timeLimit",
    "pass_mark",
    "passMark",
    "blackouts",
    "items",
    "random_seed",
    "randomSeed",
    "showNotification",
    "canResetEpisode",
    "canChangePerspective",
    "mergeNextArena",
)
# Animal-AI declares the time limit a C# ``int`` (``public int timeLimit``, ``YAMLclasses.cs`` of
# v4.1.0; ``t`` in v3.1.3), so YamlDotNet refuses a larger value: refused here too, in one line,
# rather than an episode whose clock could not be run out in any bounded time.
MAX_T = 2**31 - 1
_IGNORED_ARENA_FIELDS = frozenset({"defaultPerspective"})  # v3.1.3: "no longer used" (YAMLclasses.cs)
_TOP_FIELDS = ("arenas", "randomizeArenas", "showNotification", "canResetEpisode", "canChangePerspective")
MAX_COLOR = 256.0
MAX_OBJECTS = 2000  # objects one arena may spawn; the Testbed's largest spawns 156 (08-12-03)
MAX_NUMBER = 1e15  # beyond this no arena value means anything (and a float cannot hold every integer)


class ArenaConfigError(ValueError):
    """A malformed arena file, reported on one line with its place (file, arena, item)."""

    def __init__(
        self,
        source: str,
        message: str,
        arena: int | None = None,
        item: int | None = None,
        item_name: str | None = None,
    ) -> None:
        self.source = source
        self.message = message
        self.arena = arena
        self.item = item
        self.item_name = item_name
        super().__init__(str(self))

    def __str__(self) -> str:
        place = []
        if self.arena is not None:
            place.append(f"arena {self.arena}")
        if self.item is not None:
            place.append(f"item {self.item}" + (f" {show(self.item_name)}" if self.item_name else ""))
        where = f"{self.source}: " + (", ".join(place) + ": " if place else "")
        return where + self.message


@dataclass(frozen=True)
class _Tagged:
    """A node carrying one of the known tags, kept until validation checks it is in its place."""

    tag: str
    value: Any


@dataclass(frozen=True)
class _UnknownTag:
    tag: str
    line: int


# libyaml's C parser when present (about 10x faster; 900 Testbed files load in well under a second).
_SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _ArenaLoader(_SafeBase):  # type: ignore[misc, valid-type]
    """The safe loader plus Animal-AI's tags; nothing here can build arbitrary Python objects.

    Keys must be plain scalars and unique, and integers short (``yaml_limits.py``)."""

    construct_mapping = construct_checked_mapping(_SafeBase.construct_mapping)


def _construct_known(loader: _ArenaLoader, node: yaml.Node) -> _Tagged:
    if isinstance(node, yaml.MappingNode):
        value: Any = loader.construct_mapping(node, deep=True)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_scalar(node)
    return _Tagged(node.tag, value)


def _construct_unknown(loader: _ArenaLoader, suffix: str, node: yaml.Node) -> _UnknownTag:
    return _UnknownTag(node.tag, node.start_mark.line + 1)


for _tag in KNOWN_TAGS:
    _ArenaLoader.add_constructor(_tag, _construct_known)
_ArenaLoader.add_multi_constructor("!", _construct_unknown)
# Python-object tags (``!!python/...``) are never constructed either; they are reported in place.
_ArenaLoader.add_multi_constructor("tag:yaml.org,2002:python/", _construct_unknown)
_ArenaLoader.add_constructor("tag:yaml.org,2002:int", construct_bounded_int(_SafeBase.construct_yaml_int))


class _Context:
    """Where the reader is in the file, so every error names its place."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.arena: int | None = None
        self.item: int | None = None
        self.item_name: str | None = None

    def error(self, message: str) -> ArenaConfigError:
        return ArenaConfigError(self.source, message, self.arena, self.item, self.item_name)


def load_arena_config(path: str | Path) -> ArenaConfig:
    """Read and check an arena file; ``ArenaConfigError`` names the file (by its base name) on failure."""
    path = Path(path)
    return parse_arena_config(read_arena_text(path), source=path.name)


def read_arena_text(path: Path) -> str:
    """The text of an arena file, size-checked before reading; ``ArenaConfigError`` if unreadable.

    Only a regular file is read: a FIFO would block the open for ever and ``/dev/zero`` (size 0)
    would never end, so the file is opened without blocking and what it is checked first; the read
    itself stops past the limit, whatever the size said."""
    limit = 4 * MAX_FILE_CHARS  # bytes: 4 per character at most
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise ArenaConfigError(path.name, f"the path is {file_kind(info.st_mode)}, not a regular file")
        with open(fd, "rb") as f:
            data = f.read(limit + 1) if info.st_size <= limit else b""
        if info.st_size > limit or len(data) > limit:  # refused before reading, or if it grew meanwhile
            raise ArenaConfigError(path.name, f"the file is larger than {MAX_FILE_CHARS:,} characters")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ArenaConfigError(path.name, f"cannot read the file ({exc})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as read_text's universal newlines did


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, for an error line ("a FIFO", "a character device")."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def parse_arena_config(text: str, source: str = "<string>") -> ArenaConfig:
    """Check YAML text and build the arena model; ``source`` names it in errors."""
    if len(text) > MAX_FILE_CHARS:
        raise ArenaConfigError(source, f"the file is larger than {MAX_FILE_CHARS:,} characters")
    try:
        check_shape(text, _ArenaLoader)  # before composing: depth, node count and aliases are bounded
        data = yaml.load(text, Loader=_ArenaLoader)  # a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(text, source, exc) from None
    except yaml.YAMLError as exc:
        raise ArenaConfigError(source, f"YAML error: {_one_line(str(exc))[:200]}") from None
    return _read_top(data, _Context(source))


# -- the levels of the file ---------------------------------------------------------------------


def _read_top(data: Any, ctx: _Context) -> ArenaConfig:
    body = _untag(data, "!ArenaConfig", ctx, "the file")
    if not isinstance(body, dict):
        raise ctx.error("the file must be an !ArenaConfig mapping with 'arenas'")
    for key in body:
        if key not in _TOP_FIELDS:
            raise ctx.error(f"unknown field {show(key)} (known: {', '.join(_TOP_FIELDS)})")
    randomize = _flag(body.get("randomizeArenas"), "randomizeArenas", ctx, False)
    for key in ("showNotification", "canResetEpisode", "canChangePerspective"):
        _flag(body.get(key), key, ctx, False)
    arenas_raw = body.get("arenas")
    if not isinstance(arenas_raw, dict) or not arenas_raw:
        raise ctx.error("'arenas' must map arena numbers to !Arena entries")
    arenas: dict[int, ArenaSpec] = {}
    for key, value in arenas_raw.items():
        index = _arena_index(key, ctx)
        ctx.arena, ctx.item, ctx.item_name = index, None, None
        arenas[index] = _read_arena(value, ctx)
    return ArenaConfig(arenas=arenas, source=ctx.source, randomize_arenas=randomize)


def _arena_index(key: Any, ctx: _Context) -> int:
    if isinstance(key, bool):
        raise ctx.error(f"arena key {show(key)} is not a number")
    if isinstance(key, int) and abs(key) < 10**9:
        return key
    if isinstance(key, str) and key.strip().isdigit() and len(key.strip()) <= 9:
        return int(key)
    raise ctx.error(f"arena key {show(key)} is not a number (or is too large)")


def _read_arena(data: Any, ctx: _Context) -> ArenaSpec:
    body = _untag(data, "!Arena", ctx, "the arena")
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise ctx.error("an arena must be an !Arena mapping")
    for key in body:
        if key in _IGNORED_ARENA_FIELDS:
            logger.debug("%s: arena %s: ignoring %r", ctx.source, ctx.arena, key)
        elif key not in _ARENA_FIELDS:
            raise ctx.error(f"unknown field {show(key)} (known: {', '.join(_ARENA_FIELDS)})")
    t = _pick(body, "t", "timeLimit", ctx)
    pass_mark = _pick(body, "pass_mark", "passMark", ctx)
    seed = _pick(body, "random_seed", "randomSeed", ctx)
    t_value = (
        0 if t is None else _integer(t, "t" if "t" in body else "timeLimit", ctx, minimum=0, maximum=MAX_T)
    )
    pass_value = None if pass_mark is None else _number(pass_mark, "pass_mark", ctx)
    blackouts = _blackouts(body.get("blackouts"), ctx)
    items_raw = body.get("items") or []
    if not isinstance(items_raw, list):
        raise ctx.error("'items' must be a list of !Item entries")
    if len(items_raw) > MAX_OBJECTS:
        raise ctx.error(f"{len(items_raw):,} items; an arena may spawn at most {MAX_OBJECTS:,} objects")
    items = []
    for index, item in enumerate(items_raw):
        ctx.item, ctx.item_name = index, None
        spec = _read_item(item, ctx)
        if spec is not None:
            items.append(spec)
    ctx.item, ctx.item_name = None, None
    objects = sum(item.count for item in items)
    if objects > MAX_OBJECTS:
        raise ctx.error(f"the items spawn {objects:,} objects; an arena may spawn at most {MAX_OBJECTS:,}")
    return ArenaSpec(
        t=t_value,
        pass_mark=pass_value,
        blackouts=blackouts,
        items=tuple(items),
        random_seed=0 if seed is None else _integer(seed, "random_seed", ctx),
        show_notification=_flag(body.get("showNotification"), "showNotification", ctx, False),
        can_reset_episode=_flag(body.get("canResetEpisode"), "canResetEpisode", ctx, True),
        can_change_perspective=_flag(body.get("canChangePerspective"), "canChangePerspective", ctx, True),
        merge_next_arena=_flag(body.get("mergeNextArena"), "mergeNextArena", ctx, False),
    )


def _read_item(data: Any, ctx: _Context) -> ItemSpec | None:
    """The item, or None for an item of a later Animal-AI version (left out, as v3.1.3 and v4.1.0 do)."""
    body = _untag(data, "!Item", ctx, "the item")
    if not isinstance(body, dict):
        raise ctx.error("an item must be an !Item mapping with a 'name'")
    raw_name = body.get("name")
    if isinstance(raw_name, str):
        ctx.item_name = raw_name
    if not isinstance(raw_name, str) or not raw_name.strip():
        raise ctx.error("the item has no 'name'")
    name = canonical_name(raw_name.strip())
    if name is None and raw_name.strip() in LATER_VERSION_NAMES:
        logger.warning(
            "%s: arena %s, item %s %r: an Animal-AI %s item; left out, as Animal-AI v3.1.3 and v4.1.0 do",
            ctx.source,
            ctx.arena,
            ctx.item,
            raw_name.strip(),
            LATER_VERSION_NAMES[raw_name.strip()],
        )
        return None
    if name is None:
        raise ctx.error(f"unknown item (known: {', '.join(known_names())})")
    for key in body:
        if key not in _ITEM_FIELDS:
            raise ctx.error(f"unknown field {show(key)} (known: {', '.join(_ITEM_FIELDS)})")
    optional: dict[str, Any] = {}
    for key, (field, whole) in _NUMBER_LISTS.items():
        if key in body:
            read = _integer if whole else _number
            optional[field] = tuple(read(v, key, ctx) for v in _list(body[key], key, ctx))
    for key, field in _TEXT_LISTS.items():
        if key in body:
            optional[field] = tuple(_text(v, key, ctx) for v in _list(body[key], key, ctx))
    if "spawnColors" in body:
        colours = _list(body["spawnColors"], "spawnColors", ctx)
        optional["spawn_colors"] = tuple(_color(v, ctx, "spawnColors") for v in colours)
    if body.get("spawnProbability") is not None:
        probability = _number(body["spawnProbability"], "spawnProbability", ctx)
        if not 0.0 <= probability <= 1.0:
            raise ctx.error(f"'spawnProbability' must be in 0..1, got {probability:g}")
        optional["spawn_probability"] = probability
    if body.get("rewardSpawnPos") is not None:
        optional["reward_spawn_pos"] = _vector(body["rewardSpawnPos"], "rewardSpawnPos", ctx)
    if "zoneVisibility" in body:
        optional["zone_visibility"] = _flag(body["zoneVisibility"], "zoneVisibility", ctx, True)
    return ItemSpec(
        name=name,
        positions=tuple(_vector(v, "positions", ctx) for v in _list(body.get("positions"), "positions", ctx)),
        rotations=tuple(_number(v, "rotations", ctx) for v in _list(body.get("rotations"), "rotations", ctx)),
        sizes=tuple(_vector(v, "sizes", ctx) for v in _list(body.get("sizes"), "sizes", ctx)),
        colors=tuple(_color(v, ctx) for v in _list(body.get("colors"), "colors", ctx)),
        **optional,
    )


# -- values -------------------------------------------------------------------------------------


def _untag(data: Any, tag: str, ctx: _Context, what: str) -> Any:
    """The value under ``tag`` (an untagged mapping is accepted too); a wrong tag is an error."""
    if isinstance(data, _UnknownTag):
        raise ctx.error(f"unknown tag {show(data.tag)} at line {data.line} (known: {', '.join(KNOWN_TAGS)})")
    if isinstance(data, _Tagged):
        if data.tag != tag:
            raise ctx.error(f"{what} is tagged {show(data.tag)}, expected {tag!r}")
        return data.value
    return data


def _pick(body: dict[str, Any], name: str, alias: str, ctx: _Context) -> Any:
    if name in body and alias in body:
        raise ctx.error(f"both {name!r} and {alias!r} are given")
    return body.get(name, body.get(alias))


def _list(value: Any, field: str, ctx: _Context) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (_Tagged, _UnknownTag)) or not isinstance(value, list):
        if isinstance(value, _UnknownTag):
            _untag(value, "", ctx, field)
        raise ctx.error(f"'{field}' must be a list")
    return value


def _number(value: Any, field: str, ctx: _Context) -> float:
    if isinstance(value, _UnknownTag):
        _untag(value, "", ctx, field)
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (isinstance(value, float) and not math.isfinite(value))
    ):
        raise ctx.error(f"'{field}' must hold numbers, got {show(value)}")
    if abs(value) > MAX_NUMBER:  # exact for any int: never converted to float before this test
        raise ctx.error(f"'{field}' is out of range (at most {MAX_NUMBER:g} in size), got {show(value)}")
    return float(value)


def _integer(
    value: Any, field: str, ctx: _Context, minimum: int | None = None, maximum: int | None = None
) -> int:
    number = _number(value, field, ctx)
    if number != int(number):
        raise ctx.error(f"'{field}' must be a whole number, got {show(value)}")
    if minimum is not None and number < minimum:
        raise ctx.error(f"'{field}' must be at least {minimum}, got {show(value)}")
    if maximum is not None and number > maximum:
        raise ctx.error(f"'{field}' must be at most {maximum:,}, got {show(value)}")
    return int(number)


def _components(
    value: Any, tag: str, keys: tuple[str, str, str], field: str, ctx: _Context
) -> tuple[float, ...]:
    body = _untag(value, tag, ctx, f"an entry of '{field}'")
    if not isinstance(body, dict):
        raise ctx.error(
            f"'{field}' entries must be {tag} {{{', '.join(f'{k}: ...' for k in keys)}}}, got {show(body)}"
        )
    for key in body:
        if key not in keys:
            raise ctx.error(f"{tag} has no component {show(key)} (known: {', '.join(keys)})")
    # A missing component is 0, as Animal-AI's own reader gives it.
    return tuple(_number(body.get(k, 0), field, ctx) for k in keys)


def _vector(value: Any, field: str, ctx: _Context) -> Vector3:
    return Vector3(*_components(value, "!Vector3", ("x", "y", "z"), field, ctx))


def _color(value: Any, ctx: _Context, field: str = "colors") -> RGB:
    r, g, b = _components(value, "!RGB", ("r", "g", "b"), field, ctx)
    for c in (r, g, b):
        if c > MAX_COLOR:
            raise ctx.error(f"colour components must be 0..256 (negative: random), got {c:g}")
    return RGB(r, g, b)


def _text(value: Any, field: str, ctx: _Context) -> str:
    """A list entry read as text: YamlDotNet turns any scalar into a string (``symbolNames: [1010]``)."""
    if isinstance(value, (_Tagged, _UnknownTag, list, dict)) or value is None:
        if isinstance(value, _UnknownTag):
            _untag(value, "", ctx, field)
        raise ctx.error(f"'{field}' must hold names, got {show(value)}")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _flag(value: Any, field: str, ctx: _Context, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ctx.error(f"'{field}' must be true or false, got {show(value)}")
    return value


def _blackouts(value: Any, ctx: _Context) -> tuple[int, ...]:
    frames = tuple(_integer(v, "blackouts", ctx) for v in _list(value, "blackouts", ctx))
    if any(f < 0 for f in frames):
        if len(frames) != 1:
            raise ctx.error("'blackouts' takes either frame numbers or one negative period such as [-20]")
        return frames
    if any(b <= a for a, b in zip(frames, frames[1:])):
        raise ctx.error(f"'blackouts' frames must increase, got {show(list(frames))}")
    return frames


# -- syntax errors ------------------------------------------------------------------------------

_ARENA_LINE = re.compile(r"^\s*(\d{1,9})\s*:\s*(!Arena\b.*)?$")
_ITEM_LINE = re.compile(r"^\s*-\s*(!Item\b|name\s*:)")
_NAME_LINE = re.compile(r"^\s*(?:-\s*)?name\s*:\s*([^#\s][^#]*)")  # no lazy match: linear on long lines


def _syntax_error(text: str, source: str, exc: yaml.MarkedYAMLError) -> ArenaConfigError:
    """A YAML syntax error, placed in its arena and item by scanning the lines above it."""
    mark = exc.problem_mark or exc.context_mark
    line = mark.line if mark is not None else 0
    ctx = _Context(source)
    for raw in text.splitlines()[: line + 1]:
        if raw.lstrip().startswith("#"):
            continue
        if (m := _ARENA_LINE.match(raw)) and "!Arena" in raw:
            ctx.arena, ctx.item, ctx.item_name = int(m.group(1)), None, None
        elif _ITEM_LINE.match(raw) and ctx.arena is not None:
            ctx.item = 0 if ctx.item is None else ctx.item + 1
            ctx.item_name = None
        if ctx.item is not None and (n := _NAME_LINE.match(raw)):
            ctx.item_name = n.group(1).strip().strip("'\"")
    where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "unknown place"
    problem = exc.problem or exc.context or "malformed YAML"
    kind = "YAML error" if isinstance(exc, yaml.constructor.ConstructorError) else "YAML syntax error"
    if LIBYAML_NESTING_PROBLEM in problem:
        problem, kind = NESTING_PROBLEM, "YAML error"
    return ctx.error(f"{kind} at {where}: {_one_line(problem)[:200]}")


def _one_line(text: str) -> str:
    return " ".join(text.split())
