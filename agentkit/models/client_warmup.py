"""Warm the model client up before its first timed call, so the latency stored with turn 1 is true.

Why: litellm, the provider SDKs and our token counter import and build most of what they need on
first use (provider modules, the SDK client and its response models, the tokenizer's tables). An
instant model then records about 0.5-1 s of latency on the first turn of every run and a few ms
on the others, and latency figures of turn 1 mean nothing. Before a client's first call, this
makes one complete round trip through the same code (``LiteLLMModel.complete``: the same model id
and so the same litellm route, the same SDK client path, reply parsing, pricing and token count)
against a fixed answer: for ``openai/...`` ids an in-process httpx transport (no socket at all),
for the others a one-answer server on 127.0.0.1 speaking OpenAI's chat completions and Anthropic's
messages API. Nothing leaves the machine and nothing is billed.

Once per model id and process. Routes whose API is neither (Gemini, Bedrock, ...) fail the round
trip after their imports were done; a failed warm-up is logged at debug level and never raised.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

import httpx

from agentkit.messages import ImagePart, Message, TextPart
from agentkit.models.openai_messages import to_openai

logger = logging.getLogger(__name__)

_warmed: set[str] = set()
_lock = threading.Lock()
WARM_UP_TIMEOUT_S = 10.0
_PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)  # a 1x1 PNG: the image path (size read for the token count) is warmed too
_PROMPT = [
    Message("system", "warm-up"),
    Message("user", (TextPart("warm-up"), ImagePart.of(_PIXEL, "image/png"))),
]

_OPENAI_ANSWER = {
    "id": "warm-up",
    "object": "chat.completion",
    "created": 0,
    "model": "warm-up",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}
_ANTHROPIC_ANSWER = {
    "id": "warm-up",
    "type": "message",
    "role": "assistant",
    "model": "warm-up",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # http.server's name
        self.rfile.read(int(self.headers.get("content-length") or 0))
        answer = _ANTHROPIC_ANSWER if self.path.rstrip("/").endswith("/messages") else _OPENAI_ANSWER
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class _AnsweringTransport(httpx.BaseTransport):
    """Answers every request in-process with a fixed chat completion: no socket, so neither the
    network nor an HTTP recorder patching httpx's own transports (vcrpy in the tests) sees it."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        return httpx.Response(200, json=_OPENAI_ANSWER, request=request)


# Not a secret: the warm-up talks only to an answering transport or a server on 127.0.0.1 of its own.
WARM_UP_KEY = "warm-up-placeholder"


def _openai_twin_client(timeout_s: float) -> Any:
    import openai

    from agentkit.models.plain_openai_client import plain_messages

    return plain_messages(
        openai.OpenAI(
            base_url="http://127.0.0.1:9/v1",
            api_key=WARM_UP_KEY,
            timeout=timeout_s,
            max_retries=0,
            http_client=cast(
                Any, httpx.Client(transport=_AnsweringTransport())
            ),  # openai 3 takes httpx's too
        )
    )


def is_warm(model_id: str) -> bool:
    return model_id in _warmed


def warm_up(model: Any) -> None:
    """One round trip of a copy of ``model`` (a ``LiteLLMModel``) to a local one-answer server, once
    per model id and process; afterwards the model's first call costs what its later ones do."""
    with _lock:
        if model.model in _warmed:
            return
        _warmed.add(model.model)
        in_process = model.model.startswith("openai/")  # the SDK client takes our transport
        server = None if in_process else ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        if server is not None:
            threading.Thread(target=server.serve_forever, name="client-warm-up", daemon=True).start()
        port = server.server_address[1] if server is not None else 9
        try:
            twin = type(model)(
                model.model,
                api_base=f"http://127.0.0.1:{port}/v1",
                api_key=WARM_UP_KEY,
                max_retries=0,
                timeout_s=WARM_UP_TIMEOUT_S,
                name=f"{model.name} (warm-up)",
                prompt_cache=model.prompt_cache,
                warm_up=False,
            )
            twin.checks_prompt_size = False  # the fixed answer's token count is not the prompt's
            if in_process:
                twin._checked_client = _openai_twin_client(WARM_UP_TIMEOUT_S)
                twin.direct.use_transport(_AnsweringTransport())  # its direct route (direct_chat) too
                # the route the model's own requests take: its extra parameters may need litellm's
                twin.direct.enabled = model.direct.body(model._request(to_openai(_PROMPT))) is not None
            twin.complete(_PROMPT)
        except Exception as exc:  # a warm-up only saves time; the real call reports errors
            logger.debug("%s: client warm-up did not complete (%s)", model.name, type(exc).__name__)
        finally:
            if server is not None:
                server.shutdown()
                server.server_close()
