"""Which reader an episode's replies get, chosen once when the episode is set up.

Why here: the choice follows the control mode (a script, or one primitive action name per answer)
and the action format (text or tool calls), and the control mode is this package's. The loop asks
once per episode (:attr:`agentkit.loop.EpisodeSetup.reader`) and hands the reader to the
participant, which reads each reply with it exactly once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentkit.actions import ParseError, Script, Vocabulary
from agentkit.control.control import Control
from agentkit.control.primitive_answer import parse_primitive
from agentkit.models.answer_reader import SCRIPT_READER, TOOL_CALL_READER, AnswerReader
from agentkit.records import ModelReply

__all__ = ["choose_reader", "primitive_reader"]


@dataclass(frozen=True)
class _PrimitiveNames:
    """Reads a reply's text as exactly one of ``names`` (a dataclass, so two readers of the same
    names compare equal)."""

    names: tuple[str, ...]

    def __call__(self, reply: ModelReply, vocabulary: Vocabulary) -> Script | ParseError:
        return parse_primitive(reply.text, self.names)  # the script vocabulary does not apply


def primitive_reader(names: Sequence[str]) -> AnswerReader:
    """Frame-by-frame control: the reply's text names one of the world's primitive actions, strictly."""
    return AnswerReader("primitive action", _PrimitiveNames(tuple(names)))


def choose_reader(control: Control, action_format: str = "text") -> AnswerReader:
    """The reader of an episode played under ``control`` with ``action_format`` (``"tools"``: tool
    calls; anything else: text). ValueError (one line) for tool calls under frame-by-frame control,
    which answers one action name (the run's configuration refuses it first)."""
    if control.frame_by_frame:
        if action_format == "tools":
            raise ValueError(
                "--action-format tools is for --control script (frame-by-frame answers one action name)"
            )
        return primitive_reader(control.primitive_names)
    return TOOL_CALL_READER if action_format == "tools" else SCRIPT_READER
