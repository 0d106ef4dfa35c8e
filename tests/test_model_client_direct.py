"""The direct route (agentkit.models.direct_chat, chat_body): an OpenAI-compatible server at an
api_base gets from us the request litellm would have sent, and we make of its answers and errors
what litellm would have made. Every check runs the same call both ways against a real server on
127.0.0.1 (``model.direct.enabled = False`` is litellm's route) and compares."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from typing import Any

import httpx
import litellm
import pytest
from openai._utils._json import openapi_dumps

from agentkit.messages import ImagePart, Message, TextPart, messages_from_openai
from agentkit.models import chat_body
from agentkit.models.base import ModelError
from agentkit.models.direct_chat import direct_fields, takes_direct
from agentkit.models.litellm_model import LiteLLMModel
from agentkit.models.openai_messages import to_openai
from agentkit.models.request_deadline import deadline, deadline_transport
from agentkit.testing.fake_openai import FakeOpenAIServer

KEY = "sk-test-direct-000000000000"
pytestmark = [
    pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"]),
    pytest.mark.filterwarnings("ignore:.*ReadOnly.*qualifier:UserWarning"),
]
FRAME = "data:image/jpeg;base64," + "AbCd" * 1500  # longer than chat_body.LONG_CHARS
OTHER_FRAME = "data:image/jpeg;base64," + "WxYz" * 1500
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "go",
            "description": "walk forward",
            "parameters": {"type": "object", "properties": {"steps": {"type": "integer"}}},
        },
    }
]


def _user(text: str, *urls: str) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "text", "text": text}]
        + [{"type": "image_url", "image_url": {"url": u}} for u in urls],
    }


HISTORY = [
    {"role": "system", "content": 'rules \u00e9 "quoted" \\ and a tab\t' + "x" * 3000},
    _user("turn 1", FRAME),
    {"role": "assistant", "content": "Go(1);"},
    _user("turn 2 \u2603", FRAME, OTHER_FRAME),
]
TOOL_HISTORY = [
    {"role": "system", "content": "act with tools"},
    _user("turn 1", FRAME),
    {
        "role": "assistant",
        "content": None,  # litellm leaves a None field out; so must we
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "go", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "done"},
    _user("turn 2", FRAME),
]


def _answer(body: dict[str, Any]) -> Any:
    if body.get("tools"):
        return {"content": "thinking", "tool_calls": [{"name": "go", "arguments": '{"steps": 2}'}]}
    return f"Go({len(body['messages'])});"


def _both_ways(
    messages: list[dict[str, Any]], model_id: str = "openai/fake-model", **kwargs: Any
) -> list[tuple[Any, dict[str, Any], str]]:
    """(reply, request body received, path) for the direct route, then for litellm's."""
    results = []
    for direct in (True, False):
        with FakeOpenAIServer(_answer, api_key=KEY) as server:
            model = LiteLLMModel(model_id, api_base=server.base_url, api_key=KEY, **kwargs)
            model.direct.enabled = direct
            reply = model.complete(messages_from_openai(messages))
            results.append((reply, server.requests[-1], server.targets[-1]))
    return results


def _same_reply(a: Any, b: Any) -> None:
    assert (a.text, a.usage, a.call) == (b.text, b.usage, b.call)
    assert getattr(a, "tool_calls", None) == getattr(b, "tool_calls", None)
    assert {k: v for k, v in a.raw.items() if k != "id"} == {k: v for k, v in b.raw.items() if k != "id"}


@pytest.mark.parametrize(
    "messages, kwargs",
    [
        (HISTORY, {}),
        (
            HISTORY,
            {"stop": ["END"], "max_tokens": 77, "temperature": 0.3, "extra": {"seed": 3, "top_p": 0.5}},
        ),
        (TOOL_HISTORY, {"extra": {"tools": TOOLS, "tool_choice": "auto", "_skip_mcp_handler": True}}),
        (HISTORY, {"model_id": "openai/gpt-4o-mini"}),
    ],
    ids=["frames", "parameters", "tool-calls", "priced"],
)
def test_the_direct_route_sends_and_reads_what_litellm_does(messages, kwargs, monkeypatch) -> None:
    sent_by_litellm: list[int] = []
    real_completion = litellm.completion
    monkeypatch.setattr(
        litellm, "completion", lambda **kw: sent_by_litellm.append(1) or real_completion(**kw)
    )
    results = _both_ways(messages, **kwargs)
    (ours, our_body, our_path), (theirs, their_body, their_path) = results
    assert sent_by_litellm == [1]  # litellm sent only its own route's request
    assert our_body == their_body and our_path == their_path
    _same_reply(ours, theirs)
    if "model_id" in kwargs:  # priced from litellm's map, as litellm prices it
        assert ours.usage.cost_usd > 0 and ours.raw["priced"] is True
    if "tools" in kwargs.get("extra", {}):  # passed through, and the answer's calls read back
        assert our_body["tools"] == TOOLS and our_body["tool_choice"] == "auto"
        assert ours.raw["finish_reason"] == "tool_calls"


def test_the_async_route_answers_as_the_sync_one() -> None:
    with FakeOpenAIServer(_answer, api_key=KEY) as server:
        model = LiteLLMModel("openai/fake-model", api_base=server.base_url, api_key=KEY)
        sync_reply = model.complete(messages_from_openai(HISTORY))
        async_reply = asyncio.run(model.acomplete(messages_from_openai(HISTORY)))
        assert server.requests[-1] == server.requests[-2]
    _same_reply(sync_reply, async_reply)


@pytest.mark.parametrize("status", [400, 401, 404, 422, 429, 500, 503])
def test_errors_are_litellms_classes_and_words(status: int) -> None:
    errors = []
    for direct in (True, False):
        with FakeOpenAIServer(api_key=KEY) as server:
            model = LiteLLMModel("openai/fake-model", api_base=server.base_url, api_key=KEY, max_retries=0)
            model.direct.enabled = direct
            server.fail_next(status)
            with pytest.raises(ModelError) as err:
                model.complete(messages_from_openai(HISTORY))
            errors.append((str(err.value), err.value.transient, type(err.value.__cause__).__name__))
    assert errors[0] == errors[1]
    assert f" {status}" in errors[0][0]


def test_a_refused_connection_and_a_timeout_are_worded_as_before() -> None:
    with FakeOpenAIServer() as gone:
        dead = gone.base_url  # nothing listens there once the server stopped
    with FakeOpenAIServer(api_key=KEY, latency_s=1.0) as slow:
        for base_url, timeout_s in ((dead, 5.0), (slow.base_url, 0.2)):
            errors = []
            for direct in (True, False):
                model = LiteLLMModel(
                    "openai/fake-model", api_base=base_url, api_key=KEY, max_retries=0, timeout_s=timeout_s
                )
                model.direct.enabled = direct
                with pytest.raises(ModelError) as err:
                    model.complete(messages_from_openai(HISTORY))
                errors.append((str(err.value), err.value.transient))
            assert errors[0] == errors[1]


def test_the_body_is_the_sdks_bytes() -> None:
    request = {
        "model": "openai/fake-model",
        "messages": HISTORY + [{"role": "user", "content": "\x00 nul, and the marker's form \x00abc:1"}],
        "temperature": 0.0,
        "max_tokens": 5,
        "stop": ["END"],
        "timeout": 30,
        "max_retries": 0,
    }
    fields = direct_fields(request)
    assert fields is not None
    assert list(fields) == ["messages", "model", "max_tokens", "stop", "temperature"]  # the SDK's order
    assert chat_body.encode_body(fields) == openapi_dumps(fields)


def test_a_lone_surrogate_takes_litellms_route() -> None:
    """The SDK cannot encode it either: litellm reports it as before rather than we send bad UTF-8."""
    for text in ("a lone surrogate \ud800", "\udfff" * 3000):
        fields = direct_fields({"model": "openai/m", "messages": [{"role": "user", "content": text}]})
        assert fields is not None and chat_body.encode_body(fields) is None


def test_each_message_is_encoded_once_not_once_per_turn(monkeypatch) -> None:
    encoded: list[Any] = []  # the messages JSON-encoded
    real_dumps = chat_body.dumps
    monkeypatch.setattr(
        chat_body,
        "dumps",
        lambda v: (isinstance(v, dict) and "role" in v and encoded.append(v)) or real_dumps(v),
    )
    monkeypatch.setattr(chat_body, "_messages", {})
    history: list[dict[str, Any]] = [{"role": "system", "content": "rules"}]
    for turn in range(5):
        frame = f"data:image/jpeg;base64,{turn:04d}" + "Q" * 4000
        # each turn a fresh copy of the history, as the client makes from typed messages
        history = [json.loads(json.dumps(m)) for m in history] + [_user(f"turn {turn}", frame)]
        body = chat_body.encode_body({"messages": history, "model": "m", "temperature": 0.0})
        assert body == openapi_dumps({"messages": history, "model": "m", "temperature": 0.0})
    assert encoded == history  # each once, though 15 turns' messages were sent over the 5 calls


@pytest.mark.parametrize(
    "request_",
    [
        {"response_format": {"type": "json_object"}},  # litellm validates and maps it
        {"reasoning_effort": "low"},  # litellm maps it per model
        {
            "messages": [
                _user("x")
                | {"content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}]}
            ]
        },
        {"messages": [{"role": "user", "content": [{"type": "file", "file": {"file_id": "f"}}]}]},
        {
            "messages": [
                {
                    "role": "tool",
                    "tool_call_id": "c",
                    "content": [{"type": "image_url", "image_url": {"url": FRAME}}],
                }
            ]
        },
    ],
    ids=["response-format", "reasoning-effort", "cache-markers", "file", "image-in-tool-result"],
)
def test_requests_litellm_must_transform_take_litellms_route(request_: dict[str, Any], monkeypatch) -> None:
    request = {"model": "openai/fake-model", "messages": HISTORY, "temperature": 0.0, **request_}
    fields = direct_fields(request)
    assert fields is None or chat_body.encode_body(fields) is None


def test_only_openai_compatible_servers_named_by_url_are_called_directly() -> None:
    assert takes_direct("openai/local", "http://127.0.0.1:8000/v1")
    assert not takes_direct("openai/gpt-4o-mini", None)  # OpenAI itself: litellm's route
    assert not takes_direct("anthropic/claude-3-5-haiku-latest", "http://127.0.0.1:8000")
    assert not takes_direct("openai/local", "http://127.0.0.1:8000/v1?key=x")  # a query litellm carries


def test_the_deadline_ends_a_dripping_answer_on_the_callers_thread() -> None:
    """Read timeouts reset on every byte; the thread's deadline does not (request_deadline)."""
    with FakeOpenAIServer(drip_interval_s=0.1, drip_bytes=4) as server:
        client = httpx.Client(transport=deadline_transport(), timeout=0.5)  # each read: 0.5 s at most
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        started = time.monotonic()
        with pytest.raises(httpx.TimeoutException), deadline(1.0):
            client.post(f"{server.base_url}/chat/completions", json=body).json()
        elapsed = time.monotonic() - started
        # Behaviour, not speed: cut off long before the dripped answer (~30 s) would have ended.
        assert 1.0 <= elapsed < 10
        server.drip_interval_s = None  # answers at once now; the deadline is gone with its block
        reply = client.post(f"{server.base_url}/chat/completions", json=body)
        assert reply.status_code == 200 and server.request_count == 2


def test_the_deadline_ends_a_body_the_server_reads_slowly() -> None:
    """Every send makes progress, so no write timeout trips; the deadline still ends the request."""
    listener = socket.create_server(("127.0.0.1", 0))
    received = [0]

    def read_slowly() -> None:  # 1 MB per 50 ms at most
        connection, _ = listener.accept()
        with connection:
            while chunk := connection.recv(1_000_000):
                received[0] += len(chunk)
                time.sleep(0.05)

    threading.Thread(target=read_slowly, daemon=True).start()
    client = httpx.Client(transport=deadline_transport(), timeout=5.0)  # each send: 5 s at most
    body = b"x" * 40_000_000  # 2 s or more at the reader's pace
    started = time.monotonic()
    try:
        with pytest.raises(httpx.WriteTimeout), deadline(1.0):
            client.post(f"http://127.0.0.1:{listener.getsockname()[1]}/v1/chat/completions", content=body)
        ended = time.monotonic() - started
    finally:
        client.close()
        listener.close()
    assert ended >= 1.0 and received[0] < len(body)  # cut at the deadline, the body not all sent


def _typed_history() -> list[Message]:
    frame = ImagePart.of(b"\xff\xd8 not really a jpeg " * 200, "image/jpeg")
    return [
        Message("system", "rules \u00e9"),
        Message("user", (TextPart("turn 1"), frame)),
        Message("assistant", "Go(1);"),
        Message("user", (TextPart("turn 2"), frame)),
    ]


@pytest.mark.parametrize("fold_system", [False, True])
def test_typed_prompts_send_what_their_dicts_send(fold_system: bool) -> None:
    """The direct route looks typed messages up as they are; the body is the one their OpenAI dicts
    make (and, with the system message folded, the one litellm's route sends)."""
    typed = _typed_history()
    bodies = []
    for prompt, direct in (
        (typed, True),
        (typed, True),
        (messages_from_openai(to_openai(typed)), True),
        (typed, False),
    ):
        with FakeOpenAIServer(_answer, api_key=KEY) as server:
            model = LiteLLMModel(
                "openai/fake-model", api_base=server.base_url, api_key=KEY, fold_system=fold_system
            )
            model.direct.enabled = direct
            model.complete(prompt)
            bodies.append(server.requests[-1])
    assert bodies[0] == bodies[1] == bodies[2] == bodies[3]
    assert [m["role"] for m in bodies[0]["messages"]][0] == ("user" if fold_system else "system")


def test_a_typed_message_seen_before_is_looked_up_not_walked(monkeypatch) -> None:
    typed = _typed_history()
    fields = {"messages": to_openai(typed), "model": "m"}
    first = chat_body.encode_body(fields, typed)
    walked: list[Any] = []
    real_key = chat_body._key
    monkeypatch.setattr(chat_body, "_key", lambda m: walked.append(m) or real_key(m))
    later = typed + [Message("user", "turn 3")]  # the next turn: the same objects, one more
    body = chat_body.encode_body({"messages": to_openai(later), "model": "m"}, later)
    assert first == openapi_dumps(fields) and body == openapi_dumps(
        {"messages": to_openai(later), "model": "m"}
    )
    assert walked == [{"role": "user", "content": "turn 3"}]  # only the new message was walked
