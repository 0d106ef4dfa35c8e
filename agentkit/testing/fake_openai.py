"""A small OpenAI-compatible chat server on 127.0.0.1, so model clients are tested over real HTTP.

Why a server and not a mock: the project's rule is that a fake speaks the real protocol. Going
through litellm, the openai SDK and httpx (or aiohttp) exercises request building, error mapping
and retries exactly as with a paid API, and lets the HTTP cassettes of the tests be recorded from
something that runs offline. Benchmarks can use it too, with ``latency_s`` standing in for a
provider's response time.

Misbehaving providers, for the client's limits: ``drip_interval_s`` sends every answer a few bytes
at a time (a server that never stalls long enough for a read timeout yet never finishes), and
``usage`` replaces the token counts of every answer (negative, huge or not numbers at all).

Servers that do not take the whole prompt, as llama.cpp's with some chat formats: ``system_role``
"drop" (the system message vanishes before the prompt is counted, as with its ``gemma`` format)
or "reject" (a 400 answer), ``images`` "drop" or "reject" (a text-only model without its vision
projector), ``tools`` "drop" or "reject" (a server started without tool-call templates), and
``context_tokens`` (its context size, reported at ``GET /props`` as llama.cpp does; a longer
request gets its 400 "exceeds the available context size"). The prompt is counted after the drop,
as the real server counts what it kept.

Implemented: ``POST /v1/chat/completions`` (non-streaming), ``GET /v1/models`` and ``GET /props``. Message
content may be a string or a list of parts (``text`` and ``image_url`` with data URLs). Token
counts are rough estimates (see :func:`estimate_prompt_tokens`), good enough for budget tests.

Run by hand::

    python -m agentkit.testing.fake_openai --port 8765 --answer 'Think("hi"); Go(1);'
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import itertools
import json
import logging
import math
import random
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

logger = logging.getLogger(__name__)

DEFAULT_ANSWER = 'Think("going forward"); Go(1);'
DEFAULT_MODEL_IDS = ("fake-model",)
# Fixed token charge per image part (roughly what a provider bills for a small, low-detail image).
IMAGE_TOKENS = 85
# Per-message framing overhead in the estimate (role markers and separators).
MESSAGE_OVERHEAD_TOKENS = 4
CHARS_PER_TOKEN = 4

Responder = Callable[[dict[str, Any]], Any]  # the answer text, or a dict with tool calls

# Faults a real provider (or the network) produces; injected at ``fault_rate`` in tests.
FAULT_KINDS = ("429", "500", "timeout", "truncated", "malformed")

# The "type" field OpenAI puts in error bodies, per status; the SDK and litellm map on the status.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    429: "rate_limit_error",
}


def text_tokens(text: str) -> int:
    """Rough token count of a text: one token per four characters, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_prompt_tokens(messages: list[dict[str, Any]]) -> int:
    """Rough prompt size: text by length, each image part a fixed charge, plus per-message overhead.

    Deterministic, so tests can predict it and cassettes stay stable.
    """
    total = 0
    for message in messages:
        total += MESSAGE_OVERHEAD_TOKENS
        content = message.get("content")
        if isinstance(content, str):
            total += text_tokens(content)
        elif isinstance(content, list):
            for part in content:
                if not isinstance(part, dict):
                    continue
                if part.get("type") == "text":
                    total += text_tokens(str(part.get("text", "")))
                elif part.get("type") in ("image_url", "input_image", "image"):
                    total += IMAGE_TOKENS
    return total


def tool_tokens(tools: Any) -> int:
    """Rough size of a request's tool schemas: their JSON text, one token per four characters."""
    return text_tokens(json.dumps(tools)) if tools else 0


def count_images(body: dict[str, Any]) -> int:
    """How many image parts a chat request carries (handy in responders and assertions)."""
    n = 0
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            n += sum(1 for p in content if isinstance(p, dict) and p.get("type") == "image_url")
    return n


def _error_body(status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}


class FakeOpenAIServer:
    """An OpenAI-compatible chat endpoint in a background thread; use it as a context manager.

    ``responder`` maps a request body to the answer text (default: a fixed script), or to a dict
    ``{"content": text or None, "tool_calls": [{"name", "arguments" (JSON text)}]}`` for an answer
    of tool calls (``finish_reason`` "tool_calls", as OpenAI's). ``latency_s``
    delays every chat answer. ``api_key``, when given, is required as the bearer token (others get
    401, as from a real provider). ``fail_next(429, 500)`` forces the next answers to be those
    errors, for retry tests. Every chat request is kept in ``requests`` (JSON bodies) with its
    headers in ``headers`` (lower-cased names, Authorization removed) and its path and query
    in ``targets`` (a client may put parameters in the API base's query).
    """

    def __init__(
        self,
        responder: Responder | None = None,
        latency_s: float = 0.0,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        model_ids: tuple[str, ...] = DEFAULT_MODEL_IDS,
        fault_rate: float = 0.0,
        fault_kinds: tuple[str, ...] = FAULT_KINDS,
        fault_seed: int = 0,
        timeout_fault_s: float = 2.0,
        record_requests: bool = True,
        drip_interval_s: float | None = None,
        drip_bytes: int = 4,
        usage: dict[str, Any] | None = None,
        system_role: str = "keep",
        images: str = "take",
        tools: str = "take",
        context_tokens: int | None = None,
    ) -> None:
        for name, value, kept in (
            ("system_role", system_role, "keep"),
            ("images", images, "take"),
            ("tools", tools, "take"),
        ):
            if value not in (kept, "drop", "reject"):
                raise ValueError(f"{name} must be {kept!r}, 'drop' or 'reject', not {value!r}")
        self.system_role = system_role  # what becomes of a system message: keep, drop or reject
        self.images = images  # what becomes of image parts: take, drop or reject
        self.tools = tools  # what becomes of tool schemas: take, drop or reject
        self.context_tokens = context_tokens  # the context size, when the server has one
        self.responder: Responder = responder or (lambda _body: DEFAULT_ANSWER)
        self.drip_interval_s = drip_interval_s  # when set, answers go out drip_bytes at a time
        self.drip_bytes = drip_bytes
        self.usage = usage  # when set, the "usage" block of every answer, as given
        self.latency_s = latency_s
        self.api_key = api_key
        self.model_ids = model_ids
        self.requests: list[dict[str, Any]] = []
        self.record_requests = record_requests  # off for long benchmarks: the log would grow without end
        self.request_count = 0
        self.headers: list[dict[str, str]] = []
        self.targets: list[str] = []  # each chat request's path and query, as sent
        self._host = host
        self._port = port
        self._faults: collections.deque[int] = collections.deque()
        unknown = set(fault_kinds) - set(FAULT_KINDS)
        if unknown or not 0.0 <= fault_rate <= 1.0:
            raise ValueError(
                f"fault kinds must be among {FAULT_KINDS} and the rate in [0, 1]; got {sorted(unknown)}, {fault_rate}"
            )
        self.fault_rate = fault_rate
        self.fault_kinds = tuple(fault_kinds)
        self.timeout_fault_s = timeout_fault_s
        self._fault_rng = random.Random(fault_seed)
        # How many of each fault were injected, and how many requests were answered normally.
        self.fault_counts: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> FakeOpenAIServer:
        """Bind (port 0 picks a free one) and serve in a daemon thread."""
        if self._httpd is not None:
            return self
        handler = _make_handler(self)
        self._httpd = _QuietHTTPServer((self._host, self._port), handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        logger.debug("fake OpenAI server listening at %s", self.base_url)
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake OpenAI server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The API base to hand to a client, e.g. ``http://127.0.0.1:40123/v1``."""
        return f"http://{self._host}:{self.port}/v1"

    # ----------------------------------------------------------------- faults
    def fail_next(self, *status_codes: int) -> None:
        """Answer the next chat requests with these HTTP error codes, in order, then normally again."""
        with self._lock:
            self._faults.extend(status_codes)

    def _pop_fault(self) -> int | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _draw_fault(self) -> str | None:
        """A random fault for this request (at ``fault_rate``), or None to answer normally."""
        if self.fault_rate <= 0:
            return None
        with self._lock:
            if self._fault_rng.random() >= self.fault_rate:
                self.fault_counts["ok"] += 1
                return None
            kind = self._fault_rng.choice(self.fault_kinds)
            self.fault_counts[kind] += 1
            return kind

    # ----------------------------------------------------------------- chat
    def _record(self, body: dict[str, Any], headers: dict[str, str], target: str = "") -> None:
        with self._lock:
            self.request_count += 1
            if self.record_requests:
                self.requests.append(body)
                self.headers.append(headers)
                self.targets.append(target)

    def _chat(self, body: dict[str, Any], received: float | None = None) -> tuple[int, dict[str, Any]]:
        """Answer one chat request: (status, JSON body), ``latency_s`` after it was ``received``
        (``time.monotonic()``; default now): this server's own work counts inside the latency, as
        a provider's does, not on top of it."""
        received = time.monotonic() if received is None else received
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return 400, _error_body(400, "'messages' must be a non-empty list")
        if body.get("stream"):
            return 400, _error_body(400, "streaming is not supported by the fake server")
        fault = self._pop_fault()
        if fault is not None:
            return fault, _error_body(fault, f"forced error {fault} (fault injection)")
        refusal = self._refusal(body)
        if refusal is not None:
            return refusal
        body = self._kept(body)
        messages = body["messages"]
        prompt_tokens = estimate_prompt_tokens(messages) + tool_tokens(body.get("tools"))
        if self.context_tokens is not None and prompt_tokens > self.context_tokens:
            return 400, _error_body(
                400, "the request exceeds the available context size, try increasing it"
            )  # llama.cpp's words
        answer = self.responder(body)
        tool_calls: list[dict[str, Any]] | None = None
        if isinstance(answer, dict):  # {"content": text or None, "tool_calls": [{"name", "arguments"}]}
            tool_calls = [
                {
                    "id": f"call_{next(self._ids):06d}",
                    "type": "function",
                    "function": {"name": str(call["name"]), "arguments": str(call.get("arguments", "{}"))},
                }
                for call in answer.get("tool_calls") or []
            ] or None
            answer = str(answer.get("content") or "")
        finish_reason = "tool_calls" if tool_calls else "stop"
        stop = body.get("stop")
        for s in [stop] if isinstance(stop, str) else (stop or []):
            if s and s in answer:
                answer = answer[: answer.index(s)]
        max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
        if isinstance(max_tokens, int) and text_tokens(answer) > max_tokens:
            answer = answer[: max_tokens * CHARS_PER_TOKEN]
            finish_reason = "length"
        completion_tokens = text_tokens(answer) + sum(
            text_tokens(c["function"]["name"] + c["function"]["arguments"]) for c in tool_calls or []
        )
        response = {
            "id": f"chatcmpl-fake-{next(self._ids):06d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", self.model_ids[0])),
            "system_fingerprint": "fp_agentkit_fake",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": answer if answer or not tool_calls else None,
                        "refusal": None,
                        **({"tool_calls": tool_calls} if tool_calls else {}),
                    },
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
            if self.usage is None
            else self.usage,
        }
        wait = received + self.latency_s - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        return 200, response

    def _refusal(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """The error a server answers to what it does not take (``reject`` modes), or None."""
        messages = body["messages"]
        if self.system_role == "reject" and any(m.get("role") == "system" for m in messages):
            return 400, _error_body(400, "System role not supported")  # a Jinja chat template's raise
        if self.images == "reject" and count_images(body):
            return 500, _error_body(
                500,
                "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
            )  # llama.cpp's words for a model loaded without its vision projector
        if self.tools == "reject" and body.get("tools"):
            return 400, _error_body(400, "tools param requires --jinja flag")  # llama.cpp's words
        return None

    def _kept(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` as a server that drops parts (``drop`` modes) reads it; the responder sees this too."""
        messages = body["messages"]
        if self.system_role == "drop":
            messages = [m for m in messages if m.get("role") != "system"]
        if self.images == "drop":
            messages = [
                {
                    **m,
                    "content": [
                        p for p in m["content"] if not (isinstance(p, dict) and p.get("type") == "image_url")
                    ],
                }
                if isinstance(m.get("content"), list)
                else m
                for m in messages
            ]
        body = {**body, "messages": messages}
        if self.tools == "drop":
            body.pop("tools", None)
        return body

    def _props(self) -> dict[str, Any]:
        """llama.cpp's ``/props``: the server's context size among its settings (404 without one)."""
        return {
            "default_generation_settings": {"n_ctx": self.context_tokens},
            "model_path": self.model_ids[0],
        }

    def _models(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "agentkit-fake"}
                for m in self.model_ids
            ],
        }

    def _authorised(self, authorization: str | None) -> bool:
        return self.api_key is None or authorization == f"Bearer {self.api_key}"


class _QuietHTTPServer(ThreadingHTTPServer):
    """Daemon handler threads; a client that hangs up early (a timeout test) is logged, not printed."""

    daemon_threads = True
    # socketserver's default backlog of 5 drops the connections of a burst of concurrent episodes,
    # and the client's SYN retry then adds a whole second to those requests.
    request_queue_size = 256

    def handle_error(self, request: Any, client_address: Any) -> None:
        logger.debug(
            "fake OpenAI server: connection from %s ended with an error", client_address, exc_info=True
        )


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one server object (http.server wants a class)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the SDK's connection pool expects
        # Headers and body go out as two writes; with Nagle's algorithm and the client's delayed
        # ACK each answer would wait ~40 ms, which is most of a turn in throughput benchmarks.
        disable_nagle_algorithm = True
        server_version = "agentkit-fake-openai/0.1"

        def log_message(self, format: str, *args: Any) -> None:  # stdlib signature
            logger.debug("%s " + format, self.address_string(), *args)

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("Retry-After", "0")
            self.end_headers()
            if server.drip_interval_s is None:
                self.wfile.write(data)
                return
            self.wfile.flush()
            for start in range(0, len(data), server.drip_bytes):  # never idle long, never done soon
                time.sleep(server.drip_interval_s)
                self.wfile.write(data[start : start + server.drip_bytes])
                self.wfile.flush()

        def _path(self) -> str:
            path, _, query = self.path.partition("?")
            path = path.rstrip("/")
            # An API base with a query ("/v1?api_key=..."): the openai SDK appends the route to
            # the query ("/v1?api_key=.../chat/completions"); route it as the provider would.
            for route in ("/chat/completions", "/models"):
                if query.endswith(route):
                    return path + route
            return path

        def do_GET(self) -> None:  # stdlib naming
            if self._path() in ("/v1/models", "/models"):
                if not server._authorised(self.headers.get("Authorization")):
                    self._send_json(401, _error_body(401, "Incorrect API key provided."))
                    return
                self._send_json(200, server._models())
            elif self._path() == "/props" and server.context_tokens is not None:
                self._send_json(200, server._props())
            else:
                self._send_json(404, _error_body(404, f"no route for GET {self._path()}"))

        def do_POST(self) -> None:  # stdlib naming
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            received = time.monotonic()
            if self._path() not in ("/v1/chat/completions", "/chat/completions"):
                self._send_json(404, _error_body(404, f"no route for POST {self._path()}"))
                return
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError as exc:
                self._send_json(400, _error_body(400, f"request body is not JSON: {exc}"))
                return
            if not isinstance(body, dict):
                self._send_json(400, _error_body(400, "request body must be a JSON object"))
                return
            headers = {k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"}
            server._record(body, headers, self.path)
            if not server._authorised(self.headers.get("Authorization")):
                self._send_json(401, _error_body(401, "Incorrect API key provided."))
                return
            fault = server._draw_fault()
            if fault in ("429", "500"):
                status = int(fault)
                self._send_json(status, _error_body(status, f"injected fault {status}"))
                return
            if fault == "timeout":  # hold the request past the client's timeout, then drop it
                time.sleep(server.timeout_fault_s)
                self.close_connection = True
                return
            try:
                status, payload = server._chat(body, received)
            except Exception as exc:  # a broken responder is a server error, as from a real provider
                logger.exception("fake OpenAI responder failed")
                status, payload = 500, _error_body(500, f"responder failed: {type(exc).__name__}")
            if fault == "truncated" and status == 200:  # the connection drops halfway through the body
                data = json.dumps(payload).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            if fault == "malformed" and status == 200:  # a complete response that is not JSON
                data = b'{"id": "chatcmpl-broken", "choices": [{"message": '
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self._send_json(status, payload)

    return Handler


def main(argv: list[str] | None = None) -> None:
    """Serve until interrupted, for manual runs and benchmarks in another process."""
    parser = argparse.ArgumentParser(description="A local OpenAI-compatible chat server for tests.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds to wait before each answer")
    parser.add_argument("--answer", default=DEFAULT_ANSWER, help="the fixed answer text")
    parser.add_argument("--api-key", default=None, help="require this bearer token")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    answer = args.answer
    with FakeOpenAIServer(
        lambda _body: answer,
        latency_s=args.latency,
        host=args.host,
        port=args.port,
        api_key=args.api_key,
        record_requests=False,  # a long-running server must not keep every request
    ) as server:
        logger.info("fake OpenAI server at %s (Ctrl-C to stop)", server.base_url)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            logger.info("stopping")


@contextlib.contextmanager
def server_process(
    answer: str = DEFAULT_ANSWER, latency_s: float = 0.0, timeout_s: float = 30.0
) -> Iterator[str]:
    """Run the server in its own process and yield its API base URL.

    For benchmarks: a provider is another machine, so its CPU must not compete with the client's
    threads for this interpreter's GIL, as an in-process server would.
    """
    import socket
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentkit.testing.fake_openai",
            "--port",
            str(port),
            "--latency",
            str(latency_s),
            "--answer",
            answer,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the fake OpenAI server process did not start (exit {proc.poll()})"
                    ) from None
                time.sleep(0.05)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    main()
