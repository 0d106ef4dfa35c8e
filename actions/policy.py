"""The face of a privileged planner (a backend's reference agent): an Observation in, Commands out.

Why here: a backend builds its reference agent and the loop's reference participant drives it, and
neither may import the other; both may import the action language, whose Commands are the answer.
The Observation it reads belongs to ``agentkit.observers``, which this layer may not name, so the
parameter is typed loosely; a policy may also read its backend's live state instead.
"""

from __future__ import annotations

from typing import Any, Protocol

from agentkit.actions.script import Command


class ScriptPolicy(Protocol):
    """A privileged planner whose answer is a list of typed Commands of its backend's vocabulary."""

    def next_commands(self, observation: Any) -> list[Command]: ...
