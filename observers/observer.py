"""The observer: one RawObservation in, one Observation out, with the views a run asked for.

Views are opt-in so a run that shows only images pays nothing for text, and text-only runs skip
encoding. A requested view the backend cannot feed (no grid, no frames) is simply left empty.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agentkit.observers.grid_ascii import render_ascii
from agentkit.observers.grid_language import describe_grid
from agentkit.observers.grid_structured import structured_view
from agentkit.observers.image_encoding import encode_image
from agentkit.observers.observation import EncodedImage, Observation, RawObservation
from agentkit.observers.status import status_text

View = Literal["image", "ascii", "language", "structured"]


class ObserverConfig(BaseModel):
    """Which views to produce and how to encode images: built here, and stored with a run as its
    ``RunConfig.observer`` (the run's default views are agentkit.leaves.run_defaults.OBSERVER_VIEWS)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    views: list[View] = ["image", "ascii", "language", "structured"]
    image_format: Literal["jpeg", "png"] = "jpeg"
    max_side: int = Field(512, ge=16, le=4096)
    quality: int = Field(85, ge=1, le=100)


class Observer:
    """Turns a backend's raw observation into the views a prompt may show."""

    def __init__(self, config: ObserverConfig | None = None) -> None:
        self.config = config or ObserverConfig()

    def encode_frames(self, frames: dict[str, Any], label: str) -> list[EncodedImage]:
        """Camera frames taken outside an observation (``Backend.frames_now``) as this observer
        encodes images, each labelled ``label`` (and its camera's name when there are several);
        none when the run asks for no images."""
        if "image" not in self.config.views:
            return []
        several = len(frames) > 1
        return [
            encode_image(
                frame,
                label=f"{label} {name}" if several else label,
                fmt=self.config.image_format,
                max_side=self.config.max_side,
                quality=self.config.quality,
            )
            for name, frame in frames.items()
        ]

    def observe(self, raw: RawObservation) -> Observation:
        views = set(self.config.views)
        grid = raw.grid
        images = []
        if "image" in views:
            images = [
                encode_image(
                    frame,
                    label=name,
                    fmt=self.config.image_format,
                    max_side=self.config.max_side,
                    quality=self.config.quality,
                )
                for name, frame in raw.frames.items()
            ]
        return Observation(
            step=raw.step,
            images=images,
            status_text=status_text(raw),
            ascii=render_ascii(grid) if grid is not None and "ascii" in views else None,
            language=describe_grid(grid) if grid is not None and "language" in views else None,
            structured=(
                {**structured_view(grid, raw.step, raw.mission), "status": dict(raw.status)}
                if grid is not None and "structured" in views
                else _pose_view(raw)
                if raw.pose is not None and "structured" in views
                else None
            ),
            mission=raw.mission,
            reward=raw.reward,
            total_reward=raw.total_reward,
            health=raw.health,
            done=raw.done,
            success=raw.success,
            privileged=raw.privileged,
            pose=raw.pose,
        )


def _pose_view(raw: RawObservation) -> dict[str, Any]:
    """The structured view of a backend without a grid: its pose (for trajectory maps) and status.

    Its keys are those of the grid's structured view (``grid_structured``), which a prompt may show
    as JSON: the heading is called "orientation" there, the word models have been shown since the
    first transcripts; in code it is ``Pose.heading``."""
    assert raw.pose is not None
    return {
        "step": raw.step,
        "position": raw.pose.to_json()["position"],
        "orientation": raw.pose.heading,
        "status": dict(raw.status),
    }
