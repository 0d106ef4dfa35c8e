"""Name -> backend class. Backends are imported lazily so their heavy dependencies stay optional."""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from agentkit.envs.base import Backend

_BACKENDS: dict[str, str] = {
    "gridworld": "agentkit.envs.gridworld.backend:GridworldBackend",
    "aai-arena": "agentkit.envs.arena.backend:ArenaBackend",
    "animalai": "agentkit.envs.animalai.backend:AnimalAIBackend",
    "trifinger": "agentkit.envs.trifinger.backend:TriFingerBackend",
}


# Backends whose evaluation protocols ``agentkit tasks ENV --protocol Pn`` previews: the module that
# draws them (``preview``) and lays the draws out as table rows (``table_rows``).
_PROTOCOL_PREVIEWS: dict[str, str] = {"trifinger": "agentkit.envs.trifinger.protocol_preview"}


class ProtocolPreview(Protocol):
    """What a backend's protocol preview module offers the ``tasks`` command."""

    def preview(self, protocol: str, samples: int, task: str | None = None) -> list[dict[str, Any]]: ...

    def table_rows(self, entries: list[dict[str, Any]]) -> list[tuple[str, ...]]: ...


def get_protocol_preview(name: str) -> ProtocolPreview:
    """The protocol preview of backend ``name``; ValueError naming the backends that have one."""
    target = _PROTOCOL_PREVIEWS.get(name)
    if target is None:
        known = " or ".join(sorted(_PROTOCOL_PREVIEWS))
        raise ValueError(f"--protocol is for the {known} backend (CausalWorld's protocols), not {name!r}")
    module: ProtocolPreview = importlib.import_module(target)
    return module


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
