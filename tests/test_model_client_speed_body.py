"""The fast client path (agentkit.models.plain_openai_client) sends the very bytes the openai SDK
would: the same request body for the same call, checked against a real server on 127.0.0.1, so
recorded cassettes still match; streaming and response_format calls keep the SDK's own path."""

from __future__ import annotations

import asyncio

import openai

from agentkit.messages import messages_from_openai
from agentkit.models.litellm_model import LiteLLMModel
from agentkit.models.plain_openai_client import _plain, async_plain_messages, plain_messages
from agentkit.testing.fake_openai import FakeOpenAIServer

KEY = "sk-test-plain-000000000000"
IMAGE = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
MESSAGES = [
    {"role": "system", "content": 'rules \u00e9\u00e8 "quoted"'},
    {
        "role": "user",
        "content": [{"type": "text", "text": "turn 1"}, {"type": "image_url", "image_url": {"url": IMAGE}}],
    },
    {"role": "assistant", "content": "Go(1);"},
    {
        "role": "user",
        "content": [{"type": "text", "text": "turn 2"}, {"type": "image_url", "image_url": {"url": IMAGE}}],
    },
]


def _bodies_sent(make_client) -> list[bytes]:
    raw: list[bytes] = []
    with FakeOpenAIServer(api_key=KEY) as server:
        import httpx

        def keep(request: httpx.Request) -> None:
            raw.append(request.read())

        client = make_client(server.base_url, httpx.Client(event_hooks={"request": [keep]}))
        client.chat.completions.create(
            model="fake-model",
            messages=MESSAGES,
            temperature=0.0,
            max_tokens=77,
            stop=["END"],
            seed=3,
            timeout=30,
        )
        client.chat.completions.with_raw_response.create(model="fake-model", messages=MESSAGES, max_tokens=5)
    return raw


def test_the_plain_client_sends_the_sdks_bytes():
    stock = _bodies_sent(lambda url, http: openai.OpenAI(base_url=url, api_key=KEY, http_client=http))
    plain = _bodies_sent(
        lambda url, http: plain_messages(openai.OpenAI(base_url=url, api_key=KEY, http_client=http))
    )
    assert len(stock) == len(plain) == 2
    assert plain == stock


def test_streaming_and_response_format_keep_the_sdks_path():
    assert _plain({"model": "m", "messages": [], "stream": True}) is None
    assert _plain({"model": "m", "messages": [], "response_format": {"type": "json_object"}}) is None
    assert _plain({"model": "m", "messages": [], "a_keyword_this_sdk_lacks": 1}) is None
    body, options = _plain({"model": "m", "messages": [], "max_tokens": 5, "timeout": 3})  # type: ignore[misc]
    assert list(body) == ["model", "messages", "max_tokens"] and options == {"timeout": 3}


def test_the_async_client_answers_through_the_plain_path():
    with FakeOpenAIServer(api_key=KEY) as server:

        async def call() -> str:
            client = async_plain_messages(openai.AsyncOpenAI(base_url=server.base_url, api_key=KEY))
            try:
                reply = await client.chat.completions.create(
                    model="fake-model", messages=MESSAGES, max_tokens=5
                )
            finally:
                await client.close()
            return reply.choices[0].message.content or ""

        assert asyncio.run(call())
        assert server.requests[0]["messages"] == MESSAGES


def test_litellm_model_replies_and_counts_through_the_plain_path():
    with FakeOpenAIServer(api_key=KEY) as server:
        model = LiteLLMModel("openai/fake-model", api_base=server.base_url, api_key=KEY, max_retries=0)
        reply = model.complete(messages_from_openai(MESSAGES))
        again = asyncio.run(model.acomplete(messages_from_openai(MESSAGES)))
    assert reply.text and again.text == reply.text and reply.usage.input_tokens > 0
    assert server.requests[0]["messages"] == MESSAGES == server.requests[1]["messages"]
