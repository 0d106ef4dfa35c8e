"""Gymnasium ids for agentkit's worlds, so RL code reaches them with ``gymnasium.make``.

Why a module of its own: gymnasium 1.x has no plugin discovery, so ids exist only once something
registers them; importing this module (or naming it in the id, ``gymnasium.make(
"agentkit.envs.gym_registry:agentkit/AnimalAI-v0")``) does, without importing any backend (entry
points are strings, as in ``registry.py``), so a missing optional extra fails only the env it needs.

* ``agentkit/AnimalAI-v0``: the pybullet Animal-AI arena (``envs/arena/gym_env.py``): options
  ``task``, ``aai_version``, ``render_size``, ``flatten_actions``;
* ``agentkit/TriFinger-v0``: CausalWorld's block tasks on TriFinger (``envs/trifinger/gym_env.py``):
  options ``task``, ``action_mode``, ``frame_skip``, ``overlap_mode``;
* ``gridworld/<family>-<difficulty>``: the gridworld catalogue's 55 tasks, aliases of their MiniGrid
  and BabyAI levels (``envs/gridworld/catalogue.py``), registered when minigrid is installed.
"""

from __future__ import annotations

import importlib
import importlib.util

import gymnasium

ARENA_ID = "agentkit/AnimalAI-v0"
TRIFINGER_ID = "agentkit/TriFinger-v0"

_ENTRY_POINTS = {
    ARENA_ID: "agentkit.envs.arena.gym_env:ArenaGymEnv",
    TRIFINGER_ID: "agentkit.envs.trifinger.gym_env:TriFingerGymEnv",
}


def register_envs() -> None:
    """Register every agentkit id in gymnasium's registry (idempotent)."""
    for env_id, entry_point in _ENTRY_POINTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)
    if importlib.util.find_spec("minigrid") is not None:
        importlib.import_module("agentkit.envs.gridworld.catalogue").register_catalogue()


register_envs()
