"""The HTTP lifecycle the viewer and the play page share: a URL, a background loop, a clean stop."""

from __future__ import annotations

import socket
import urllib.request
from http.server import BaseHTTPRequestHandler

from agentkit.viewer.http_service import HTTPService


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # the base class's name
        body = b"hello"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_serves_in_the_background_and_stops_releasing_the_port():
    service = HTTPService("127.0.0.1", 0, _Hello)
    assert service.url == f"http://127.0.0.1:{service.port}/" and service.port > 0
    service.serve_in_background()
    with urllib.request.urlopen(service.url, timeout=5) as response:
        assert response.read() == b"hello"
    service.stop_serving()
    assert not service._thread.is_alive()
    with socket.socket() as s:  # nothing listens on the port any more (its closed connection may linger)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", service.port))


def test_stopping_a_service_never_started_returns_at_once():
    service = HTTPService("127.0.0.1", 0, _Hello)
    service.stop_serving()  # no serve loop to wait for: shutdown() would block forever
    with socket.socket() as s:
        s.bind(("127.0.0.1", service.port))
