"""Harness presets: a named pairing of memory policy and prompt template set.

A harness is how an agent is wrapped around the model, independent of the model and of what it
observes (the modality). Presets, each a plain dict of RunConfig fields:

- ``markovian``: only the current observation; the plain gridworld prompt (answer with a script).
- ``markovian-reasoner``: only the current observation; the prompt asks for one short Think (at
  most three sentences: mission, where the target is, the plan) and then the script.
- ``react``: full history (every earlier observation and answer); the prompt asks for a
  thought-action cycle of one Think and one to three commands per answer.
- ``window-K`` (e.g. ``window-4``): the last K turns of history; the plain prompt.

``apply_harness(config, name)`` returns a copy of a RunConfig using the preset.
"""

from __future__ import annotations

import re
from typing import Any

from agentkit.config import RunConfig

HARNESSES: dict[str, dict[str, Any]] = {
    "markovian": {"memory": "markovian", "templates_dir": None},
    "markovian-reasoner": {"memory": "markovian", "templates_dir": "gridworld-reasoner"},
    "react": {"memory": "full", "templates_dir": "gridworld-react"},
}
_WINDOW = re.compile(r"window-(\d+)")


def harness_preset(name: str) -> dict[str, Any]:
    """The RunConfig fields of a preset (``window-K`` for any K >= 1)."""
    if name in HARNESSES:
        return dict(HARNESSES[name])
    match = _WINDOW.fullmatch(name)
    if match and int(match.group(1)) >= 1:
        return {"memory": f"window:{int(match.group(1))}", "templates_dir": None}
    raise ValueError(f"unknown harness {name!r}; known: {', '.join(HARNESSES)}, window-K (K >= 1)")


def harness_names() -> list[str]:
    return [*HARNESSES, "window-K"]


def apply_harness(config: RunConfig, name: str) -> RunConfig:
    """A copy of ``config`` with the preset's memory policy and template set."""
    return RunConfig.model_validate({**config.model_dump(), **harness_preset(name)})
