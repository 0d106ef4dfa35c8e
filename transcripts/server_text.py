"""A text column that keeps every character a model can return, NUL included, on any database.

Why: PostgreSQL refuses the NUL character in text (its driver raises before the row is sent), and a
model answer holding one is a paid turn. The store's fallback (``storable_text``) writes such
characters as visible ``\\u0000`` escapes, so the answer read back differs from the one received.
On PostgreSQL this column type instead stores a string holding NUL in a reversible form, a marker
followed by the text with ESC and NUL written as two-character sequences, and turns it back when
read: the answer comes back identical. Strings without NUL (nearly all) are stored as they are, so
queries, exports and other readers see plain text. SQLite takes NUL as it is: no processing there
(the add_turn hot path pays nothing).
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Text
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

_ESC = "\x1b"
#: Starts every stored string that was escaped; a plain string that happens to start with it is
#: escaped too, so reading never mistakes one for the other.
MARKER = "\x1b[agentkit-escaped]"
_TO_STORED = {_ESC: _ESC + "e", "\x00": _ESC + "0"}
_FROM_STORED = {"e": _ESC, "0": "\x00"}
_NEEDS_ESCAPE = re.compile("[\x00\x1b]")
_STORED_PAIR = re.compile("\x1b(.)", re.DOTALL)
_REFUSING = frozenset({"postgresql"})


def to_stored(text: str) -> str:
    """``text`` as a database that refuses NUL can hold it (unchanged unless it holds a NUL or
    starts with the marker)."""
    if "\x00" not in text and not text.startswith(MARKER):
        return text
    return MARKER + _NEEDS_ESCAPE.sub(lambda m: _TO_STORED[m.group()], text)


def from_stored(stored: str) -> str:
    """The text ``to_stored`` was given."""
    if not stored.startswith(MARKER):
        return stored
    return _STORED_PAIR.sub(lambda m: _FROM_STORED.get(m.group(1), m.group(1)), stored[len(MARKER) :])


class ServerSafeText(TypeDecorator[str]):
    """``Text`` that escapes NUL reversibly on databases that refuse it (PostgreSQL)."""

    impl = Text
    cache_ok = True

    def bind_processor(self, dialect: Dialect) -> Any:
        if dialect.name not in _REFUSING:
            return None

        def process(value: str | None) -> str | None:
            return value if value is None else to_stored(value)

        return process

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        if dialect.name not in _REFUSING:
            return None

        def process(value: str | None) -> str | None:
            return value if value is None else from_stored(value)

        return process
