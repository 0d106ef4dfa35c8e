"""Live terminal displays (the run's progress bar) that step aside while a person types.

Why: a rich live display redraws itself several times a second and captures stdout while it runs;
a person answering ``--model human`` at the same terminal saw the bar drawn over the prompt and
over what they typed. The runner registers its display here (:func:`showing`); the human model
enters :func:`held` while it shows a prompt and reads the script: every registered display is
stopped (its lines cleared) and started again afterwards.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class LiveDisplay(Protocol):
    """What a display needs to step aside: rich's Progress and Live have both methods."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


_lock = threading.RLock()
_displays: list[LiveDisplay] = []
_holders = 0  # how many callers hold the terminal now (nested or concurrent)


@contextmanager
def showing(display: LiveDisplay) -> Iterator[LiveDisplay]:
    """Register ``display`` (already started) for as long as the block runs."""
    with _lock:
        _displays.append(display)
        if _holders:
            display.stop()  # someone is typing right now
    try:
        yield display
    finally:
        with _lock:
            _displays.remove(display)


@contextmanager
def held() -> Iterator[None]:
    """Stop every registered display for the duration of the block, then start them again."""
    global _holders
    with _lock:
        _holders += 1
        if _holders == 1:
            for display in _displays:
                display.stop()
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                for display in _displays:
                    display.start()
