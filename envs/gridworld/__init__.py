"""The gridworld backend: MiniGrid and BabyAI tasks, played through ``Go/Turn/Pickup/Drop/Toggle/Think``.

``GridworldBackend`` is the face; ``VOCABULARY`` its command set; ``GridworldReference`` the
privileged reference agent (BabyAI bot for BabyAI levels, shortest-path planner for goal tasks).
"""

from agentkit.envs.gridworld.backend import GridworldBackend
from agentkit.envs.gridworld.reference import GridworldReference, NoReferenceError
from agentkit.envs.gridworld.vocabulary import VOCABULARY, Act

__all__ = ["Act", "GridworldBackend", "GridworldReference", "NoReferenceError", "VOCABULARY"]
