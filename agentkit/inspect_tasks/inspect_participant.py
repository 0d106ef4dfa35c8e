"""The Participant that plays agentkit's turns with Inspect's model (``get_model().generate``).

Why: agentkit's loop is synchronous and runs in a worker thread, while Inspect's model is an async
API living on the eval's event loop. This adapter turns each turn's prompt (typed
messages) into Inspect chat messages, calls the model back on the event loop, and reads the
answer with the episode's reader (a script, or one primitive action name under frame-by-frame
control), so the loop cannot tell it from any other model.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import anyio.from_thread
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
    Model,
    ModelOutput,
)

from agentkit.actions import Vocabulary
from agentkit.messages import ImagePart, Message
from agentkit.models.answer_reader import SCRIPT_READER, AnswerReader
from agentkit.models.base import ModelError
from agentkit.models.openai_messages import data_url
from agentkit.models.participant import Answer
from agentkit.models.token_count import token_counter
from agentkit.observers import Observation
from agentkit.records import ModelReply, Usage

# Inspect estimates prompt tokens with tiktoken's o200k_base; agentkit's counter points tiktoken at the
# BPE files litellm ships (as a side effect of finding its own), so no download is tried offline.
token_counter()


def to_inspect(messages: Sequence[Message]) -> list[ChatMessage]:
    """agentkit's prompt as Inspect chat messages (system, user and assistant roles)."""
    out: list[ChatMessage] = []
    for message in messages:
        role = message.role
        if isinstance(message.content, str):
            content: str | list[Content] = message.content
        else:
            content = [
                ContentImage(image=data_url(p)) if isinstance(p, ImagePart) else ContentText(text=p.text)
                for p in message.content
            ]
        out.append(chat_message(role, content))
    return out


def chat_message(role: str, content: str | list[Content]) -> ChatMessage:
    """One Inspect chat message of ``role`` (system, assistant; any other role is the user's)."""
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content)
    return ChatMessageUser(content=content)


class InspectParticipant:
    """Plays a turn by asking Inspect's ``model`` from the loop's worker thread (an anyio worker thread,
    so the call runs on the eval's event loop). Keeps the last prompt and output for the Inspect log."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.name = f"inspect/{model}"
        self.last_input: list[ChatMessage] = []
        self.last_output: ModelOutput | None = None
        self.reader = SCRIPT_READER

    def reading_with(self, reader: AnswerReader) -> InspectParticipant:
        """Read this sample's replies with its episode's ``reader``; the same object plays on, so the
        solver still finds the last prompt and output on it."""
        self.reader = reader
        return self

    def answer(self, messages: list[Message], observation: Observation, vocabulary: Vocabulary) -> Answer:
        chat = to_inspect(messages)
        start = time.perf_counter()
        try:
            output = anyio.from_thread.run(self.model.generate, chat)
        except ModelError as exc:  # agentkit's own client (agentkit/<id>) already named the model and error
            raise ModelError(str(exc), transient=False) from exc
        except Exception as exc:  # the provider's error ends the episode as a model error, like litellm's
            raise ModelError(
                f"inspect model {self.model}: {type(exc).__name__}: {exc}", transient=False
            ) from exc
        latency = time.perf_counter() - start
        self.last_input, self.last_output = chat, output
        usage = Usage()
        if output.usage is not None:
            usage = Usage(output.usage.input_tokens, output.usage.output_tokens, 0.0)
        if output.error:
            raise ModelError(f"inspect model {self.model}: {output.error}", transient=False)
        text = output.completion
        reply = ModelReply(text=text, usage=usage, latency_s=latency, model=str(self.model))
        start = time.perf_counter()
        parsed = self.reader.read(reply, vocabulary)
        return Answer(reply, parsed, time.perf_counter() - start)
