"""Request paths that are not valid UTF-8 once decoded get a 400 from the live viewer, not a 500.

``/static/%c0%ae%c0%ae/...`` (overlong encodings of "." used to slip past path filters) made the
decoder raise inside the request handler, which answered 500 and logged a traceback.
"""

from __future__ import annotations

import http.client
import logging

import pytest
from viewer_sample import sample_database

from agentkit.viewer import ViewerServer, open_readonly

BAD_TARGETS = [
    "/static/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
    "/static/%c0%ae",
    "/runs/%ff%fe",
    "/episodes/%e2%82",
    "/%80",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "viewer-bad-encoding.db"
    sample_database(path)
    with ViewerServer(open_readonly(f"sqlite:///{path}"), port=0) as srv:
        yield srv


def _get(server: ViewerServer, target: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.putrequest("GET", target, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", f"127.0.0.1:{server.port}")
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


@pytest.mark.parametrize("target", BAD_TARGETS)
def test_undecodable_paths_are_a_400_without_a_traceback(server, target, caplog):
    with caplog.at_level(logging.ERROR, logger="agentkit"):
        status, body = _get(server, target)
    assert status == 400, (target, status, body[:200])
    assert b"not valid percent-encoded UTF-8" in body
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


def test_valid_utf8_paths_still_route(server):
    assert _get(server, "/")[0] == 200
    assert _get(server, "/runs/%C3%A9t%C3%A9")[0] in (400, 404)
