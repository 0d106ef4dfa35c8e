"""Animal-AI through mlagents-envs: the official Unity builds, or agentkit's arena behind the same gRPC protocol.

``AnimalAIBackend`` (``animalai``) is the face: it launches a build with ``UnityEnvironment`` and
plays the arena's tasks with the arena's vocabulary and prompts. ``connector`` speaks ML-Agents
(ports, handshake, side channels, timeouts) and ``observations`` decodes the camera (HWC for 3.x
builds, CHW for 4.x) and the vector observation. What both ends of the link agree on
(``protocol``, ``wire``, ``wire_read``) is in ``envs/animalai_common``; the ``agentkit-arena``
executable, the pybullet arena as a Unity build, is ``envs/arena/unity_standin``.
Imports are lazy, so listing backends does not load gRPC or pybullet.
"""

__all__ = ["AnimalAIBackend", "AnimalAIError", "BuildError"]


def __getattr__(name: str):
    if name == "AnimalAIBackend":
        from agentkit.envs.animalai.backend import AnimalAIBackend

        return AnimalAIBackend
    if name == "AnimalAIError":
        from agentkit.envs.animalai.connector import AnimalAIError

        return AnimalAIError
    if name == "BuildError":
        from agentkit.envs.animalai.build import BuildError

        return BuildError
    raise AttributeError(name)
