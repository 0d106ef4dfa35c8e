"""The viewer's server under hostile or impatient clients, over real sockets (issue 29, row 11).

Before: a request line over 64 KiB raised ``AttributeError: ... 'requestline'`` in the server thread
(a traceback, no answer), and every browser that left before its answer (a closed tab) printed a
BrokenPipe traceback. Now the first gets a 414 and the second is one DEBUG line.
"""

from __future__ import annotations

import logging
import socket
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentkit.transcripts import TranscriptStore
from agentkit.viewer.readonly import open_readonly
from agentkit.viewer.server import ViewerServer


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[ViewerServer]:
    path = tmp_path / "runs.db"
    TranscriptStore(f"sqlite:///{path}").close()
    with ViewerServer(open_readonly(f"sqlite:///{path}"), port=0) as srv:
        yield srv


def _exchange(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_request_line_over_64_kib_gets_414(server: ViewerServer, capfd: pytest.CaptureFixture[str]) -> None:
    answer = _exchange(server.port, b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 414 "), answer[:200]
    assert b"request line longer than 64 KiB" in answer
    host = f"127.0.0.1:{server.port}".encode()
    ok = _exchange(server.port, b"GET / HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 200 ")  # the server still serves
    assert "Traceback" not in capfd.readouterr().err


def test_a_browser_that_leaves_early_is_one_debug_line_not_a_traceback(
    server: ViewerServer, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    request = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode()
    with caplog.at_level(logging.DEBUG, logger="agentkit.viewer"):
        for _ in range(20):  # each closes with a reset before the page is written
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.sendall(request)
            sock.close()
        host = f"127.0.0.1:{server.port}".encode()
        ok = _exchange(server.port, b"GET / HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 200 ")
    left = [r for r in caplog.records if "the browser left before its answer" in r.getMessage()]
    assert left and all(r.levelno == logging.DEBUG for r in left)
    assert "Traceback" not in capfd.readouterr().err
