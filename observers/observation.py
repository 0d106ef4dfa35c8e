"""The observation types that travel one way: backend -> RawObservation -> observer -> Observation."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentkit.observers.pose import Pose


@dataclass(frozen=True)
class Cell:
    """One gridworld cell in backend-neutral terms: what is there, its colour, its state."""

    kind: str  # "wall", "floor", "door", "key", "ball", "box", "goal", "lava", "unseen", ...
    color: str | None = None
    state: str | None = None  # "open", "closed", "locked" for doors


@dataclass(frozen=True)
class GridView:
    """A top-down grid. ``cells[y][x]``; ``None`` is empty floor. Direction is a compass word."""

    cells: list[list[Cell | None]]
    agent_pos: tuple[int, int]
    agent_dir: str  # "east", "south", "west", "north"
    carrying: Cell | None = None
    seen: np.ndarray | None = None  # bool mask [y][x] of cells the agent has seen so far

    @property
    def width(self) -> int:
        return len(self.cells[0]) if self.cells else 0

    @property
    def height(self) -> int:
        return len(self.cells)


@dataclass
class RawObservation:
    """What a backend hands to the observer after a reset or after a script."""

    step: int
    frames: dict[str, np.ndarray] = field(default_factory=dict)  # name -> HxWx3 uint8
    grid: GridView | None = None
    mission: str | None = None
    reward: float = 0.0  # since the previous observation
    total_reward: float = 0.0
    health: float | None = None
    done: bool = False
    success: bool | None = None
    status: dict[str, Any] = field(default_factory=dict)  # extra status fields, rendered as text
    privileged: dict[str, Any] = field(default_factory=dict)  # JSON-able; never shown to models
    # Where the agent is, for maps of its trajectory (the structured view carries it for backends
    # without a grid); see Pose for the heading's convention.
    pose: Pose | None = None


@dataclass(frozen=True)
class EncodedImage:
    """An image ready for a prompt: encoded bytes, addressed by their SHA-256 (stored once)."""

    label: str
    media_type: str  # "image/png" or "image/jpeg"
    data: bytes
    sha256: str
    width: int
    height: int

    def data_url(self) -> str:
        """The image as a ``data:`` URL, for a page that shows it. Prompts carry the bytes and the
        sha256 instead (``agentkit.messages.ImagePart``); only the model client base64s them."""
        return f"data:{self.media_type};base64,{base64.b64encode(self.data).decode('ascii')}"


@dataclass
class Observation:
    """Everything a prompt may show about the current state, in every view the observer produced."""

    step: int
    images: list[EncodedImage] = field(default_factory=list)
    status_text: str = ""
    ascii: str | None = None
    language: str | None = None
    structured: dict[str, Any] | None = None
    mission: str | None = None
    reward: float = 0.0
    total_reward: float = 0.0
    health: float | None = None
    done: bool = False
    success: bool | None = None
    privileged: dict[str, Any] = field(default_factory=dict)
    # Where the agent stands and faces, kept for viewers' trajectory maps whatever views the prompt
    # uses; templates need not show it. Stored as Pose.to_json().
    pose: Pose | None = None

    def to_json(self) -> dict[str, Any]:
        """The views as JSON, images by reference (hash), for transcripts."""
        return {
            "step": self.step,
            "images": [
                {
                    "label": i.label,
                    "media_type": i.media_type,
                    "sha256": i.sha256,
                    "width": i.width,
                    "height": i.height,
                }
                for i in self.images
            ],
            "status_text": self.status_text,
            "ascii": self.ascii,
            "language": self.language,
            "structured": self.structured,
            "mission": self.mission,
            "reward": self.reward,
            "total_reward": self.total_reward,
            "health": self.health,
            "done": self.done,
            "success": self.success,
            **({"pose": self.pose.to_json()} if self.pose is not None else {}),
        }
