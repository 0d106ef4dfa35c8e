"""A backend's built-in closed-loop controller as a participant: ``--model causalworld:<actor>``.

Why: CausalWorld ships RL policies it trained; comparing models against them needs them to play
through the same run machinery (``agentkit run``, ``agentkit eval``, the transcript store and its
reports) as any model. They act every 12 ms on fresh observations, far faster than a turn can be:
one turn per control step would store hundreds of turns per episode. So a controller turn is a
span of simulated time: the participant answers every turn with one command of its own vocabulary,
``run_controller(name, seconds)`` (``agentkit.actions.controller_command``, which no model's
answer can parse into), and the backend runs the named controller closed-loop at its own rate for
that span. The participant knows no backend and no network: which names a backend runs is the
backend's ``controllers()``, checked before the run starts.

A turn spans ``TURN_SPAN_S`` (2 s: a 10-s CausalWorld episode is 5 turns, a 20-s one 10, each
turn's observation and text-only prompt stored as usual); ``--max-scripts`` therefore bounds the
simulated time (``--max-scripts 1``: 2 s). The answer costs nothing and its latency is ~0: the
controller's computing time is the backend's step time.
"""

from __future__ import annotations

from agentkit.actions import Vocabulary
from agentkit.actions.controller_command import CONTROLLER_VOCABULARY, controller_script
from agentkit.actions.formatter import format_script
from agentkit.messages import Message
from agentkit.models.participant import Answer
from agentkit.observers import Observation
from agentkit.records import ModelReply, Usage

__all__ = ["CONTROLLER_PREFIXES", "TURN_SPAN_S", "ControllerAgent", "is_controller_model"]

#: Model ids that name a backend's built-in controller (``causalworld:pushing_ppo_curr1``). A
#: litellm id never starts so (theirs are ``provider/model``, e.g. ``ollama/llama3:8b``).
CONTROLLER_PREFIXES = ("causalworld:",)
TURN_SPAN_S = 2.0


def is_controller_model(model: str) -> bool:
    """Whether ``model`` names a backend's built-in controller rather than a model to call."""
    return model.startswith(CONTROLLER_PREFIXES) and len(model) > len(model.partition(":")[0]) + 1


class ControllerAgent:
    """Answers every turn with ``run_controller(name, seconds)``; the chat and observation are not read."""

    def __init__(self, name: str, span_s: float = TURN_SPAN_S) -> None:
        if not is_controller_model(name):
            raise ValueError(
                f"{name!r} names no built-in controller (they start with {', '.join(CONTROLLER_PREFIXES)})"
            )
        self.name = name
        self.span_s = span_s
        self._script = controller_script(name, span_s)
        self._text = format_script(self._script, CONTROLLER_VOCABULARY)

    def answer(self, messages: list[Message], observation: Observation, vocabulary: Vocabulary) -> Answer:
        reply = ModelReply(
            text=self._text, usage=Usage(), latency_s=0.0, model=self.name, raw={"controller": True}
        )
        return Answer(reply, self._script)
