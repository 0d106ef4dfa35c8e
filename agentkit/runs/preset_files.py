"""The experiment presets shipped inside the package, found by name: `agentkit eval llm-aai-exp1`.

Why: the paper's experiments are what a newcomer runs first. In a folder beside the code they were
missing from an installed package and had to be named by a path that only worked from a clone.
They live in ``agentkit/presets/`` (package data); an argument that is no existing file but names
a preset (with or without ``.yaml``) is that preset.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

SUFFIX = ".yaml"


@dataclass(frozen=True)
class Preset:
    """One packaged experiment file: its name (the file name without ``.yaml``) and one-line description."""

    name: str
    description: str
    path: Path


def _folder() -> Path:
    return Path(str(resources.files("agentkit") / "presets"))


def presets() -> list[Preset]:
    """Every packaged preset, by name."""
    found = []
    for path in sorted(_folder().glob(f"*{SUFFIX}")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError):
            data = {}
        description = str(data.get("description", "")) if isinstance(data, dict) else ""
        found.append(Preset(path.name[: -len(SUFFIX)], description, path))
    return found


def experiment_path(argument: str | os.PathLike[str]) -> Path:
    """``argument`` when it is an existing file, else the packaged preset it names; a name that is
    neither is returned unchanged (reading it then reports the missing file, with the presets' names)."""
    path = Path(argument)
    if path.exists():
        return path
    name = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.name
    if path.parent == Path(".") or str(path.parent) == "presets":  # `presets/x.yaml`, as the README once said
        for preset in presets():
            if preset.name == name:
                return preset.path
    return path


def unknown_experiment_message(argument: str | Path) -> str:
    """One line for an experiment argument that is neither a file nor a preset."""
    names = ", ".join(p.name for p in presets()) or "none"
    return f"{argument}: no such experiment file, and no preset of that name (presets: {names})"
