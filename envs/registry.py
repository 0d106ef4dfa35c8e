"""Name -> backend class. Backends are imported lazily so their heavy dependencies stay optional.

Also name -> task catalogue: what `agentkit tasks ENV` lists, found without importing the backend
(its simulator, numpy), so listing tasks starts quickly.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
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
        raise _unknown_env(name) from None
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


def _unknown_env(name: str) -> ValueError:
    return ValueError(f"unknown env {name!r}; known: {', '.join(available_backends())}")


# Where `agentkit tasks ENV` finds a backend's tasks and suites without importing the backend: a
# light module's function ("module:function" returning (rows, suites), rows being (name, category,
# description)), or a JSON file under envs/ written from the backend's own tasks() and suites() by
# scripts/write_task_catalogues.py (tests/test_task_catalogues.py fails when one no longer matches).
_CATALOGUES: dict[str, str] = {
    "aai-arena": "agentkit.envs.animalai_common.testbed_listing:task_catalogue",
    "animalai": "agentkit.envs.animalai_common.testbed_listing:task_catalogue",
    "gridworld": "file:gridworld/task_catalogue.json",
    "trifinger": "file:trifinger/task_catalogue.json",
}


@dataclass(frozen=True)
class ListedTask:
    """One row of `agentkit tasks ENV`."""

    name: str
    category: str
    description: str


@dataclass(frozen=True)
class TaskCatalogue:
    """A backend's tasks in its own order, and its named suites (suite -> task names)."""

    tasks: list[ListedTask]
    suites: dict[str, list[str]]

    def to_json(self) -> dict[str, Any]:
        return {"tasks": [[t.name, t.category, t.description] for t in self.tasks], "suites": self.suites}


def catalogue_file(name: str) -> str | None:
    """The path (under envs/) of backend ``name``'s generated catalogue file, None if it has none."""
    target = _CATALOGUES.get(name, "")
    return target.removeprefix("file:") if target.startswith("file:") else None


def catalogue_from_backend(name: str) -> TaskCatalogue:
    """The catalogue as backend ``name`` itself says it (imports the backend and its simulator)."""
    backend = get_backend(name)
    return TaskCatalogue(
        [ListedTask(t.name, t.category, t.description) for t in backend.tasks()], backend.suites()
    )


# Top-level modules of each backend's extra (pyproject.toml's [project.optional-dependencies]) that
# its module imports: task_catalogue checks they are installed without importing them, so listing
# the tasks of a backend that cannot run gives get_backend's install hint, as it always did.
_EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "gridworld": ("minigrid", "gymnasium"),
    "aai-arena": ("pybullet", "yaml"),
    "animalai": ("yaml", "mlagents_envs"),
    "trifinger": ("trifinger_simulation", "pybullet"),
}


def _check_installed(name: str) -> None:
    """ValueError with the install hint when a module of backend ``name``'s extra cannot be found."""
    for module in _EXTRA_MODULES.get(name, ()):
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise ValueError(
                f"env {name!r} needs optional dependencies that are not installed (no module named {module!r}); "
                f"install them with: pip install 'agentkit-embodied[{_EXTRAS.get(name, name)}]'"
            )


def task_catalogue(name: str) -> TaskCatalogue:
    """What `agentkit tasks ENV` lists for backend ``name``, read without importing the backend."""
    if name not in _BACKENDS:
        raise _unknown_env(name)
    _check_installed(name)
    target = _CATALOGUES.get(name)
    if target is None:
        return catalogue_from_backend(name)
    path = catalogue_file(name)
    if path is None:
        module_name, _, attr = target.partition(":")
        rows, suites = getattr(importlib.import_module(module_name), attr)()
    else:
        try:
            data = json.loads(resources.files("agentkit.envs").joinpath(path).read_text(encoding="utf-8"))
            rows, suites = data["tasks"], data["suites"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(
                f"envs/{path}: unreadable task catalogue ({exc}); "
                "rewrite it with scripts/write_task_catalogues.py"
            ) from exc
    return TaskCatalogue(
        [ListedTask(*row) for row in rows], {suite: list(tasks) for suite, tasks in suites.items()}
    )
