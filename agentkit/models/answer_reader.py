"""How an episode reads a model's reply into the script it means: the reader, chosen once per episode.

Why: what a reply means depends on two settings of the run, the control mode (a script, or one
primitive action name per answer) and the action format (a script written as text, or tool calls).
Both are fixed when the episode is set up, so the way to read a reply is fixed then too, and the
participant reads each reply exactly once with it; nothing downstream reads the reply again.

The reader is data holding its parse function, so a participant needs to know nothing about modes:
it calls ``reader.read(reply, vocabulary)``. The readers of script control live here; the
frame-by-frame one and the choice among them are the control mode's
(:func:`agentkit.control.choose_reader`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agentkit.actions import ParseError, Script, Vocabulary, parse_script
from agentkit.actions.tool_calls import script_from_tool_calls
from agentkit.records import ModelReply

__all__ = ["SCRIPT_READER", "TOOL_CALL_READER", "AnswerReader", "ReadReply"]

ReadReply = Callable[[ModelReply, Vocabulary], Script | ParseError]


@dataclass(frozen=True)
class AnswerReader:
    """One way of reading replies: ``name`` says which in words (logs, tests), ``parse`` does it.

    ``parse`` takes the whole reply, so a reader may look at its text or at its tool calls; it never
    raises for a bad answer, it returns the ParseError the model is told on its next turn."""

    name: str
    parse: ReadReply

    def read(self, reply: ModelReply, vocabulary: Vocabulary) -> Script | ParseError:
        """The script ``reply`` means against ``vocabulary``, or why it means none."""
        return self.parse(reply, vocabulary)


def _script_text(reply: ModelReply, vocabulary: Vocabulary) -> Script | ParseError:
    return parse_script(reply.text, vocabulary)


def _tool_calls(reply: ModelReply, vocabulary: Vocabulary) -> Script | ParseError:
    # an answer that calls no tool is refused by the same rules, never read as text
    return script_from_tool_calls(list(reply.tool_calls), vocabulary)


#: Script control, scripts written in the answer's text (the LLM-AAI paper's way, the default).
SCRIPT_READER = AnswerReader("script text", _script_text)
#: Script control, ``--action-format tools``: one tool call per command.
TOOL_CALL_READER = AnswerReader("tool calls", _tool_calls)
