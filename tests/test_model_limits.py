"""A model server that drips its answer or reports nonsense token counts, over real HTTP (issue 15, item 9).

Before: a server sending 4 bytes every 0.25 s held a request with ``timeout_s: 2`` for as long as it
liked (read timeouts reset on every byte), and negative or huge usage counts went into the run's
budget and store as if billed. Now ``timeout_s`` bounds the whole request (then retried as a
timeout), and a count that is not a count is recorded as unknown while the paid answer is kept.
"""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from agentkit.messages import messages_from_openai
from agentkit.models.base import ModelError
from agentkit.models.litellm_model import LiteLLMModel
from agentkit.testing.fake_openai import DEFAULT_ANSWER, FakeOpenAIServer

MESSAGES = [{"role": "user", "content": "hi"}]


def model(server: FakeOpenAIServer, **options) -> LiteLLMModel:
    return LiteLLMModel(
        "openai/fake-model",
        api_base=server.base_url,
        api_key="sk-test-limits-0001",
        retry_base_s=0.01,
        **options,
    )


def test_a_dripping_server_is_cut_off_at_the_timeout_and_retried() -> None:
    with FakeOpenAIServer(drip_interval_s=0.25, drip_bytes=4) as server:
        client = model(server, timeout_s=1.0, max_retries=1)
        started = time.monotonic()
        with pytest.raises(ModelError) as caught:
            client.complete(messages_from_openai(MESSAGES))
        elapsed = time.monotonic() - started
        assert "TimeoutError" in str(caught.value) and "after 2 attempts" in str(caught.value)
        assert server.request_count == 2
    # Behaviour, not speed: two attempts of 1 s each end long before one dripped answer (~80 s) would.
    assert elapsed < 20


def test_the_async_client_is_cut_off_too() -> None:
    with FakeOpenAIServer(drip_interval_s=0.25, drip_bytes=4) as server:
        client = model(server, timeout_s=1.0, max_retries=0)
        with pytest.raises(ModelError, match="TimeoutError"):
            asyncio.run(client.acomplete(messages_from_openai(MESSAGES)))
        assert server.request_count == 1


def test_a_slow_but_whole_answer_within_the_timeout_is_kept() -> None:
    with FakeOpenAIServer(latency_s=0.2) as server:
        reply = model(server, timeout_s=30, max_retries=0).complete(messages_from_openai(MESSAGES))
    assert reply.text == DEFAULT_ANSWER and reply.raw and "usage" not in reply.raw


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": -5, "completion_tokens": 3, "total_tokens": -2},
        {"prompt_tokens": 10**30, "completion_tokens": 3, "total_tokens": 10**30},
        {"prompt_tokens": 12, "completion_tokens": -1, "total_tokens": 11},
        {"prompt_tokens": "many", "completion_tokens": 3, "total_tokens": 3},
        {"prompt_tokens": 1.5, "completion_tokens": 3, "total_tokens": 4.5},
        {"prompt_tokens": [1], "completion_tokens": {"a": 1}, "total_tokens": None},
        "garbage",
    ],
    ids=["negative", "huge", "negative-output", "text", "fraction", "collections", "not-a-mapping"],
)
def test_token_counts_that_are_not_counts_are_recorded_as_unknown(usage, caplog) -> None:
    with FakeOpenAIServer(usage=usage) as server:
        client = model(server, timeout_s=30, max_retries=2, price_per_mtok=(1.0, 1.0))
        with caplog.at_level(logging.WARNING, logger="agentkit"):
            reply = client.complete(messages_from_openai(MESSAGES))
        assert server.request_count == 1  # the paid answer is kept, not bought again
    assert reply.text == DEFAULT_ANSWER
    assert reply.raw is not None and reply.raw["usage"] is None and reply.raw["priced"] is False
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.cost_usd) == (0, 0, 0.0)
    assert any("recording them as unknown" in r.getMessage() for r in caplog.records)


def test_the_async_client_keeps_an_answer_with_text_counts_too() -> None:
    with FakeOpenAIServer(
        usage={"prompt_tokens": "lots", "completion_tokens": 2, "total_tokens": "x"}
    ) as server:
        client = model(server, timeout_s=30, max_retries=2)
        reply = asyncio.run(client.acomplete(messages_from_openai(MESSAGES)))
        assert server.request_count == 1
    assert reply.text == DEFAULT_ANSWER and reply.raw is not None and reply.raw["usage"] is None


def test_honest_counts_are_kept_as_reported() -> None:
    usage = {"prompt_tokens": 120, "completion_tokens": 7, "total_tokens": 127}
    with FakeOpenAIServer(usage=usage) as server:
        client = model(server, timeout_s=30, max_retries=0, price_per_mtok=(1.0, 2.0))
        sync_reply = client.complete(messages_from_openai(MESSAGES))
        async_reply = asyncio.run(client.acomplete(messages_from_openai(MESSAGES)))
    for reply in (sync_reply, async_reply):
        assert (reply.usage.input_tokens, reply.usage.output_tokens) == (120, 7)
        assert reply.usage.cost_usd == pytest.approx((120 * 1.0 + 7 * 2.0) / 1e6)
        assert reply.raw is not None and "usage" not in reply.raw


def test_a_proxy_named_by_the_environment_still_applies_to_an_openai_compatible_server(monkeypatch):
    """The usage-checking client keeps the environment's proxy settings (and their NO_PROXY bypass)."""
    from agentkit.models.usage_guard import environment_proxy

    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert environment_proxy("http://models.internal:8000/v1") == "http://proxy.example:3128"
    assert environment_proxy("http://127.0.0.1:8000/v1") is None
