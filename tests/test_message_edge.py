"""One message type end to end: models see ``Message`` only; outside dicts are read once, at the edge.

A real run (``agentkit.run`` of a gridworld episode with its frames, answered by an OpenAI-compatible
server on 127.0.0.1, through the runner, the worker, the response cache and the participant) hands
the model client typed messages on every turn, and the server receives the OpenAI dicts they make.
An outside prompt of OpenAI-style dicts is read into typed messages by one converter
(``agentkit.messages.messages_from_openai``), which gives back what it was given when written out
again, and refuses a malformed message in one line naming the field.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import agentkit
from agentkit.messages import ImagePart, Message, MessageFormatError, TextPart, messages_from_openai
from agentkit.models.dict_model import OpenAIDictModel
from agentkit.models.litellm_model import LiteLLMModel
from agentkit.models.openai_messages import to_openai
from agentkit.records import ModelReply
from agentkit.testing.fake_openai import FakeOpenAIServer

local_only = pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*qualifier:UserWarning")

TASK = "BabyAI-GoToLocal-v0"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
URL = "data:image/png;base64," + base64.b64encode(PNG).decode("ascii")
OUTSIDE = [
    {"role": "system", "content": "rules"},
    {
        "role": "user",
        "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": URL}}],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "go", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "done"},
]


@local_only
def test_the_model_client_is_handed_typed_messages_only_on_a_real_run(tmp_path: Path, monkeypatch) -> None:
    seen: list[list[Any]] = []
    original = LiteLLMModel.complete

    def recording(self: LiteLLMModel, messages: Sequence[Message]) -> ModelReply:
        if not self.name.endswith("(warm-up)"):  # the client's own warm-up twin is not the run's model
            seen.append(list(messages))
        return original(self, messages)

    monkeypatch.setattr(LiteLLMModel, "complete", recording)
    with FakeOpenAIServer(lambda body: "Turn(90); Go(1);", model_ids=("local-model",)) as server:
        summary = agentkit.run(
            "gridworld",
            TASK,
            db=tmp_path / "runs.db",
            model="openai/local-model",
            api_base=server.base_url,
            max_scripts=3,
            endpoint_check=False,
        )
        bodies = [r["messages"] for r in server.requests]
    assert len(summary.episodes) == 1 and len(seen) == 3 == len(bodies)
    assert all(isinstance(m, Message) for prompt in seen for m in prompt)
    assert any(m.images for m in seen[0])  # the frame travelled as bytes, not as a data URL
    assert bodies == [to_openai(prompt) for prompt in seen]  # dicts made by the client alone


def test_outside_dicts_are_read_once_and_written_back_as_they_were() -> None:
    typed = messages_from_openai(OUTSIDE)
    assert all(isinstance(m, Message) for m in typed)
    assert typed[1] == Message("user", (TextPart("look"), ImagePart.of(PNG, "image/png")))
    assert typed[2].tool_calls[0].name == "go" and typed[3].tool_call_id == "c1"
    assert to_openai(typed) == OUTSIDE
    assert messages_from_openai(typed)[1] is typed[1]  # read once: a typed message is kept as it is


def test_a_model_written_for_dicts_gets_them_through_its_adapter() -> None:
    class ReadsDicts:
        name = "reads-dicts"

        def __init__(self) -> None:
            self.seen: list[list[dict[str, Any]]] = []

        def complete(self, messages: list[dict[str, Any]]) -> ModelReply:
            self.seen.append(messages)
            return ModelReply(text=messages[-1]["content"], model=self.name)

    inner = ReadsDicts()
    reply = OpenAIDictModel(inner).complete(messages_from_openai(OUTSIDE))
    assert inner.seen == [OUTSIDE] and reply.text == "done"


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"content": "hi"}, r"messages\[0\]\.role: "),
        ({"role": "user", "content": 3}, r"messages\[0\]\.content: "),
        ({"role": "user", "content": "hi", "name": "me"}, r"messages\[0\]\.name: "),
        ({"role": "user", "content": [{"type": "audio"}]}, r"messages\[0\]\.content\[0\]\.type: "),
        ({"role": "user", "content": [{"type": "text", "text": 1}]}, r"messages\[0\]\.content\[0\]\.text: "),
        (
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}],
            },
            r"messages\[0\]\.content\[0\]\.image_url\.url: expected a base64 data URL",
        ),
        (
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@"}}],
            },
            r"messages\[0\]\.content\[0\]\.image_url\.url: ",
        ),
        ({"role": "assistant", "tool_calls": [{"id": "c"}]}, r"messages\[0\]\.tool_calls\[0\]\.function: "),
        ("hi", r"messages\[0\]: expected a chat message"),
    ],
)
def test_a_malformed_outside_message_is_refused_in_one_line_naming_the_field(
    message: Any, field: str
) -> None:
    with pytest.raises(MessageFormatError, match=rf"^{field}") as refused:
        messages_from_openai([message])
    assert "\n" not in str(refused.value) and isinstance(refused.value, ValueError)
    with pytest.raises(MessageFormatError, match=r"^messages: expected a list"):
        messages_from_openai({"role": "user", "content": "hi"})
