"""Turns written as OpenAI-style dicts, handed to the store as typed messages.

Why: ``TranscriptStore.add_turn`` takes typed messages only (``agentkit.messages.Message``), while a
stored turn reads back as OpenAI-style dicts. A test that checks a round trip keeps its expected
prompt as those dicts and hands the store the typed messages read from them, as a caller at the
Python API's edge does (``agentkit.messages.messages_from_openai``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from agentkit.messages import Message, messages_from_openai
from agentkit.records import TurnRecord


def typed_messages(messages: Sequence[Any]) -> list[Message]:
    """``messages`` read into typed ones (typed messages among them are kept as they are)."""
    return messages_from_openai(list(messages))


def typed(turn: TurnRecord) -> TurnRecord:
    """A copy of ``turn`` whose messages are typed; ``turn`` itself keeps its dicts to compare with."""
    return dataclasses.replace(turn, messages=typed_messages(turn.messages))
