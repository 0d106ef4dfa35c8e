"""What each tool call of an answer is told back, as ``tool`` messages (``--action-format tools``).

Why: a chat API that offered tools expects every call of an answer to be answered by a ``tool``
message naming its id before the conversation goes on, and a refused call is best explained where
the model made it. So the parse feedback of a refused answer goes back as the result of the call
that was refused (the same message the script language shows, from ``agentkit.actions.tool_calls``),
the other calls of that answer are told they did not run, and the calls of an accepted answer are
told they ran. The results travel with their answer in the history (``agentkit.memory``), so no
policy can keep a result without its call.
"""

from __future__ import annotations

from agentkit.actions.script import ParseError, Script
from agentkit.messages import Message, ToolCall

__all__ = ["tool_results", "RAN", "NOT_RUN"]

RAN = "Done."
NOT_RUN = "Not run: another call of this answer was refused, so none of its calls ran."


def tool_results(calls: tuple[ToolCall, ...], parsed: Script | ParseError) -> tuple[Message, ...]:
    """One ``tool`` message per call, in order: ``RAN`` for the calls of an accepted answer; for a
    refused one the parse error on the call it names (``ParseError.call``, set when the calls were
    read; the first call when it names none), ``NOT_RUN`` on the others. The calls are not parsed again."""
    if isinstance(parsed, Script):
        return tuple(_result(call, RAN) for call in calls)
    refused = next((i for i, call in enumerate(calls) if call == parsed.call), 0)
    return tuple(_result(call, parsed.message if i == refused else NOT_RUN) for i, call in enumerate(calls))


def _result(call: ToolCall, text: str) -> Message:
    return Message("tool", text, tool_call_id=call.id)
