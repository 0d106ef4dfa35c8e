"""Fixtures for model tests: HTTP cassettes (pytest-recording / vcrpy) and the fake OpenAI endpoint.

How recording works: tests marked ``@pytest.mark.vcr`` talk to ``openai_endpoint``. When pytest
runs with ``--record-mode=once`` (or ``rewrite``/``all``/``new_episodes``), that is a live
``FakeOpenAIServer`` and the real HTTP exchanges made by litellm are written to
``tests/cassettes/<test module>/<test name>.yaml``. In the default mode, ``none``, no server runs:
the endpoint is a closed local port, so a request that is not served from the cassette fails
loudly instead of silently reaching a server. Ports differ between runs, so requests are matched
on method, path, query and JSON body, never on host or port.

Re-record after changing a request's shape:
``.venv/bin/pytest tests/test_models.py --record-mode=rewrite``.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from agentkit.testing.fake_openai import FakeOpenAIServer, count_images

# Keys used by tests. Fake, but shaped like real ones so the cassette scan means something.
TEST_API_KEY = "sk-test-not-a-real-key-000000"

SECRET_HEADERS = ["authorization", "api-key", "x-api-key", "openai-organization", "cookie", "set-cookie"]
_KEY_LIKE = re.compile(r"(sk|pk|rk|key|sess)-[A-Za-z0-9_\-]{6,}")
_BEARER = re.compile(r"(?i)bearer\s+[A-Za-z0-9._\-]+")


def _scrub_text(text: str) -> str:
    return _KEY_LIKE.sub("[redacted]", _BEARER.sub("Bearer [redacted]", text))


def _scrub_body(body: Any) -> Any:
    """Key-like strings removed from a body; untouched (byte for byte) when there are none."""
    if isinstance(body, bytes):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return body
        scrubbed = _scrub_text(text)
        return body if scrubbed == text else scrubbed.encode("utf-8")
    if isinstance(body, str):
        return _scrub_text(body)
    return body


def _header_is_secret(name: str, value: Any) -> bool:
    values = value if isinstance(value, list) else [value]
    return name.lower() in SECRET_HEADERS or any(
        isinstance(v, str) and (_KEY_LIKE.search(v) or _BEARER.search(v)) for v in values
    )


def scrub_request(request: Any) -> Any:
    """vcr ``before_record_request``: drop secret headers (by name or key-like value), scrub the body."""
    for name in list(request.headers):
        if _header_is_secret(name, request.headers[name]):
            del request.headers[name]
    request.body = _scrub_body(request.body)
    return request


def scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    """vcr ``before_record_response``: the same for responses (providers may echo keys in errors)."""
    headers = response.get("headers") or {}
    for name in list(headers):
        if _header_is_secret(name, headers[name]):
            del headers[name]
    body = response.get("body") or {}
    if "string" in body:
        body["string"] = _scrub_body(body["string"])
    return response


@pytest.fixture
def vcr_config() -> dict[str, Any]:
    """Shared cassette settings for every ``@pytest.mark.vcr`` test."""
    return {
        "filter_headers": ["authorization", "api-key", "x-api-key"],
        "before_record_request": scrub_request,
        "before_record_response": scrub_response,
        "match_on": ["method", "path", "query", "body"],
        "decode_compressed_response": True,
    }


@dataclass
class OpenAIEndpoint:
    """Where tests send chat requests. ``server`` is None on replay (nothing listens then)."""

    base_url: str
    server: FakeOpenAIServer | None

    @property
    def recording(self) -> bool:
        return self.server is not None

    def fail_next(self, *status_codes: int) -> None:
        """Inject errors while recording; on replay the cassette already holds them."""
        if self.server is not None:
            self.server.fail_next(*status_codes)


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def describing_responder(body: dict[str, Any]) -> str:
    """Answers with a script that says how many images arrived, so a cassette shows they did."""
    return f'Think("I see {count_images(body)} image(s)"); Go(1);'


@pytest.fixture
def openai_endpoint(record_mode: str) -> Iterator[OpenAIEndpoint]:
    """A live fake server (requiring TEST_API_KEY) when recording; a dead address on replay."""
    if record_mode == "none":
        yield OpenAIEndpoint(base_url=f"http://127.0.0.1:{_closed_port()}/v1", server=None)
        return
    with FakeOpenAIServer(describing_responder, api_key=TEST_API_KEY) as server:
        yield OpenAIEndpoint(base_url=server.base_url, server=server)


@pytest.fixture
def fake_api_key() -> str:
    """The key tests pass to models: fake, but key-shaped, so the cassette scan is meaningful."""
    return TEST_API_KEY


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A live fake server for tests that do not use cassettes (timeouts, the server itself)."""
    with FakeOpenAIServer(describing_responder, api_key=TEST_API_KEY) as server:
        yield server


# --- PostgreSQL ---------------------------------------------------------------------------------------
# A real server for the store's tests (tests/support/postgres_server.py): started once per test run,
# only if a test asks for it, stopped at the end; skipped (with the reason shown by -ra) only where
# Debian's postgresql package is not installed.

NO_POSTGRES = (
    "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: "
    "apt-get install postgresql, or ./dev setup as root"
)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    import postgres_server as pg

    if pg.find_binaries() is None:
        pytest.skip(NO_POSTGRES)
    server = pg.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: Any) -> str:
    """A new, empty database on the test server."""
    return postgres_server.new_database()


@pytest.fixture(params=["sqlite", "postgres"])
def any_db(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """The URL of an empty store: a SQLite file, then a PostgreSQL database (a test using this runs on both)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 't.db'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture(autouse=True)
def _own_endpoint_check_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test its own endpoint-check cache (agentkit.runs.endpoint_check_cache), never the user's: a
    fake server of another test may have had the same port, and the CLI's subprocesses inherit it."""
    monkeypatch.setenv("AGENTKIT_CACHE_DIR", str(tmp_path_factory.mktemp("endpoint-checks")))
