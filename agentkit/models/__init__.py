"""Model clients: anything that answers chat messages with text (litellm, replay, reference, human),
and the participants that play turns without chat (a backend's built-in controller)."""

from agentkit.models.base import Model, ModelError

__all__ = ["Model", "ModelError"]
