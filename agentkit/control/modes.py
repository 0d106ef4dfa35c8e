"""The two run options of this package as typed values: ``--control`` and ``--observe``.

Why a module of their own: the command line, the run's stored config, replay and rerender all read
the same spelling (``frame-by-frame:4``, ``every:5``), so it is parsed in one place, and a bad value
is refused in one line naming the option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MAX_FRAME_STEPS = 1000  # steps one frame-by-frame answer may last (a guard against a typo like :10000000)
MAX_OBSERVE_EVERY = 10_000


@dataclass(frozen=True)
class ControlMode:
    """``script``, or ``frame-by-frame`` with ``steps`` environment steps per model answer."""

    kind: Literal["script", "frame-by-frame"] = "script"
    steps: int = 1

    @property
    def spec(self) -> str:
        return "script" if self.kind == "script" else f"frame-by-frame:{self.steps}"


@dataclass(frozen=True)
class ObserveMode:
    """When frames are taken during a script: only at its ``end`` (as before), ``every`` K steps, or
    at ``events`` the backend reports (reward, touch, lights)."""

    kind: Literal["end", "every", "events"] = "end"
    every: int = 0

    @property
    def spec(self) -> str:
        return f"every:{self.every}" if self.kind == "every" else self.kind


def _whole(text: str, option: str, lowest: int, highest: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not lowest <= value <= highest:
        raise ValueError(f"{option}: {text!r} is not a whole number from {lowest} to {highest}")
    return value


def parse_control(spec: str) -> ControlMode:
    """``script``, ``frame-by-frame`` (one step per answer) or ``frame-by-frame:N``; ValueError otherwise."""
    text = spec.strip().lower()
    if text == "script":
        return ControlMode()
    name, colon, steps = text.partition(":")
    if name == "frame-by-frame":
        n = _whole(steps, "--control frame-by-frame:N", 1, MAX_FRAME_STEPS) if colon else 1
        return ControlMode("frame-by-frame", n)
    raise ValueError(f"--control: give script or frame-by-frame[:N], not {spec!r}")


def parse_observe(spec: str) -> ObserveMode:
    """``end``, ``every:K`` or ``events``; ValueError otherwise."""
    text = spec.strip().lower()
    if text in ("end", "events"):
        return ObserveMode(text)  # type: ignore[arg-type]
    name, colon, k = text.partition(":")
    if name == "every" and colon:
        return ObserveMode("every", _whole(k, "--observe every:K", 1, MAX_OBSERVE_EVERY))
    raise ValueError(f"--observe: give end, every:K or events, not {spec!r}")


def check_same_control(recorded: str, asked: str | None, run_id: str = "") -> None:
    """Refuse, in one line, to re-render a run's turns under another control mode than it was
    recorded with: another mode asks other questions and would have got other answers, so its
    prompts cannot be laid over the recorded trajectory. ``asked`` None: the recorded mode."""
    if asked is None:
        return
    mode = parse_control(asked).spec
    if mode != parse_control(recorded).spec:
        run = f"run {run_id} " if run_id else ""
        raise ValueError(
            f"--control {mode}: {run}was recorded with --control {parse_control(recorded).spec}; "
            "a run's turns re-render only under the control mode they were played with"
        )
