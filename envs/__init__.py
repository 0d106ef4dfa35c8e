"""Backends: worlds an agent is embodied in. Each declares its vocabulary and compiles commands.

``get_backend(name)`` is the only place that maps a backend name to its class, so the loop and the
CLI never name a backend themselves.
"""

from agentkit.envs.base import Backend, ScriptPolicy, StepResult, TaskInfo
from agentkit.envs.registry import available_backends, get_backend

__all__ = ["Backend", "ScriptPolicy", "StepResult", "TaskInfo", "available_backends", "get_backend"]
