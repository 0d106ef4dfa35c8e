"""Typed prompts become OpenAI chat dicts only in the model client (agentkit.models.openai_messages).

The dicts a typed prompt turns into are the ones the renderer's data-URL dicts were, byte for byte,
checked through the real openai SDK against a server on 127.0.0.1; the cache key of a typed prompt
is made from its text and image hashes (the bytes behind a hash do not enter it).
"""

from __future__ import annotations

import base64

import openai

from agentkit.messages import ImagePart, Message, TextPart, messages_from_openai
from agentkit.models.openai_messages import data_url, to_openai, typed_request_key
from agentkit.testing.fake_openai import FakeOpenAIServer

KEY = "sk-test-typed-000000000000"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
URL = "data:image/png;base64," + base64.b64encode(PNG).decode("ascii")
IMAGE = ImagePart.of(PNG, "image/png")
TYPED = [
    Message("system", 'rules \u00e9 "quoted"'),
    Message("user", (TextPart("turn 1"), IMAGE)),
    Message("assistant", "Go(1);"),
    Message("user", (TextPart("turn 2"), IMAGE)),
]
DICTS = [
    {"role": "system", "content": 'rules \u00e9 "quoted"'},
    {
        "role": "user",
        "content": [{"type": "text", "text": "turn 1"}, {"type": "image_url", "image_url": {"url": URL}}],
    },
    {"role": "assistant", "content": "Go(1);"},
    {
        "role": "user",
        "content": [{"type": "text", "text": "turn 2"}, {"type": "image_url", "image_url": {"url": URL}}],
    },
]


def test_a_typed_prompt_is_sent_as_the_equal_data_url_dicts():
    assert to_openai(TYPED) == DICTS
    assert data_url(IMAGE) == URL
    with FakeOpenAIServer(api_key=KEY) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0)
        reply = client.chat.completions.create(model="fake-model", messages=to_openai(TYPED), max_tokens=5)
    assert reply.choices[0].message.content
    assert server.requests[0]["messages"] == DICTS


def test_outside_dicts_are_read_once_into_the_typed_messages_they_were_made_from():
    assert messages_from_openai(DICTS) == TYPED
    assert to_openai(messages_from_openai(DICTS)) == DICTS


def test_the_cache_key_uses_text_and_image_hashes_only():
    key = typed_request_key("m", {"temperature": 0}, TYPED)
    assert key == typed_request_key("m", {"temperature": 0}, list(TYPED))
    # Same sha256, other bytes: the bytes are not read (the hash names them).
    relabelled = ImagePart(b"not read", "image/png", IMAGE.sha256)
    assert key == typed_request_key(
        "m", {"temperature": 0}, [*TYPED[:3], Message("user", (TextPart("turn 2"), relabelled))]
    )
    other = ImagePart.of(PNG + b"\0", "image/png")
    assert key != typed_request_key(
        "m", {"temperature": 0}, [*TYPED[:3], Message("user", (TextPart("turn 2"), other))]
    )
    assert key != typed_request_key(
        "m", {"temperature": 0}, [*TYPED[:3], Message("user", (TextPart("turn 3"), IMAGE))]
    )
    assert key != typed_request_key("m2", {"temperature": 0}, TYPED)
