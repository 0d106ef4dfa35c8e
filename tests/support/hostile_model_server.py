"""A model endpoint on 127.0.0.1 that answers every chat request with the exact bytes it is given.

Why: the fake chat server (``agentkit.testing.fake_openai``) speaks well-formed OpenAI JSON; the
hostile-answer tests need what a broken or malicious endpoint sends instead: a gzip bomb, a 10 MB
error page, a redirect, content parts where text belongs. This server sends the given status,
headers and body as they are, over real HTTP, and counts the requests it answered.

A test fixture, so it lives in tests/support/, outside the shipped package.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class CannedAnswer:
    """What the server sends to every chat request."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up on a bomb is the point of the test, not an error


class HostileModelServer:
    """On 127.0.0.1 in a daemon thread; ``count`` is how many chat requests it answered."""

    def __init__(self, answer: CannedAnswer) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # stdlib naming
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.count += 1
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

        self.count = 0
        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> HostileModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
