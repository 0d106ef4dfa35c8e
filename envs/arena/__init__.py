"""The Animal-AI arena rebuilt in pybullet: its YAML configs, items, rules, physics and first-person camera.

``ArenaBackend`` (``aai-arena``) is the face; ``load_arena_config`` / ``parse_arena_config`` read
Animal-AI YAML into typed arenas (``ArenaConfigError`` names file, arena and item; every v3.1.3 and
v4.1.0 item, ``docs/arena-items.md``); ``arena_task_ids`` names each arena of a file; ``VOCABULARY``
is the LLM-AAI paper's ``Go``/``Turn``/``Think``. The backend is imported lazily, so reading
configs or suites does not start pybullet.
"""

from agentkit.envs.animalai_common.config import ArenaConfig, ArenaSpec, ItemSpec
from agentkit.envs.animalai_common.config_loader import (
    ArenaConfigError,
    load_arena_config,
    parse_arena_config,
)
from agentkit.envs.animalai_common.tasks import arena_task_ids
from agentkit.envs.animalai_common.vocabulary import VOCABULARY

__all__ = [
    "ArenaBackend",
    "ArenaConfig",
    "ArenaConfigError",
    "ArenaSpec",
    "ItemSpec",
    "VOCABULARY",
    "arena_task_ids",
    "load_arena_config",
    "parse_arena_config",
]


def __getattr__(name: str):
    if name == "ArenaBackend":
        from agentkit.envs.arena.backend import ArenaBackend

        return ArenaBackend
    raise AttributeError(name)
