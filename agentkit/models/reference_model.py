"""The backend's privileged reference agent, an explicit participant of the loop.

Why: a planner that writes scripts in the same language as models, run through the same loop and
compiler, gives a ceiling to compare models against and checks the whole pipeline without any API.
It reads the Observation (including privileged state), not the prompt, so it is no Model: the loop
asks it for a turn with the Observation (:class:`agentkit.models.participant.Participant`).
"""

from __future__ import annotations

import time
from typing import Any

from agentkit.actions import Vocabulary, parse_script
from agentkit.models.participant import Answer
from agentkit.observers import Observation
from agentkit.observers.script_policy import ScriptPolicy
from agentkit.records import ModelReply, Usage


class ReferenceAgent:
    """Answers with ``policy.next_answer(observation)`` at zero cost; latency is the planner's time."""

    def __init__(self, policy: ScriptPolicy, name: str = "reference") -> None:
        self.name = name
        self.policy = policy

    def answer(self, messages: list[dict[str, Any]], observation: Observation, vocabulary: Vocabulary) -> Answer:
        """The policy's script for this observation; the chat messages are not read."""
        start = time.perf_counter()
        text = self.policy.next_answer(observation)
        reply = ModelReply(text=text, usage=Usage(), latency_s=time.perf_counter() - start, model=self.name,
                           raw={"reference": True})
        start = time.perf_counter()
        parsed = parse_script(text, vocabulary)
        return Answer(reply, parsed, time.perf_counter() - start)
