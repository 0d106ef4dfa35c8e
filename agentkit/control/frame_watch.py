"""Frames taken while a script runs (``--observe every:K|events``), shown on the next turn.

Why: with one picture per turn, taken after the whole script, a ``Turn(180)`` sweeps past a goal
the model never sees (the LLM-AAI paper names this limit). The watch is told of every step the
loop takes; it takes the backend's frames every K steps of a script, or when a step reports
something (a reward, a touch, the lights changing: what ``StepResult`` honestly carries; a goal
coming into view, where the backend's renderer can tell: ``Backend.sight_events``), labels
each with its step, and hands them over with the observation the model sees next: before the
current view, oldest first, thinned evenly to the image budget (``--observe-max-images``, which
counts these frames; the current view is always sent). They are the observation's own
images, so the store, replay, rerender and the viewer keep and show them like any other.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentkit.control.modes import ObserveMode
from agentkit.envs.base import Backend, StepResult
from agentkit.observers import Observation
from agentkit.observers.observation import EncodedImage

log = logging.getLogger(__name__)

Encode = Callable[[Any, str], EncodedImage]  # (HxWx3 frame, label) -> the run's image encoding


@dataclass(frozen=True)
class Taken:
    step: int
    why: str  # "" for a periodic frame, else the event, e.g. "reward +1.00"
    images: tuple[EncodedImage, ...]


def events_of(result: StepResult) -> str:
    """What one step reported that is worth a look, in words ("" for nothing)."""
    said = []
    if result.reward and abs(result.reward) >= 1e-6 and (result.done or abs(result.reward) >= 0.05):
        said.append(f"reward {result.reward:+.2f}")  # not the per-step health drain of Animal-AI
    touched = result.info.get("touched") if isinstance(result.info, dict) else None
    if touched:
        said.append("touched " + ", ".join(str(t) for t in touched))
    lights = result.info.get("lights") if isinstance(result.info, dict) else None
    if lights in ("on", "off"):
        said.append(f"lights {lights}")
    return "; ".join(said)


def thin(taken: list[Taken], budget: int) -> list[Taken]:
    """At most ``budget`` items, evenly spread, the last always kept (the latest sight matters most)."""
    if budget <= 0:
        return []
    if len(taken) <= budget:
        return taken
    if budget == 1:
        return taken[-1:]
    last = len(taken) - 1
    picks = sorted({round(i * last / (budget - 1)) for i in range(budget)})
    return [taken[i] for i in picks]


class FrameWatch:
    """Watches one episode's steps for the frames ``mode`` asks for; one script at a time."""

    def __init__(self, mode: ObserveMode, backend: Backend, encode: Encode, max_images: int = 8) -> None:
        self.mode = mode
        self.backend = backend
        self.encode = encode
        self.max_images = max_images
        self._step = 0
        self._start = 0
        self._taken: list[Taken] = []
        self._warned = False

    @property
    def active(self) -> bool:
        return self.mode.kind != "end"

    def start(self, step: int) -> None:
        """A script begins at environment step ``step`` (the step of the observation the model saw)."""
        self._step = self._start = step
        self._taken = []
        if self.mode.kind == "events":
            self.backend.sight_events()  # what is in view as the script starts is not news

    def after_step(self, result: StepResult) -> None:
        """One low-level action was stepped: take frames if the mode asks for them now."""
        self._step += 1
        if self.mode.kind == "every":
            if (self._step - self._start) % self.mode.every:
                return
            why = ""
        else:
            why = "; ".join(filter(None, [events_of(result), *self.backend.sight_events()]))
            if not why:
                return
        frames = self.backend.frames_now()
        if not frames:
            if not self._warned:
                log.warning(
                    "--observe %s: the %s backend renders no frames in this run; nothing is taken",
                    self.mode.spec,
                    self.backend.name,
                )
                self._warned = True
            return
        label = f"step {self._step}" + (f" ({why})" if why else "")
        several = len(frames) > 1
        images = tuple(
            self.encode(frame, f"{label} {name}" if several else label) for name, frame in frames.items()
        )
        self._taken.append(Taken(self._step, why, images))

    def finish(self, observation: Observation) -> Observation:
        """``observation`` with the script's frames before its own images, within the image budget.
        A frame of the very step the observation shows is left out (the current view shows it)."""
        taken = [t for t in self._taken if t.step != observation.step or t.why]
        self._taken = []
        if not taken:
            return observation
        per_step = max(len(t.images) for t in taken)  # cameras per frame (several on some robots)
        kept = thin(taken, self.max_images // per_step)
        if not kept:
            return observation
        frames = [image for t in kept for image in t.images]
        return dataclasses.replace(observation, images=[*frames, *observation.images])
