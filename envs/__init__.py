"""Backends: worlds an agent is embodied in. Each declares its vocabulary and compiles commands.

``get_backend(name)`` is the only place that maps a backend name to its class, so the loop and the
CLI never name a backend themselves. The names below load on first use (PEP 562): importing a
light module of this package (the registry, a task catalogue) must not import numpy through
``base`` and the observers, so ``agentkit tasks ENV`` starts quickly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentkit.leaves.lazy_names import lazy_names

if TYPE_CHECKING:
    from agentkit.envs.base import Backend, ScriptPolicy, StepResult, TaskInfo
    from agentkit.envs.registry import available_backends, get_backend

__all__ = ["Backend", "ScriptPolicy", "StepResult", "TaskInfo", "available_backends", "get_backend"]

_HOMES = {
    "Backend": "base",
    "ScriptPolicy": "base",
    "StepResult": "base",
    "TaskInfo": "base",
    "available_backends": "registry",
    "get_backend": "registry",
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
