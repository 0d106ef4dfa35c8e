"""The backend's privileged reference agent, an explicit participant of the loop.

Why: a planner that writes scripts in the same language as models, run through the same loop and
compiler, gives a ceiling to compare models against and checks the whole pipeline without any API.
It reads the Observation (including privileged state), not the prompt, so it is no Model: the loop
asks it for a turn with the Observation (:class:`agentkit.models.participant.Participant`). Its
typed Commands go to the compiler as they are; their text (the one formatter's) is what the
transcript stores as its answer.
"""

from __future__ import annotations

import time

from agentkit.actions import Script, Vocabulary, parse_script
from agentkit.actions.formatter import format_script
from agentkit.actions.policy import ScriptPolicy
from agentkit.actions.typed_commands import as_written
from agentkit.messages import Message
from agentkit.models.participant import Answer
from agentkit.observers import Observation
from agentkit.records import ModelReply, Usage


class ReferenceAgent:
    """Plays ``policy.next_commands(observation)`` at zero cost; latency is the planner's time."""

    def __init__(self, policy: ScriptPolicy, name: str = "reference") -> None:
        self.name = name
        self.policy = policy

    def answer(self, messages: list[Message], observation: Observation, vocabulary: Vocabulary) -> Answer:
        """The policy's commands for this observation; the chat messages are not read."""
        start = time.perf_counter()
        commands = list(self.policy.next_commands(observation))
        text = format_script(Script(tuple(commands)), vocabulary)
        reply = ModelReply(
            text=text,
            usage=Usage(),
            latency_s=time.perf_counter() - start,
            model=self.name,
            raw={"reference": True},
        )
        script = as_written(commands, vocabulary)
        if script is not None:
            return Answer(reply, script)
        # A command outside the vocabulary (or none at all): the parser says why, in the words a model gets.
        start = time.perf_counter()
        parsed = parse_script(text, vocabulary)
        return Answer(reply, parsed, time.perf_counter() - start)
