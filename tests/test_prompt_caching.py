"""Prompt caching against real local HTTP servers on 127.0.0.1: the markers in the request an
Anthropic-style model id sends, none for OpenAI's, cached tokens read from the response, priced at
the provider's cached rate, the run-level line, and ``--prompt-cache off``."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agentkit.cli._run_options import COMMON_FLAGS, RunFlags
from agentkit.config import RunConfig
from agentkit.messages import messages_from_openai
from agentkit.models.litellm_model import LiteLLMModel
from agentkit.models.prompt_cache import (
    cache_rates,
    input_tokens_line,
    mark_stable_prefix,
    saved_usd,
    takes_cache_markers,
)

ANTHROPIC_MODEL = "anthropic/claude-sonnet-4-5"  # listed in litellm's map with a cached rate
OPENAI_MODEL = "openai/gpt-4o-mini"
IMAGE = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


class _Server:
    """A one-answer chat server: records each request body and answers with the usage it is given."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.bodies: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server's name
                length = int(self.headers.get("content-length") or 0)
                server.bodies.append(json.loads(self.rfile.read(length)))
                data = json.dumps(server.answer).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


ANTHROPIC_ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "go(1)"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 100,
        "output_tokens": 10,
        "cache_read_input_tokens": 900,
        "cache_creation_input_tokens": 0,
    },
}
OPENAI_ANSWER = {
    "id": "c1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o-mini",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "go(1)"}, "finish_reason": "stop"}],
    "usage": {
        "prompt_tokens": 1000,
        "completion_tokens": 10,
        "total_tokens": 1010,
        "prompt_tokens_details": {"cached_tokens": 768},
    },
}


@pytest.fixture
def anthropic_server() -> Iterator[_Server]:
    server = _Server(ANTHROPIC_ANSWER)
    yield server
    server.close()


@pytest.fixture
def openai_server() -> Iterator[_Server]:
    server = _Server(OPENAI_ANSWER)
    yield server
    server.close()


def _history(turns: int) -> list[dict[str, Any]]:
    """A full-history prompt: system, then user/assistant pairs with an image each, ending on a user turn."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are an agent in an arena."}]
    for t in range(turns):
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"turn {t}: you see"},
                    {"type": "image_url", "image_url": {"url": IMAGE}},
                ],
            }
        )
        if t < turns - 1:
            messages.append({"role": "assistant", "content": f"go({t})"})
    return messages


def _marked_parts(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, part type) of every cache_control in an Anthropic request body."""
    found = []
    system = body.get("system")
    if isinstance(system, list):
        found += [("system", p["type"]) for p in system if "cache_control" in p]
    for i, message in enumerate(body["messages"]):
        content = message["content"]
        if isinstance(content, list):
            found += [(f"{message['role']}{i}", p["type"]) for p in content if "cache_control" in p]
    return found


def test_anthropic_request_carries_markers_and_cached_tokens_are_priced(anthropic_server: _Server) -> None:
    model = LiteLLMModel(
        ANTHROPIC_MODEL, api_base=anthropic_server.url, api_key="sk-test-000000", max_retries=0
    )
    messages = _history(5)
    before = json.dumps(messages)
    reply = model.complete(messages_from_openai(messages))

    assert json.dumps(messages) == before  # the caller's (stored) messages are left as rendered
    body = anthropic_server.bodies[0]
    marks = _marked_parts(body)
    assert ("system", "text") in marks
    # first user message (task, worked example), and the last two user turns, each on its last part
    assert [w for w, _ in marks if w != "system"] == ["user0", "user6", "user8"]
    assert all(kind == "image" for w, kind in marks if w != "system")
    assert body["messages"][0]["content"][0].get("cache_control") is None  # only the last part of a message

    assert reply.call is not None and reply.call.provider_cached_tokens == 900
    full, cached = cache_rates(ANTHROPIC_MODEL)  # type: ignore[misc]
    assert cached < full
    # 100 uncached + 900 cached inputs and 10 outputs, at litellm's published rates
    output_rate = 1.5e-05
    assert reply.usage.cost_usd == pytest.approx(100 * full + 900 * cached + 10 * output_rate, rel=1e-6)
    assert reply.usage.cost_usd < 1000 * full + 10 * output_rate


def test_prompt_cache_off_sends_no_markers(anthropic_server: _Server) -> None:
    model = LiteLLMModel(
        ANTHROPIC_MODEL,
        api_base=anthropic_server.url,
        api_key="sk-test-000000",
        max_retries=0,
        prompt_cache=False,
    )
    model.complete(messages_from_openai(_history(3)))
    assert _marked_parts(anthropic_server.bodies[0]) == []
    assert "cache_control" not in json.dumps(anthropic_server.bodies[0])


def test_openai_request_is_unchanged_and_cached_tokens_are_counted(openai_server: _Server) -> None:
    model = LiteLLMModel(OPENAI_MODEL, api_base=openai_server.url, api_key="sk-test-000000", max_retries=0)
    messages = _history(3)
    reply = model.complete(messages_from_openai(messages))
    body = openai_server.bodies[0]
    assert "cache_control" not in json.dumps(body)
    assert body["messages"] == messages  # byte-stable prefix: sent as rendered
    assert reply.call is not None and reply.call.provider_cached_tokens == 768
    full, cached = cache_rates(OPENAI_MODEL)  # type: ignore[misc]
    assert reply.usage.cost_usd == pytest.approx(232 * full + 768 * cached + 10 * 6e-07, rel=1e-6)


def test_marker_placement_rules() -> None:
    assert takes_cache_markers("anthropic/claude-haiku-4-5")
    assert takes_cache_markers("claude-sonnet-4-5")
    assert takes_cache_markers("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0")
    assert not takes_cache_markers("openai/gpt-4o-mini")
    assert not takes_cache_markers("gemini/gemini-2.0-flash")
    one_turn = mark_stable_prefix(
        [{"role": "system", "content": "rules"}, {"role": "user", "content": "look"}]
    )
    assert one_turn[0]["content"] == [
        {"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}
    ]
    assert one_turn[1]["content"][0]["cache_control"] == {"type": "ephemeral"}
    many = mark_stable_prefix(_history(30))
    marked = [
        i
        for i, m in enumerate(many)
        if isinstance(m["content"], list) and any("cache_control" in p for p in m["content"])
    ]
    assert len(marked) == 4 and marked[0] == 0 and marked[-1] == len(many) - 1


def test_saved_and_run_line() -> None:
    full, cached = cache_rates("anthropic/claude-sonnet-4-5")  # type: ignore[misc]
    assert saved_usd("anthropic/claude-sonnet-4-5", 1_000_000) == pytest.approx(1_000_000 * (full - cached))
    assert saved_usd("anthropic/claude-sonnet-4-5", 1000, price_per_mtok=(1.0, 2.0)) == 0.0
    assert saved_usd("openai/no-such-model", 1000) == 0.0
    assert (
        input_tokens_line(120_000, 96_000, 0.0412, 0.2592)
        == "input tokens: 120,000 (96,000 cached), cost $0.0412 (saved $0.2592)"
    )


def test_run_summary_says_input_tokens_cached_and_saved(anthropic_server: _Server, tmp_path) -> None:
    from agentkit.testing.cli_runner import cli_env, run_cli

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    proc = run_cli(
        [
            "run",
            "--env",
            "gridworld",
            "--task",
            "BabyAI-GoToLocal-v0",
            "--model",
            ANTHROPIC_MODEL,
            "--api-base",
            anthropic_server.url,
            "--max-scripts",
            "2",
            "--max-parse-failures",
            "2",
            "--max-retries",
            "0",
            "--db",
            db,
            "--no-endpoint-check",  # this canned server counts 1,000 input tokens whatever it is sent
        ],
        tmp_path,
        cli_env(),
    )
    turns = len(anthropic_server.bodies)
    assert turns >= 1 and all(_marked_parts(b) for b in anthropic_server.bodies)
    full, cached = cache_rates(ANTHROPIC_MODEL)  # type: ignore[misc]
    saved = turns * 900 * (full - cached)
    cost = turns * (100 * full + 900 * cached + 10 * 1.5e-05)
    line = f"input tokens: {turns * 1000:,} ({turns * 900:,} cached), cost ${cost:.4f} (saved ${saved:.4f})"
    assert line in proc.stdout, proc.stdout


def test_prompt_cache_flag_is_recorded_in_the_config() -> None:
    config = RunConfig(env="gridworld", tasks=["empty"], model=ANTHROPIC_MODEL)
    assert config.prompt_cache is True
    off = RunFlags({"prompt_cache": "off"}, COMMON_FLAGS).apply(config)
    assert off.prompt_cache is False and off.model_dump()["prompt_cache"] is False
    with pytest.raises(ValueError, match="--prompt-cache: give on or off"):
        RunFlags({"prompt_cache": "maybe"}, COMMON_FLAGS).apply(config)
