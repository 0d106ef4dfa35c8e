"""The Animal-AI arena rebuilt in pybullet: its YAML configs, rules, physics and first-person camera.

``ArenaBackend`` (``aai-arena``) is the face; ``load_arena_config`` / ``parse_arena_config`` read
Animal-AI YAML into typed arenas (``ArenaConfigError`` names file, arena and item); ``VOCABULARY``
is the LLM-AAI paper's ``Go``/``Turn``/``Think``. The backend is imported lazily, so reading
configs or suites does not start pybullet.
"""

from agentkit.envs.arena.config import ArenaConfig, ArenaSpec, ItemSpec
from agentkit.envs.arena.config_loader import ArenaConfigError, load_arena_config, parse_arena_config
from agentkit.envs.arena.vocabulary import VOCABULARY

__all__ = [
    "ArenaBackend",
    "ArenaConfig",
    "ArenaConfigError",
    "ArenaSpec",
    "ItemSpec",
    "VOCABULARY",
    "load_arena_config",
    "parse_arena_config",
]


def __getattr__(name: str):
    if name == "ArenaBackend":
        from agentkit.envs.arena.backend import ArenaBackend

        return ArenaBackend
    raise AttributeError(name)
