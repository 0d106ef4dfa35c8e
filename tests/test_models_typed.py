"""Models take typed prompt messages: the client alone makes OpenAI dicts and base64.

Checks, on a real local OpenAI-compatible server and a real SQLite store: a typed prompt goes over
the wire exactly as its OpenAI-dict twin did (read in once at the edge); the response cache keys
typed prompts by text and image hashes and still hits; a model that never learnt typed messages is
handed OpenAI dicts through its explicit adapter (``OpenAIDictModel``); the human model shows a
typed prompt's text and frames.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import pytest
from rich.console import Console

from agentkit.actions import CommandSpec, ParamSpec, ParamType, Vocabulary
from agentkit.messages import ImagePart, Message, TextPart, messages_from_openai
from agentkit.models.cached_model import CachedModel
from agentkit.models.dict_model import OpenAIDictModel
from agentkit.models.human_model import HumanModel
from agentkit.models.litellm_model import LiteLLMModel
from agentkit.models.openai_messages import to_openai, typed_request_key
from agentkit.models.participant import ModelParticipant
from agentkit.models.rate_limit import RateLimitedModel, RateLimiter
from agentkit.models.replay_model import ReplayModel
from agentkit.observers import Observation
from agentkit.records import ModelReply
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts.store import TranscriptStore

local_only = pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*qualifier:UserWarning")

PNG_2X2 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGM8ISfHwMDAxMDAwMDAAAANBAEIfXHKZgAAAABJRU5ErkJggg=="
)
IMAGE = ImagePart.of(PNG_2X2, "image/png")
TYPED = [
    Message("system", "Answer with a script of commands, each ending with ';'."),
    Message("user", (TextPart("Here is your view. Where is the red wall?"), IMAGE)),
]
VOCABULARY = Vocabulary((CommandSpec("Go", (ParamSpec("n", ParamType.INT),)),))


def _model(server: FakeOpenAIServer, key: str) -> LiteLLMModel:
    return LiteLLMModel(
        "openai/fake-model",
        api_base=server.base_url,
        api_key=key,
        retry_base_s=0.001,
        retry_max_s=0.01,
        warm_up=False,
    )


@local_only
def test_a_typed_prompt_is_sent_as_its_openai_twin(fake_openai: FakeOpenAIServer, fake_api_key: str) -> None:
    model = _model(fake_openai, fake_api_key)
    typed_reply = model.complete(TYPED)
    dict_reply = model.complete(messages_from_openai(to_openai(TYPED)))
    typed_body, dict_body = fake_openai.requests[-2], fake_openai.requests[-1]
    assert typed_body["messages"] == dict_body["messages"]
    url = typed_body["messages"][1]["content"][1]["image_url"]["url"]
    assert url == "data:image/png;base64," + base64.b64encode(PNG_2X2).decode("ascii")
    assert typed_reply.text == dict_reply.text
    assert typed_reply.usage.input_tokens == dict_reply.usage.input_tokens > 0
    assert (
        typed_reply.call is not None and typed_reply.call.our_input_tokens == dict_reply.call.our_input_tokens
    )


class _Counting:
    """A model written before typed messages: it reads dicts, and counts its calls."""

    name = "counting"

    def __init__(self) -> None:
        self.seen: list[list[Any]] = []

    def complete(self, messages: list[dict[str, Any]]) -> ModelReply:
        self.seen.append(messages)
        return ModelReply(text="Go(1);", model=self.name)


def test_the_cache_keys_a_typed_prompt_by_its_hashes_and_hits(tmp_path) -> None:
    inner = _Counting()
    with TranscriptStore(f"sqlite:///{tmp_path / 'cache.db'}") as store:
        cached = CachedModel(OpenAIDictModel(inner), store, {"temperature": 0})
        first = cached.complete(TYPED)
        again = cached.complete(list(TYPED))
        assert not first.cached and again.cached and again.text == "Go(1);"
        assert again.raw == {"cache_key": typed_request_key("counting", {"temperature": 0}, TYPED)}
        assert len(inner.seen) == 1 and inner.seen[0] == to_openai(TYPED)  # the old model got dicts


def test_participant_hands_typed_messages_only_to_models_that_take_them() -> None:
    old = _Counting()
    ModelParticipant(OpenAIDictModel(old)).answer(TYPED, Observation(step=0), VOCABULARY)
    assert old.seen == [to_openai(TYPED)]

    limited = _Counting()
    ModelParticipant(RateLimitedModel(OpenAIDictModel(limited), RateLimiter(60_000))).answer(
        TYPED, Observation(step=0), VOCABULARY
    )
    assert limited.seen == [to_openai(TYPED)]  # passed through the wrapper, made into dicts for the old model

    typed = _Counting()  # written for dicts, but unwrapped: it is handed the typed messages
    answer = ModelParticipant(typed).answer(TYPED, Observation(step=0), VOCABULARY)
    assert typed.seen == [TYPED] and isinstance(typed.seen[0][1], Message)
    assert answer.script is not None
    replay = ModelParticipant(ReplayModel(["Go(2);"])).answer(TYPED, Observation(step=0), VOCABULARY)
    assert replay.reply.text == "Go(2);"


def test_the_human_model_shows_a_typed_prompt_and_its_frame(tmp_path) -> None:
    out = io.StringIO()
    lines = iter(["Go(1);", ""])
    human = HumanModel(
        input_fn=lambda prompt: next(lines), output=Console(file=out, width=200), image_dir=tmp_path
    )
    reply = human.complete(TYPED)
    shown = out.getvalue()
    assert reply.text == "Go(1);"
    assert "Answer with a script of commands" in shown and "Where is the red wall?" in shown
    assert "[1 image(s) attached]" in shown
    assert [p.name for p in tmp_path.glob("*.png")] == ["turn000_1.png"]  # the frame's own bytes, shown
