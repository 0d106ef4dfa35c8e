"""Arrow keys held on the page as one of Animal-AI's nine per-step actions.

Why a module: the page sends the keys it holds, and the server (not the page) decides what step
they mean, so a page cannot send an action the world does not have. Animal-AI has two branches of
three (move: none / forward / back; turn: none / right / left); up and down together, or left and
right together, cancel each other, as a held pair means no clear choice. The names are those of the
frame-by-frame control (``agentkit.envs.animalai_common.primitives``): the stored answer of each
step is one of them, so the episode replays through the same reader.
"""

from __future__ import annotations

from collections.abc import Iterable

# The page sends KeyboardEvent.key values; WASD are accepted too for keyboards without arrows.
_FORWARD = {"ArrowUp", "w", "W"}
_BACK = {"ArrowDown", "s", "S"}
_LEFT = {"ArrowLeft", "a", "A"}
_RIGHT = {"ArrowRight", "d", "D"}
KNOWN_KEYS = _FORWARD | _BACK | _LEFT | _RIGHT


def held_keys_action(keys: Iterable[str]) -> str:
    """The primitive action name of a set of held keys: ``forward-left`` ... ``stay``.

    Unknown keys are ignored (the page may report Shift or a letter the participant leans on)."""
    held = set(keys)
    up, down = bool(held & _FORWARD), bool(held & _BACK)
    left, right = bool(held & _LEFT), bool(held & _RIGHT)
    move = "forward" if up and not down else "back" if down and not up else ""
    turn = "left" if left and not right else "right" if right and not left else ""
    return "-".join(part for part in (move, turn) if part) or "stay"


# The gridworld is turn-based (MiniGrid steps only when the agent acts), so a key press is one
# step. The keys are MiniGrid's own manual control's (minigrid/manual_control.py: arrows, space
# toggles, page up picks up, page down drops, enter says done) plus letters for laptops.
GRID_KEYS = {
    "ArrowUp": "forward",
    "ArrowLeft": "left",
    "ArrowRight": "right",
    " ": "toggle",
    "t": "toggle",
    "PageUp": "pickup",
    "p": "pickup",
    "PageDown": "drop",
    "d": "drop",
    "Enter": "done",
}


def pressed_key_action(key: str) -> str | None:
    """The gridworld action of one key press, or None for a key that means none."""
    return GRID_KEYS.get(key) or GRID_KEYS.get(key.lower())
