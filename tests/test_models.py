"""Model clients: litellm over real HTTP (recorded in cassettes), replay, reference and human models.

The litellm tests replay cassettes recorded from ``agentkit.testing.fake_openai`` (see conftest for
how to re-record). A few tests need a live server on purpose (timeouts, connection failures and the
server itself); it runs on 127.0.0.1 and needs no network.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import logging
import re
from pathlib import Path
from typing import Any

import httpx
import litellm
import pytest
from rich.console import Console

from agentkit.actions import Command, CommandSpec, ParamSpec, ParamType, Vocabulary
from agentkit.leaves import run_defaults
from agentkit.messages import messages_from_openai
from agentkit.models.base import ModelError
from agentkit.models.human_model import HumanModel
from agentkit.models.litellm_model import LiteLLMModel, is_transient, redact
from agentkit.models.reference_model import ReferenceAgent
from agentkit.models.replay_model import ReplayModel
from agentkit.observers import Observation
from agentkit.testing.fake_openai import IMAGE_TOKENS, FakeOpenAIServer, estimate_prompt_tokens

CASSETTES = Path(__file__).parent / "cassettes"

# A 2x2 red PNG, fixed bytes so the recorded request body matches on replay.
PNG_2X2 = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGM8ISfHwMDAxMDAwMDAAAANBAEIfXHKZgAAAABJRU5ErkJggg=="

# Tests that need a live fake server: the network is blocked for them except for 127.0.0.1.
local_only = pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])
# litellm's import triggers a pydantic notice about its own TypedDicts; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*qualifier:UserWarning")


def text_messages(text: str = "You stand in a small room. What do you do?") -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "Answer with a script of commands, each ending with ';'."},
        {"role": "user", "content": text},
    ]


def image_messages() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "Answer with a script of commands, each ending with ';'."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Here is your view. Where is the red wall?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_2X2}"}},
            ],
        },
    ]


def make_model(base_url: str, api_key: str, model: str = "openai/fake-model", **kwargs: Any) -> LiteLLMModel:
    kwargs.setdefault("retry_base_s", 0.001)
    kwargs.setdefault("retry_max_s", 0.01)
    return LiteLLMModel(model, api_base=base_url, api_key=api_key, **kwargs)


def recorded_bodies(cassette: Any) -> list[dict[str, Any]]:
    """The JSON bodies of the requests in the cassette (what litellm sent, recorded or replayed)."""
    return [json.loads(r.body) for r in cassette.requests]


# --------------------------------------------------------------------------- litellm, via cassettes
@pytest.mark.vcr
def test_multimodal_request_round_trips(openai_endpoint: Any, fake_api_key: str, vcr: Any) -> None:
    messages = image_messages()
    model = make_model(openai_endpoint.base_url, fake_api_key)

    reply = model.complete(messages_from_openai(messages))

    assert reply.text == 'Think("I see 1 image(s)"); Go(1);'
    assert reply.model == "openai/fake-model"
    assert reply.usage.input_tokens == estimate_prompt_tokens(messages) >= IMAGE_TOKENS
    assert reply.usage.output_tokens > 0
    assert reply.usage.cost_usd == 0.0  # not in litellm's price table
    assert reply.latency_s > 0
    assert reply.raw is not None
    assert reply.raw["id"].startswith("chatcmpl-")
    assert reply.raw["finish_reason"] == "stop"
    assert reply.raw["priced"] is False
    assert reply.raw["attempts"] == 1
    json.dumps(reply.raw)  # JSON-able
    # What went over the wire: the image as an image_url part with its data URL.
    (body,) = recorded_bodies(vcr)
    assert body["model"] == "fake-model"
    assert body["temperature"] == 0.0 and body["max_tokens"] == run_defaults.MAX_TOKENS
    parts = body["messages"][1]["content"]
    assert parts[1] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_2X2}"}}
    assert vcr.all_played or openai_endpoint.recording


@pytest.mark.vcr
def test_priced_model_has_cost_from_litellm_table(openai_endpoint: Any, fake_api_key: str) -> None:
    model = make_model(openai_endpoint.base_url, fake_api_key, model="openai/gpt-4o-mini")

    reply = model.complete(messages_from_openai(text_messages()))

    prices = litellm.model_cost["gpt-4o-mini"]
    expected = (
        reply.usage.input_tokens * prices["input_cost_per_token"]
        + reply.usage.output_tokens * prices["output_cost_per_token"]
    )
    assert reply.raw is not None and reply.raw["priced"] is True
    assert reply.usage.cost_usd == pytest.approx(expected)
    assert reply.usage.cost_usd > 0


@pytest.mark.vcr
def test_price_override_for_local_model(openai_endpoint: Any, fake_api_key: str) -> None:
    model = make_model(openai_endpoint.base_url, fake_api_key, price_per_mtok=(2.0, 8.0))

    reply = model.complete(messages_from_openai(text_messages()))

    expected = (reply.usage.input_tokens * 2.0 + reply.usage.output_tokens * 8.0) / 1e6
    assert reply.usage.cost_usd == pytest.approx(expected)
    assert reply.raw is not None and reply.raw["priced"] is True


@pytest.mark.vcr
def test_stop_and_max_tokens_are_sent(openai_endpoint: Any, fake_api_key: str, vcr: Any) -> None:
    model = make_model(openai_endpoint.base_url, fake_api_key, stop=["Go("], max_tokens=64, temperature=0.5)

    reply = model.complete(messages_from_openai(text_messages()))

    assert reply.text == 'Think("I see 0 image(s)"); '  # the server honours the stop sequence
    (body,) = recorded_bodies(vcr)
    assert body["stop"] == ["Go("] and body["max_tokens"] == 64 and body["temperature"] == 0.5


@pytest.mark.vcr
def test_rate_limit_and_unavailable_are_retried(
    openai_endpoint: Any, fake_api_key: str, vcr: Any, caplog: pytest.LogCaptureFixture
) -> None:
    openai_endpoint.fail_next(429, 503)
    model = make_model(openai_endpoint.base_url, fake_api_key, max_retries=3)
    caplog.set_level(logging.DEBUG, logger="agentkit")

    reply = model.complete(messages_from_openai(text_messages()))

    assert reply.text == 'Think("I see 0 image(s)"); Go(1);'
    assert reply.raw is not None and reply.raw["attempts"] == 3
    retry_logs = [r.getMessage() for r in caplog.records if "retrying in" in r.getMessage()]
    assert len(retry_logs) == 2 and "429" in retry_logs[0] and "503" in retry_logs[1]
    assert fake_api_key not in caplog.text
    assert len(vcr.requests) == 3
    assert [r["status"]["code"] for r in vcr.responses] == [429, 503, 200]


@pytest.mark.vcr
def test_persistent_server_error_gives_model_error_after_retries(
    openai_endpoint: Any, fake_api_key: str
) -> None:
    openai_endpoint.fail_next(500, 500, 500)
    model = make_model(openai_endpoint.base_url, fake_api_key, max_retries=2)

    with pytest.raises(ModelError) as err:
        model.complete(messages_from_openai(text_messages()))

    message = str(err.value)
    assert "\n" not in message
    assert "InternalServerError 500" in message and "after 3 attempts" in message


@pytest.mark.vcr
def test_unauthorised_is_not_retried(
    openai_endpoint: Any, vcr: Any, caplog: pytest.LogCaptureFixture
) -> None:
    wrong_key = "sk-test-wrong-key-111111111111"  # the server expects a different (fake) key
    model = make_model(openai_endpoint.base_url, wrong_key, max_retries=5)
    caplog.set_level(logging.DEBUG, logger="agentkit")

    with pytest.raises(ModelError) as err:
        model.complete(messages_from_openai(text_messages()))

    assert vcr.play_count == 1  # one request sent (on replay: one served from the cassette)
    assert len(vcr.requests) == 1
    assert "AuthenticationError 401" in str(err.value) and "after 1 attempt)" in str(err.value)
    assert wrong_key not in str(err.value) and wrong_key not in caplog.text


@pytest.mark.vcr
def test_acomplete_matches_complete(openai_endpoint: Any, fake_api_key: str) -> None:
    openai_endpoint.fail_next(429)
    model = make_model(openai_endpoint.base_url, fake_api_key)

    reply = asyncio.run(model.acomplete(messages_from_openai(image_messages())))

    assert reply.text == 'Think("I see 1 image(s)"); Go(1);'
    assert reply.usage.input_tokens == estimate_prompt_tokens(image_messages())
    assert reply.raw is not None and reply.raw["attempts"] == 2


def test_cassettes_hold_no_credentials() -> None:
    files = sorted(CASSETTES.rglob("*.yaml"))
    assert files, "no cassettes recorded: run pytest with --record-mode=once"
    leaks = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        if re.search(r"(?im)^\s*['\"]?(authorization|api-key|x-api-key)['\"]?\s*:", text):
            leaks.append(f"{path.name}: auth header")
        if re.search(r"sk-[A-Za-z0-9_\-]{6,}", text) or re.search(r"(?i)bearer\s+\S", text):
            leaks.append(f"{path.name}: key-like string")
    assert not leaks, leaks
    # The recording server demands the fake key, so a recorded 200 proves a key was sent (and filtered).
    assert any(re.search(r"code: 200", path.read_text(encoding="utf-8")) for path in files)


# --------------------------------------------------------------------------- litellm, live fake server
@local_only
def test_timeout_is_retried_then_model_error(fake_openai: FakeOpenAIServer, fake_api_key: str) -> None:
    fake_openai.latency_s = 1.0
    model = make_model(fake_openai.base_url, fake_api_key, timeout_s=0.2, max_retries=1)

    with pytest.raises(ModelError) as err:
        model.complete(messages_from_openai(text_messages()))

    assert "Timeout" in str(err.value) and "after 2 attempts" in str(err.value)
    assert len(fake_openai.requests) == 2


@local_only
def test_connection_refused_is_not_retried() -> None:
    """Nothing listens at the address: another attempt a second later meets the same closed port
    (issue 16: a run against a server that is down fails fast instead of retrying every turn)."""
    with FakeOpenAIServer() as server:
        dead = server.base_url  # the port is free again once the server stops
    model = make_model(dead, "sk-test-not-a-real-key-000000", max_retries=2, timeout_s=5)

    with pytest.raises(ModelError) as err:
        model.complete(messages_from_openai(text_messages()))

    assert "after 1 attempt)" in str(err.value)
    # named as what it is, not as litellm's "InternalServerError 500 ... Connection error" (issue 30 item 7)
    assert f"connection refused to {dead}" in str(err.value)
    assert "InternalServerError" not in str(err.value)


@local_only
def test_bad_request_is_not_retried(fake_openai: FakeOpenAIServer, fake_api_key: str) -> None:
    for status in (400, 404):
        fake_openai.fail_next(status)
        before = len(fake_openai.requests)
        with pytest.raises(ModelError, match="after 1 attempt"):
            make_model(fake_openai.base_url, fake_api_key).complete(messages_from_openai(text_messages()))
        assert len(fake_openai.requests) - before == 1


def test_transient_classification() -> None:
    def err(cls: type[Exception], **kw: Any) -> Exception:
        return cls(message="x", llm_provider="openai", model="m", **kw)

    assert is_transient(err(litellm.RateLimitError))
    assert is_transient(err(litellm.ServiceUnavailableError))
    assert is_transient(err(litellm.InternalServerError))
    assert is_transient(err(litellm.Timeout))
    assert is_transient(err(litellm.APIConnectionError))
    assert is_transient(TimeoutError())
    assert not is_transient(err(litellm.BadRequestError))
    assert not is_transient(err(litellm.AuthenticationError))
    assert not is_transient(err(litellm.NotFoundError))
    assert not is_transient(err(litellm.ContextWindowExceededError))
    assert not is_transient(ValueError("bug"))


def test_redact_removes_keys() -> None:
    text = "bad key sk-proj-AbCdEf123456 and Authorization: Bearer abc.def-ghi and custom s3cr3t!"
    out = redact(text, ["s3cr3t!"])
    assert "AbCdEf123456" not in out and "abc.def-ghi" not in out and "s3cr3t!" not in out


def test_repr_hides_api_key() -> None:
    key = "sk-test-not-a-real-key-000000"
    model = LiteLLMModel("openai/fake-model", api_key=key)
    assert key not in repr(model)
    assert all(value != key for name, value in vars(model).items() if not name.startswith("_"))


# --------------------------------------------------------------------------- the fake server itself
@local_only
def test_fake_server_protocol(fake_openai: FakeOpenAIServer, fake_api_key: str) -> None:
    auth = {"Authorization": f"Bearer {fake_api_key}"}
    with httpx.Client(base_url=fake_openai.base_url, headers=auth) as client:
        models = client.get("/models").json()
        assert models["object"] == "list" and models["data"][0]["id"] == "fake-model"

        messages = image_messages()
        response = client.post("/chat/completions", json={"model": "fake-model", "messages": messages})
        assert response.status_code == 200
        data = response.json()
        assert data["object"] == "chat.completion"
        assert data["choices"][0]["message"] == {
            "role": "assistant",
            "content": 'Think("I see 1 image(s)"); Go(1);',
            "refusal": None,
        }
        usage = data["usage"]
        assert usage["prompt_tokens"] == estimate_prompt_tokens(messages)
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]

        fake_openai.fail_next(429)
        limited = client.post("/chat/completions", json={"model": "fake-model", "messages": messages})
        assert limited.status_code == 429 and limited.json()["error"]["type"] == "rate_limit_error"

        no_key = httpx.post(f"{fake_openai.base_url}/chat/completions", json={"messages": messages})
        assert no_key.status_code == 401
        assert client.post("/chat/completions", json={"messages": []}).status_code == 400

    assert len(fake_openai.requests) == 4
    assert all("authorization" not in h for h in fake_openai.headers)


# --------------------------------------------------------------------------- replay
def test_replay_returns_answers_in_order_then_errors() -> None:
    model = ReplayModel(["Go(1);", "TurnLeft();"])

    first = model.complete(messages_from_openai(text_messages()))
    second = model.complete(messages_from_openai(text_messages()))

    assert [first.text, second.text] == ["Go(1);", "TurnLeft();"]
    assert first.usage.input_tokens == first.usage.output_tokens == 0 and first.usage.cost_usd == 0.0
    assert first.raw == {"replayed": True} and first.model == "replay"
    assert model.remaining == 0
    with pytest.raises(ModelError, match="replay ran out of recorded answers at turn 2"):
        model.complete(messages_from_openai(text_messages()))


# --------------------------------------------------------------------------- reference
GO_ONLY = Vocabulary((CommandSpec("Go", (ParamSpec("n", ParamType.INT),)),))


class _CountingPolicy:
    def __init__(self) -> None:
        self.seen: list[Observation] = []

    def next_commands(self, observation: Observation) -> list[Command]:
        self.seen.append(observation)
        return [Command("Go", (observation.step + 1,))]


def test_reference_model_asks_its_policy() -> None:
    policy = _CountingPolicy()
    model = ReferenceAgent(policy)

    answer = model.answer([], Observation(step=4), GO_ONLY)
    reply = answer.reply

    assert reply.text == "Go(5);"
    assert reply.model == "reference" and reply.usage.cost_usd == 0.0 and reply.usage.input_tokens == 0
    assert [o.step for o in policy.seen] == [4]


# --------------------------------------------------------------------------- human
def _fake_input(lines: list[str]) -> Any:
    """An ``input`` stand-in that yields ``lines`` and then behaves like Ctrl-D."""
    remaining = iter(lines)

    def read(prompt: str = "") -> str:
        try:
            return next(remaining)
        except StopIteration:
            raise EOFError from None

    return read


def _console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=120, color_system=None), buffer


def test_human_model_reads_multiline_script_and_shows_prompt(tmp_path: Path) -> None:
    console, shown = _console()
    model = HumanModel(
        input_fn=_fake_input(["", 'Think("left");', "TurnLeft();", "", "Go(2);", ""]),
        output=console,
        image_dir=tmp_path,
    )

    first = model.complete(messages_from_openai(image_messages()))
    second = model.complete(messages_from_openai(text_messages("Next turn.")))

    assert first.text == 'Think("left");\nTurnLeft();'
    assert second.text == "Go(2);"
    assert first.model == "human" and first.usage.cost_usd == 0.0
    output = shown.getvalue()
    assert "Answer with a script" in output  # instructions shown once
    assert output.count("Answer with a script") == 1
    assert "Where is the red wall?" in output and "1 image(s) attached" in output
    assert "Next turn." in output
    saved = tmp_path / "turn000_1.png"
    assert saved.read_bytes() == base64.b64decode(PNG_2X2)


def test_human_model_eof_ends_input() -> None:
    console, _ = _console()
    model = HumanModel(input_fn=_fake_input(["Go(1);"]), output=console)

    assert model.complete(messages_from_openai(text_messages())).text == "Go(1);"  # EOF after text submits it
    with pytest.raises(ModelError, match="human ended input"):
        model.complete(messages_from_openai(text_messages()))
