"""The stored extra keys of a typed tool-call message (``--action-format tools``).

Why: a message row keeps its content as a blob and any other keys of the message in its ``extra``
JSON. For an answer of tool calls those keys are the calls, and for a tool result the id of the call
it answers; without them a stored history would show results with no call to pair them with. They
are stored in the OpenAI chat shape (``tool_calls`` / ``tool_call_id``) because that is the shape
the store has always kept message dicts in, so a typed message and the same message written as a
dict by another writer become the same row, and a reader gets back the message that was sent.
"""

from __future__ import annotations

from typing import Any

from agentkit.messages import Message


def tool_extra(message: Message) -> dict[str, Any] | None:
    """The message's tool keys as stored (None for a message that has none)."""
    if message.tool_call_id:
        return {"tool_call_id": message.tool_call_id}
    if message.tool_calls:
        return {"tool_calls": [c.openai_form() for c in message.tool_calls]}
    return None
