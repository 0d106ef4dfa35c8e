"""What a grid cell is called in words ("closed yellow door", "red key"), shared by the text views."""

from __future__ import annotations

from agentkit.observers.observation import Cell

_KIND_WORDS = {"goal": "goal square", "floor": "floor tile"}


def cell_name(cell: Cell | None) -> str:
    """State, colour and kind, e.g. "locked blue door"; ``None`` is "empty floor"."""
    if cell is None:
        return "empty floor"
    words = [cell.state, cell.color, _KIND_WORDS.get(cell.kind, cell.kind)]
    return " ".join(w for w in words if w)


def with_article(phrase: str) -> str:
    """ "a red key", "an open door" (lava and walls read fine with an article too)."""
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase
