"""Gymnasium ids for agentkit's worlds, so RL code reaches them with ``gymnasium.make``.

Why a module of its own: gymnasium 1.x has no plugin discovery (0.x's ``gymnasium.envs`` entry-point
group was removed, so a package entry point would never be read), so ids exist only once something
registers them; importing this module (or naming it in the id, ``gymnasium.make(
"agentkit.envs.gym_registry:agentkit/AnimalAI-v0")``, which works from a fresh interpreter) does,
without importing any backend (entry points are strings, as in ``registry.py``), so a missing
optional extra fails only the env it needs. Registering again is a no-op, never a warning.

* ``agentkit/AnimalAI-v0``: the pybullet Animal-AI arena (``envs/arena/gym_env.py``): options
  ``task``, ``aai_version``, ``render_size``, ``flatten_actions``;
* ``agentkit/trifinger-<task>-v0`` (``pushing``, ``picking``, ``pick_and_place``, ``stacking2``,
  ``towers``, ``stacked_blocks``, ``creative_stacked_blocks``, ``general``, ``reaching``):
  CausalWorld's tasks with its RL interface (``envs/trifinger/gym_env.py``): options
  ``observation_mode`` (structured, pixel), ``action_mode`` (joint_positions, joint_torques,
  end_effector_positions), ``skip_frame``, ``task`` (e.g. ``pushing@P0`` for the default scene);
  ``agentkit/TriFinger-v0`` is the same environment with ``task`` chosen by the caller;
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
#: CausalWorld's task generators (causal_world/task_generators/task.py), one id each.
TRIFINGER_TASKS = (
    "pushing",
    "picking",
    "pick_and_place",
    "stacking2",
    "towers",
    "stacked_blocks",
    "creative_stacked_blocks",
    "general",
    "reaching",
)
TRIFINGER_TASK_IDS = {f"agentkit/trifinger-{task}-v0": task for task in TRIFINGER_TASKS}


def register_envs() -> None:
    """Register every agentkit id in gymnasium's registry (idempotent)."""
    for env_id, entry_point in _ENTRY_POINTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)
    for env_id, task in TRIFINGER_TASK_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=_ENTRY_POINTS[TRIFINGER_ID], kwargs={"task": task})
    if importlib.util.find_spec("minigrid") is not None:
        importlib.import_module("agentkit.envs.gridworld.catalogue").register_catalogue()


register_envs()
