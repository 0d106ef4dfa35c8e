"""The face of a privileged planner: an Observation in, an answer in the script language out.

Why here: both a backend (which builds its reference agent) and the model clients (which let the
loop drive that agent like a model) speak of it, and neither may import the other. Its only term
is the Observation, so it sits beside it, below both (DESIGN.md's layer table).
"""

from __future__ import annotations

from typing import Protocol

from agentkit.observers.observation import Observation


class ScriptPolicy(Protocol):
    """A privileged planner that answers in the script language (the backend's reference agent)."""

    def next_answer(self, observation: Observation) -> str: ...
