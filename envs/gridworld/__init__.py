"""The gridworld backend: MiniGrid and BabyAI tasks, played through ``Go/Turn/Pickup/Drop/Toggle/Think``.

``GridworldBackend`` is the face; ``VOCABULARY`` its command set; ``GridworldReference`` the
privileged reference agent (BabyAI bot for BabyAI levels, shortest-path planner for goal tasks).
Evaluation: ``catalogue`` (families x difficulties by capability), ``seeds`` (hashed split seeds),
``modalities`` and ``harness`` (named prompt setups), ``leaderboard`` (eval plan, ONS, figure),
``gym_env`` (catalogue tasks for RL).
"""

from agentkit.envs.gridworld.api_vocabulary import API_VOCABULARY
from agentkit.envs.gridworld.backend import GridworldBackend
from agentkit.envs.gridworld.catalogue import CATALOGUE
from agentkit.envs.gridworld.reference import GridworldReference, NoReferenceError
from agentkit.envs.gridworld.vocabulary import VOCABULARY, Act

__all__ = [
    "API_VOCABULARY",
    "Act",
    "CATALOGUE",
    "GridworldBackend",
    "GridworldReference",
    "NoReferenceError",
    "VOCABULARY",
]
