"""TriFinger backend: CausalWorld-style block tasks on trifinger-simulation, driven by API-call scripts.

``TriFingerBackend`` (env ``trifinger``) is the face; ``TriFingerGymEnv`` offers the same tasks to
RL agents; ``VOCABULARY`` is the API-call script language; ``volumetric_overlap`` the task score.
Heavy parts (pybullet, pinocchio) load only when the backend or the gym env is first used.
"""

from agentkit.envs.trifinger.overlap import aabb_overlap, volumetric_overlap
from agentkit.envs.trifinger.vocabulary import VOCABULARY

__all__ = ["TriFingerBackend", "TriFingerGymEnv", "VOCABULARY", "aabb_overlap", "volumetric_overlap"]


def __getattr__(name: str):
    if name == "TriFingerBackend":
        from agentkit.envs.trifinger.backend import TriFingerBackend

        return TriFingerBackend
    if name == "TriFingerGymEnv":
        from agentkit.envs.trifinger.gym_env import TriFingerGymEnv

        return TriFingerGymEnv
    raise AttributeError(name)
