"""Named observation modalities of one gridworld state, each a way to fill the prompt.

A modality is a choice of observer views (ASCII map with legend, English with relative directions
and step distances, structured JSON with the commands useful now and step count), of pixels (egocentric view
or the full map) and of whether images are sent. The mission is always in the status block, so
``mission`` alone is the text-poorest modality. The renderers behind these names know no task:
they read a GridView and frames, whatever level produced them.

``apply_modality(config, name)`` returns a copy of a RunConfig set up for one modality.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentkit.config import RunConfig
from agentkit.observers import ObserverConfig


@dataclass(frozen=True)
class Modality:
    name: str
    views: tuple[str, ...]
    frame: str = "none"  # the backend's top-down map: "agent" (field of view highlighted), "full", "none"
    egocentric: bool = False
    description: str = ""

    @property
    def has_images(self) -> bool:
        return self.frame != "none" or self.egocentric


MODALITIES: dict[str, Modality] = {
    m.name: m
    for m in (
        Modality(
            "mission",
            (),
            description="Only the mission and the status block (step, carrying, commands useful now).",
        ),
        Modality(
            "ascii", ("ascii",), description="ASCII map of the seen cells with a legend of the symbols shown."
        ),
        Modality(
            "language",
            ("language",),
            description="English: relative directions and step distances to what was seen.",
        ),
        Modality(
            "structured",
            ("structured",),
            description="JSON: position, orientation, entities, inventory, commands useful now, step.",
        ),
        Modality(
            "ascii+language", ("ascii", "language"), description="The ASCII map and the English description."
        ),
        Modality(
            "pixels-egocentric",
            ("image",),
            egocentric=True,
            description="The agent's own view square as an image.",
        ),
        Modality(
            "pixels-full", ("image",), frame="full", description="The whole map from above as an image."
        ),
        Modality(
            "pixels-full+ascii",
            ("image", "ascii"),
            frame="agent",
            description="The map with the field of view highlighted, plus the ASCII map.",
        ),
    )
}


def modality(name: str) -> Modality:
    try:
        return MODALITIES[name]
    except KeyError:
        raise ValueError(f"unknown gridworld modality {name!r}; known: {', '.join(MODALITIES)}") from None


def modality_settings(name: str) -> dict[str, Any]:
    """RunConfig fields for a modality: ``observer``, ``include_images`` and the backend's frame options."""
    m = modality(name)
    return {
        "observer": {"views": list(m.views)},
        "include_images": m.has_images,
        "backend_options": {"frame": m.frame, "egocentric": m.egocentric},
    }


def apply_modality(config: RunConfig, name: str) -> RunConfig:
    """A copy of ``config`` showing ``name``; other observer and backend options are kept."""
    settings = modality_settings(name)
    observer = config.observer.model_copy(update={"views": settings["observer"]["views"]})
    options = {**config.backend_options, **settings["backend_options"]}
    return config.model_copy(
        update={
            "observer": ObserverConfig.model_validate(observer.model_dump()),
            "include_images": settings["include_images"],
            "backend_options": options,
        }
    )
