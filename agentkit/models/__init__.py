"""Model clients: anything that answers chat messages with text (litellm, replay, reference, human)."""

from agentkit.models.base import Model, ModelError

__all__ = ["Model", "ModelError"]
