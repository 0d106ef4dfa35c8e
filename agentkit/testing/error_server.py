"""An OpenAI-compatible endpoint that answers every chat request with one fixed error, for tests.

Why not the fake chat server: it injects errors by status code with a generic body, while a
provider's refusal is recognised by its body (``context_length_exceeded``), and the runner must
treat such a refusal as final. This one speaks the same HTTP, with the exact body given.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# OpenAI's answer to a request longer than the model's context window (HTTP 400).
CONTEXT_TOO_LONG = {
    "error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages "
        "resulted in 9001 tokens.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}


class ErrorServer:
    """On 127.0.0.1 in a daemon thread; ``count`` is how many chat requests it answered."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # stdlib naming
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.count += 1
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.count = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> ErrorServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
