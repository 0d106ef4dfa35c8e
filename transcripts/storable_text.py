"""Text a database cannot take as it is (a lone surrogate, a NUL character), escaped so the turn is kept.

A model answer is paid for. A misbehaving server can return a lone UTF-16 surrogate ("\\ud800",
which has no UTF-8 form, so SQLite's driver and the blob encoder refuse it) or a NUL character
(which PostgreSQL refuses in text). Refusing the turn would lose the answer; storing it with those
characters written as the visible escape ``\\uXXXX`` keeps it. Only the few characters that fail are
changed, and only when a write has failed, so ordinary turns cost nothing.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TypeVar

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

T = TypeVar("T")


def escape_text(text: str) -> str:
    """``text`` with every lone surrogate and NUL written as ``\\uXXXX``."""
    return _UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def escape_value(value: T) -> T:
    """A JSON-like value (dicts, lists, tuples, strings) with its strings escaped; parts that need
    no change are returned as they are (the same objects)."""
    if isinstance(value, str):
        return escape_text(value) if _UNSTORABLE.search(value) else value  # type: ignore[return-value]
    if isinstance(value, dict):
        return {escape_value(k): escape_value(v) for k, v in value.items()}  # type: ignore[return-value]
    if isinstance(value, (list, tuple)):
        return type(value)(escape_value(v) for v in value)
    return value


def escape_turn(turn: T) -> T:
    """A copy of a TurnRecord with every text field escaped (images and numbers untouched)."""
    fields = (
        "observation",
        "messages",
        "answer",
        "script",
        "parse_error",
        "compile_error",
        "actions",
        "timings",
        "prompt_context",
        "world_map",
        "task_source",
        "tool_calls",
    )
    return dataclasses.replace(turn, **{name: escape_value(getattr(turn, name)) for name in fields})  # type: ignore[type-var]


def is_unstorable_text_error(exc: BaseException) -> bool:
    """Whether a failed write was refused for such characters (not for a constraint or the disk)."""
    if isinstance(exc, UnicodeEncodeError):
        return True
    return type(exc) is ValueError and "NUL" in str(exc)  # psycopg: "cannot contain NUL (0x00) characters"
