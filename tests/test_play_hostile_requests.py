"""The play server under hostile requests, over real sockets (issue 29, row 12).

Before: ``Content-Length: abc`` and 60 KB of nested JSON got a 500 carrying the exception's text, and
a JSON POST was taken from any ``Origin`` (each new participant name made a run). Now the first two
get a 400 with one line, and every POST from another site's page is refused with a 403 before it
changes anything.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentkit.play import PlayOptions, PlayServer
from agentkit.transcripts import TranscriptStore

CHILD_TASK = "07-16-01"


@pytest.fixture()
def play(tmp_path: Path) -> Iterator[tuple[PlayServer, TranscriptStore]]:
    store = TranscriptStore(f"sqlite:///{tmp_path / 'play.db'}")
    server = PlayServer(store, PlayOptions(None, tasks=[CHILD_TASK], size=64, mode="keyboard", tutorial=None))
    server.start()
    try:
        yield server, store
    finally:
        server.close()
        store.close()


def _post(server: PlayServer, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    """POST as written (headers given verbatim, Content-Length included) on a raw socket."""
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "Connection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head.encode() + body)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    answer = b"".join(chunks)
    status = int(answer.split(b" ", 2)[1])
    return status, json.loads(answer.partition(b"\r\n\r\n")[2])


def test_a_content_length_that_is_not_a_number_is_400_in_one_line(play) -> None:
    server, _ = play
    status, answer = _post(server, "/api/session", b"{}", {"Content-Length": "abc"})
    assert (status, answer) == (400, {"error": "Content-Length: 'abc' is not a number of bytes"})


def test_deeply_nested_json_is_400_in_one_line(play) -> None:
    server, _ = play
    nested = b"[" * 30_000 + b"]" * 30_000  # 60 KB, under the body limit
    status, answer = _post(server, "/api/step", nested, {"Content-Length": str(len(nested))})
    assert (status, answer) == (400, {"error": "request body: JSON nested too deeply"})


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://127.0.0.1:1"},  # another port is another site
        {"Sec-Fetch-Site": "cross-site"},
    ],
    ids=["other-site", "null", "other-port", "cross-site"],
)
def test_a_post_from_another_sites_page_is_refused_and_makes_no_run(play, headers) -> None:
    server, store = play
    body = json.dumps({"participant": "mallory"}).encode()
    status, answer = _post(server, "/api/sessions", body, {"Content-Length": str(len(body)), **headers})
    assert status == 403 and answer["error"].endswith("is not this server: it answers only its own pages")
    assert "\n" not in answer["error"]
    assert store.list_runs() == []


def test_a_post_from_the_servers_own_page_passes_the_origin_check(play) -> None:
    server, _ = play
    body = json.dumps({"session": "nope"}).encode()
    for origin in (f"http://127.0.0.1:{server.port}", f"http://localhost:{server.port}"):
        headers = {"Content-Length": str(len(body)), "Origin": origin, "Sec-Fetch-Site": "same-origin"}
        status, answer = _post(server, "/api/step", body, headers)
        assert (status, answer["error"]) == (400, "unknown session (reload the page to open one)")
