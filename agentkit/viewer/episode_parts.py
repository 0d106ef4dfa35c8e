"""Pieces of the episode page that decide what is worth showing: numbering, errors, frames, playback.

Why apart from ``pages.py``: each answers one question a reader of an episode asks (which turn is
this, in the prompt's own numbers? what went wrong, in a line? what did the model see, once? what
did it see over the whole episode?), and each is tested on its own; ``pages.py`` only lays them out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentkit.viewer.frame_refs import FrameRef

ERROR_LINE_CHARS = 160  # the folded error's one line; the whole chain is one click away


def turn_number(index: int) -> int:
    """The 1-based number a turn has in its prompt ("Turn 1 of at most 5") for stored index ``index``.

    Why one function: the page, its charts, its map and its strip all name turns, and a reader
    compares them with the prompt, which counts from 1. Links keep the stored index (``?turn=0``)."""
    return index + 1


@dataclass(frozen=True)
class FoldedError:
    """An error chain as one line (its first line, shortened) and the whole text for a <details>."""

    line: str
    full: str

    @property
    def folded(self) -> bool:
        return self.line != self.full


def fold_error(text: str | None) -> FoldedError | None:
    """``text``'s first non-empty line, cut to ERROR_LINE_CHARS, and the text itself; None if empty."""
    if not text or not text.strip():
        return None
    first = next(line.strip() for line in text.strip().splitlines() if line.strip())
    if len(first) > ERROR_LINE_CHARS:
        first = first[: ERROR_LINE_CHARS - 1].rstrip() + "…"
    return FoldedError(first, text.strip())


def clock_was_run_out(clock: Any) -> bool:
    """Whether an episode's ``clock_run_out`` record is worth a line: something was stepped, the
    world ended the episode, or the run-out failed. A world without a clock (gridworld, TriFinger
    ending on success) records zero idle steps and nothing else, which is no news to a reader."""
    if not isinstance(clock, dict):
        return False
    return bool(clock.get("idle_steps") or clock.get("ended") or clock.get("error") or clock.get("stopped"))


def shown_once(frames: Sequence[FrameRef], parts: list[Any], note: Any) -> list[Any]:
    """A message's parts with the images already shown as the turn's frames replaced by ``note(label)``.

    Why: the frames panel shows what the model saw, and the turn's prompt carries the same images;
    drawn twice, a page of three cameras shows six pictures and pushes the answer off the screen."""
    shas = {f.sha256: f.label for f in frames}
    out = []
    for part in parts:
        sha = getattr(part, "sha", "")
        if getattr(part, "kind", "") == "image" and sha in shas:
            out.append(note(shas[sha] or sha[:12]))
        else:
            out.append(part)
    return out


PLAYBACK_TURNS = 300  # turns a page's player holds: a window around the page's turn on long episodes


def playback(
    points: Sequence[Any], links: Any, media: dict[str, str], current: int = 0
) -> list[dict[str, Any]]:
    """The page's player: per turn with images, its 1-based number and its images' addresses.

    Written into the page as a JSON data block (``tojson``: HTML-safe, and not script, which the
    page's CSP forbids inline) and read by ``static/playback.js``; empty when fewer than two turns
    have images, where there is nothing to play. On an episode of more than PLAYBACK_TURNS such
    turns, the player holds those around ``current`` (the index of the page's turn), so a turn page
    of a 3,000-turn episode stays small (a turn costs about 100 bytes)."""
    with_frames = [p for p in points if p.frames]
    if len(with_frames) > PLAYBACK_TURNS:
        at = next((k for k, p in enumerate(with_frames) if p.index >= current), len(with_frames) - 1)
        start = max(0, min(at - PLAYBACK_TURNS // 2, len(with_frames) - PLAYBACK_TURNS))
        with_frames = with_frames[start : start + PLAYBACK_TURNS]
    turns = []
    for p in with_frames:
        for f in p.frames:
            media[f.sha256] = f.media_type
        turns.append(
            {
                "turn": turn_number(p.index),
                "frames": [{"src": links.blob(f.sha256, f.media_type), "label": f.label} for f in p.frames],
            }
        )
    return turns if len(turns) > 1 else []
