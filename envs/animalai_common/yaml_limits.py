"""Limits that keep a hostile or broken arena file to one error line, in bounded time and memory.

Why: arena files come from users and shared folders. Before these limits, ``[`` x 50,000 crashed the
process (libyaml's composer recurses in C), 1,000 levels raised RecursionError, a 689-byte file of
nested anchors ("billion laughs") printed a 322 MB error after 44 s, and a 5000-digit number hit
Python's integer-conversion limit with a traceback. So, before anything is built:

* ``check_shape`` walks the parser's events (libyaml's parser keeps its own stack and is lazy, so this
  stops as soon as a limit is crossed) and refuses nesting deeper than ``MAX_DEPTH`` and documents of
  more than ``MAX_NODES`` nodes, counting each alias as the whole value it repeats;
* mapping keys must be plain scalars (a tagged or collection key is refused) and may not repeat;
* integers are read only up to ``MAX_NUMBER_CHARS`` characters;
* error messages show values through ``show``, which never writes more than a few dozen characters
  however large or self-repeating the value is.

The Testbed's largest file has 3,460 nodes and nesting depth 7, far below the limits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import yaml
from yaml.constructor import ConstructorError

MAX_FILE_CHARS = 4_000_000  # the Testbed's largest file is 23 KB
MAX_DEPTH = 64  # nested lists and mappings; the Testbed needs 7
MAX_NODES = 250_000  # scalars and collections, aliases counted as what they repeat; the Testbed needs 3,460
MAX_NUMBER_CHARS = 40  # an integer's written length (digits, sign, base prefix, underscores)
SHOW_LIMIT = 60  # characters of a value quoted in an error message
NESTING_PROBLEM = f"lists and mappings nested too deep (at most {MAX_DEPTH} levels)"
# libyaml 0.2.6 (PyYAML 6.0.4 wheels) refuses 1,000 levels itself while scanning ahead, before our walk
# sees the 65th; its message is reported as ours so the line reads the same with either version.
LIBYAML_NESTING_PROBLEM = "exceeded maximum nesting depth"

_STANDARD_TAG = "tag:yaml.org,2002:"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _mark(event: yaml.Event) -> yaml.error.Mark | None:
    """Where ``event`` starts, for an error message. types-PyYAML types the mark as the pure-Python
    Mark or the C parser's, and ConstructorError's as the pure-Python one only, though it takes
    either (it only prints it): hence the cast."""
    return cast("yaml.error.Mark | None", event.start_mark)


def check_shape(text: str, loader: type) -> None:
    """Raise ``ConstructorError`` (with the line) when ``text`` nests too deep or holds too many nodes."""
    depth = 0
    total = 0
    frames: list[list[Any]] = []  # per open collection: its anchor and its expanded node count
    sizes: dict[str, int] = {}  # expanded node count of each anchored value
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise ConstructorError(None, None, NESTING_PROBLEM, _mark(event))
            frames.append([event.anchor, 1])
            added = 1
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
            anchor, count = frames.pop()
            if anchor is not None:
                sizes[anchor] = count
            if frames:
                frames[-1][1] += count
            continue
        elif isinstance(event, yaml.ScalarEvent):
            if event.anchor is not None:
                sizes[event.anchor] = 1
            added = 1
            if frames:
                frames[-1][1] += 1
        elif isinstance(event, yaml.AliasEvent):
            added = sizes.get(event.anchor, 1) if event.anchor is not None else 1
            if frames:
                frames[-1][1] += added
        else:
            continue
        total += added
        if total > MAX_NODES:
            raise ConstructorError(
                None,
                None,
                f"more than {MAX_NODES:,} values (aliases counted as what they repeat)",
                _mark(event),
            )


def construct_checked_mapping(base: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a loader's ``construct_mapping`` so keys are plain scalars and never repeat."""

    def construct_mapping(self: Any, node: yaml.Node, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or not key_node.tag.startswith(_STANDARD_TAG):
                    raise ConstructorError(
                        None,
                        None,
                        "a key must be a plain name or number, not a tagged value, a list or a mapping",
                        key_node.start_mark,
                    )
                if key_node.tag == _MERGE_TAG:
                    continue
                line = key_node.start_mark.line + 1
                if key_node.value in seen:
                    raise ConstructorError(
                        None,
                        None,
                        f"duplicate key {show(key_node.value)} (first given at line {seen[key_node.value]})",
                        key_node.start_mark,
                    )
                seen[key_node.value] = line
        return base(self, node, deep)

    return construct_mapping


def construct_bounded_int(base: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap the YAML int constructor so absurdly long integers are refused before conversion."""

    def construct_int(self: Any, node: yaml.Node) -> Any:
        written = str(node.value)
        if len(written) > MAX_NUMBER_CHARS:
            raise ConstructorError(
                None,
                None,
                f"a number written with {len(written):,} characters (at most {MAX_NUMBER_CHARS})",
                node.start_mark,
            )
        return base(self, node)

    return construct_int


def show(value: Any, limit: int = SHOW_LIMIT) -> str:
    """A short repr of ``value`` for an error message: at most ``limit`` characters, whatever its size.

    Walks the value itself with a budget (never ``repr`` of a whole collection), so a value made of
    aliases repeating each other is not expanded.
    """
    parts: list[str] = []
    budget = [limit + 1]

    def emit(piece: str) -> bool:
        parts.append(piece[: budget[0]])
        budget[0] -= len(piece)
        return budget[0] > 0

    def walk(item: Any) -> bool:
        tag = getattr(item, "tag", None)
        if isinstance(tag, str) and hasattr(item, "value"):
            return emit(tag[:limit] + " ") and walk(item.value)
        if isinstance(item, dict):
            if not emit("{"):
                return False
            for index, (key, entry) in enumerate(item.items()):
                if not (emit(", " if index else "") and walk(key) and emit(": ") and walk(entry)):
                    return False
            return emit("}")
        if isinstance(item, (list, tuple)):
            if not emit("["):
                return False
            for index, entry in enumerate(item):
                if not (emit(", " if index else "") and walk(entry)):
                    return False
            return emit("]")
        if isinstance(item, str):
            return emit(repr(item[: limit + 1]))
        if isinstance(item, int) and not isinstance(item, bool) and item.bit_length() > 64:
            return emit(f"<a {item.bit_length()}-bit number>")
        return emit(repr(item)[: limit + 1])

    walk(value)
    text = "".join(parts)
    return text if len(text) <= limit else text[: limit - 3] + "..."
