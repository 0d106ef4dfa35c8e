"""Memory policies: which earlier turns (prompts and answers, with or without images) a prompt repeats.

The loop records each finished turn as a (user message, assistant message) pair; a policy picks
what of that history precedes the current user message.
"""

from agentkit.memory.policies import (
    FullHistory,
    LastKImages,
    Markovian,
    MemoryPolicy,
    TurnMessages,
    Window,
    memory_policy_from_spec,
)

__all__ = [
    "FullHistory",
    "LastKImages",
    "Markovian",
    "MemoryPolicy",
    "TurnMessages",
    "Window",
    "memory_policy_from_spec",
]
