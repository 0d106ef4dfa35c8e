"""Name -> backend class. Backends are imported lazily so their heavy dependencies stay optional."""

from __future__ import annotations

import importlib

from agentkit.envs.base import Backend

_BACKENDS: dict[str, str] = {
    "gridworld": "agentkit.envs.gridworld.backend:GridworldBackend",
    "aai-arena": "agentkit.envs.arena.backend:ArenaBackend",
    "animalai": "agentkit.envs.animalai.backend:AnimalAIBackend",
    "trifinger": "agentkit.envs.trifinger.backend:TriFingerBackend",
}


def available_backends() -> list[str]:
    return sorted(_BACKENDS)


# The package extra that installs a backend's dependencies, where it is not named as the backend.
_EXTRAS: dict[str, str] = {"aai-arena": "arena"}


def get_backend(name: str) -> type[Backend]:
    """The backend class called ``name``; a clear error lists the known ones."""
    try:
        target = _BACKENDS[name]
    except KeyError:
        raise ValueError(f"unknown env {name!r}; known: {', '.join(available_backends())}") from None
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if (exc.name or "").startswith("agentkit"):
            raise  # our own module is broken: a real bug, not a missing extra
        raise ValueError(
            f"env {name!r} needs optional dependencies that are not installed ({exc}); "
            f"install them with: pip install 'agentkit-embodied[{_EXTRAS.get(name, name)}]'"
        ) from exc
    return getattr(module, attr)
