"""The backend's privileged reference agent, seen by the loop as just another model.

Why: a planner that writes scripts in the same language as models, run through the same loop,
parser and compiler, gives a ceiling to compare models against and checks the whole pipeline
without any API. It reads the Observation (including privileged state), not the prompt.
"""

from __future__ import annotations

import time
from typing import Any

from agentkit.observers import Observation
from agentkit.observers.script_policy import ScriptPolicy
from agentkit.records import ModelReply, Usage


class ReferenceModel:
    """Answers with ``policy.next_answer(observation)`` at zero cost; latency is the planner's time."""

    def __init__(self, policy: ScriptPolicy, name: str = "reference") -> None:
        self.name = name
        self.policy = policy

    def complete(self, messages: list[dict[str, Any]], observation: Observation) -> ModelReply:
        """The policy's script for this observation; the chat messages are not needed."""
        start = time.perf_counter()
        text = self.policy.next_answer(observation)
        return ModelReply(
            text=text,
            usage=Usage(),
            latency_s=time.perf_counter() - start,
            model=self.name,
            raw={"reference": True},
        )
