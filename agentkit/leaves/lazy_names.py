"""A package's public names, each loaded from its own module on first use (PEP 562).

Why: ``agentkit.envs`` and ``agentkit.observers`` export names whose modules bring numpy, Pillow or
pydantic, while the commands that import those packages for one light name (the task registry, a
``Pose``) must start quickly. One loader serves both, so the error text and the caching are the same.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: ``homes`` maps each exported name to the
    submodule defining it; a name found once is kept in ``namespace`` (the package's globals), so
    later lookups do not come back here."""

    def module_getattr(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    def module_dir() -> list[str]:
        return sorted({*namespace, *homes})

    return module_getattr, module_dir
