"""The viewer's HTTP side: a small read-only router behind the standard library's threading server.

Why so strict: the viewer serves a database of prompts, answers and images on a researcher's
machine, and a browser will send it whatever any open web page asks for. So it answers GET and
HEAD only (405 for everything else), matches paths against a fixed set of patterns after
refusing anything that decodes to a traversal (``..``, backslashes, NUL, encoded slashes), takes
ids only in a plain alphabet and hashes only as 64 hex digits, serves static files from a fixed
list, checks the Host header when bound to loopback (a DNS-rebinding page cannot read it), and
sends a Content-Security-Policy that allows nothing but its own files. The router is a plain
object so tests can call it without sockets; ``ViewerServer`` puts it on a port.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import re
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, overload
from urllib.parse import parse_qs, unquote, urlsplit

from agentkit.transcripts import TranscriptReader
from agentkit.viewer import pages
from agentkit.viewer.compare import compare_runs, first_divergence
from agentkit.viewer.gif_export import NoFrames, episode_gif
from agentkit.viewer.http_service import HTTPService
from agentkit.viewer.links import LiveLinks
from agentkit.viewer.queries import OUTCOME_ALIASES, OUTCOMES, ViewerData

log = logging.getLogger(__name__)

ID = r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}"
SHA256 = r"[0-9a-f]{64}"
PAGE_SIZE = 50
MAX_QUERY = 2048
_ROUTES = (
    ("index", re.compile(r"/")),
    ("run", re.compile(rf"/runs/({ID})")),
    ("episode", re.compile(rf"/episodes/({ID})")),
    ("gif", re.compile(rf"/episodes/({ID})/frames\.gif")),
    ("compare", re.compile(r"/compare")),
    ("diverge", re.compile(r"/diverge")),
    ("blob", re.compile(rf"/blob/({SHA256})")),
    ("static", re.compile(r"/static/([a-z0-9][a-z0-9_-]*\.(?:css|js|svg|png))")),
)
_ID_RE = re.compile(ID)
_STATIC_TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
CSP = (
    "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Resource-Policy": "same-origin",
}
ALLOWED_METHODS = ("GET", "HEAD")


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


class BadRequest(Exception):
    """A request the viewer refuses to interpret (status and a short reason for the page)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def static_assets() -> dict[str, bytes]:
    """The files served under /static/: the package's ``static/assets`` folder, read once."""
    root = resources.files("agentkit.viewer").joinpath("static").joinpath("assets")
    return {entry.name: entry.read_bytes() for entry in root.iterdir() if entry.is_file()}


def _clean_path(raw: str) -> str:
    """The decoded path of a request target, or BadRequest for anything that could escape a route."""
    if not raw.startswith("/") or len(raw) > 4096:
        raise BadRequest(400, "malformed request target")
    path = urlsplit(raw).path
    lowered = path.lower()
    if "%2f" in lowered or "%5c" in lowered or "%00" in lowered or "%25" in lowered:
        raise BadRequest(400, "encoded separators are not accepted")
    try:
        decoded = unquote(path, errors="strict")
    except UnicodeDecodeError:  # e.g. the overlong "%c0%ae" for ".": not UTF-8, so no route's name
        raise BadRequest(400, "the path is not valid percent-encoded UTF-8") from None
    if "\\" in decoded or "\x00" in decoded or any(seg in ("..", ".") for seg in decoded.split("/")):
        raise BadRequest(400, "path traversal is not accepted")
    if "//" in decoded:
        raise BadRequest(400, "empty path segments are not accepted")
    return decoded


def _params(raw: str) -> dict[str, str]:
    query = urlsplit(raw).query
    if len(query) > MAX_QUERY:
        raise BadRequest(414, "query string too long")
    try:
        parsed = parse_qs(query, keep_blank_values=False, strict_parsing=False, max_num_fields=20)
    except ValueError as exc:
        raise BadRequest(400, str(exc)) from None
    return {k: v[-1] for k, v in parsed.items()}


@overload
def _int(params: dict[str, str], name: str, default: int, lo: int = 0, hi: int = 10**9) -> int: ...
@overload
def _int(params: dict[str, str], name: str, default: None, lo: int = 0, hi: int = 10**9) -> int | None: ...
def _int(params: dict[str, str], name: str, default: int | None, lo: int = 0, hi: int = 10**9) -> int | None:
    value = params.get(name)
    if value is None or value == "":
        return default
    if not re.fullmatch(r"\d{1,9}", value):
        raise BadRequest(400, f"{name} must be a whole number")
    number = int(value)
    if not lo <= number <= hi:
        raise BadRequest(400, f"{name} must be between {lo} and {hi}")
    return number


def _id(params: dict[str, str], name: str) -> str:
    value = params.get(name, "")
    if not _ID_RE.fullmatch(value):
        raise BadRequest(400, f"{name} must be a run or episode id")
    return value


def _filter(params: dict[str, str], name: str) -> str | None:
    value = params.get(name) or None
    if value is not None and (len(value) > 200 or any(ord(c) < 32 for c in value)):
        raise BadRequest(400, f"{name} is not a valid filter value")
    return value


class ViewerApp:
    """Routes requests to pages. ``handle`` never raises: every failure becomes an error page."""

    def __init__(self, store: TranscriptReader, allowed_hosts: set[str] | None = None) -> None:
        self.data = ViewerData(store)
        self.links = LiveLinks()
        self.assets = static_assets()
        self.allowed_hosts = allowed_hosts  # None: any Host header (bound to a non-loopback address)

    def handle(self, method: str, target: str, headers: dict[str, str] | None = None) -> Response:
        headers = {k.lower(): v for k, v in (headers or {}).items()}
        try:
            if method not in ALLOWED_METHODS:
                return self._error(
                    405,
                    f"{method} is not allowed: the viewer is read-only",
                    {"Allow": ", ".join(ALLOWED_METHODS)},
                )
            if self.allowed_hosts is not None and headers.get("host", "").lower() not in self.allowed_hosts:
                return self._error(
                    421, "this viewer answers only requests addressed to its own loopback address"
                )
            path = _clean_path(target)
            for name, pattern in _ROUTES:
                m = pattern.fullmatch(path)
                if m:
                    response = getattr(self, f"_{name}")(*m.groups(), params=_params(target), headers=headers)
                    break
            else:
                response = self._error(404, "no such page")
        except BadRequest as exc:
            response = self._error(exc.status, exc.message)
        except KeyError as exc:
            response = self._error(404, str(exc.args[0]) if exc.args else "not found")
        except Exception:  # a broken page must not take the server down
            log.exception("viewer: error serving %s", target)
            response = self._error(500, "internal error (see the viewer's log)")
        response.headers = {**SECURITY_HEADERS, **response.headers}
        if method == "HEAD":
            response.headers.setdefault("Content-Length", str(len(response.body)))
            response.body = b""
        return response

    # --- pages --------------------------------------------------------------------------------------

    def _html(self, html: str, status: int = 200) -> Response:
        return Response(status, html.encode("utf-8"), headers={"Cache-Control": "no-store"})

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        body = pages.error_page(self.links, status, message).encode("utf-8")
        return Response(status, body, headers={"Cache-Control": "no-store", **(headers or {})})

    def _index(self, params: dict[str, str], headers: dict[str, str]) -> Response:
        filters = {k: _filter(params, k) for k in ("env", "model", "task", "outcome")}
        if filters["outcome"] not in (None, *OUTCOMES, *OUTCOME_ALIASES):
            raise BadRequest(400, f"outcome must be one of {', '.join(OUTCOMES)}")
        runs_page = _int(params, "runs_page", 1, lo=1)
        page = _int(params, "page", 1, lo=1)
        runs = self.data.runs(
            env=filters["env"], model=filters["model"], offset=(runs_page - 1) * PAGE_SIZE, limit=PAGE_SIZE
        )
        episodes = self.data.episodes(**filters, offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE)
        return self._html(pages.index_page(self.data, self.links, filters, runs, episodes))

    def _run(self, run_id: str, params: dict[str, str], headers: dict[str, str]) -> Response:
        filters = {k: _filter(params, k) for k in ("task", "outcome")}
        if filters["outcome"] not in (None, *OUTCOMES, *OUTCOME_ALIASES):
            raise BadRequest(400, f"outcome must be one of {', '.join(OUTCOMES)}")
        page = _int(params, "page", 1, lo=1)
        run = self.data.run(run_id)
        episodes = self.data.episodes(
            run_id=run_id, **filters, offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE
        )
        others = [r for r in self.data.runs(env=run.env, limit=200).items if r.id != run_id]
        return self._html(pages.run_page(self.data, self.links, run_id, filters, episodes, others))

    def _episode(self, episode_id: str, params: dict[str, str], headers: dict[str, str]) -> Response:
        index = _int(params, "turn", None)  # the stored index (0 first), as links carry it
        number = _int(params, "number", None, lo=1)  # the page's own 1-based number (its "go to" box)
        if number is not None:
            index = number - 1
        status, html = pages.episode_page(self.data, self.links, episode_id, index)
        return self._html(html, status)

    def _gif(self, episode_id: str, params: dict[str, str], headers: dict[str, str]) -> Response:
        try:
            data = episode_gif(self.data, episode_id)
        except NoFrames as exc:
            return self._error(404, str(exc))
        return Response(
            200,
            data,
            content_type="image/gif",
            headers={
                "Cache-Control": "no-store",
                "Content-Disposition": f'attachment; filename="episode-{episode_id}.gif"',
            },
        )

    def _compare(self, params: dict[str, str], headers: dict[str, str]) -> Response:
        a, b = _id(params, "a"), _id(params, "b")
        comparison = compare_runs(self.data, a, b)
        return self._html(pages.compare_page(self.links, comparison, self.data.run(a), self.data.run(b)))

    def _diverge(self, params: dict[str, str], headers: dict[str, str]) -> Response:
        a, b = _id(params, "a"), _id(params, "b")
        return self._html(pages.diverge_page(self.links, first_divergence(self.data, a, b)))

    def _blob(self, sha256: str, params: dict[str, str], headers: dict[str, str]) -> Response:
        etag = f'"{sha256}"'
        cache = {"Cache-Control": "public, max-age=31536000, immutable", "ETag": etag}
        if headers.get("if-none-match") == etag:
            return Response(304, b"", content_type="", headers=cache)
        found = self.data.image(sha256)
        if found is None:
            return self._error(404, "no image with that hash")
        media_type, data = found
        if hashlib.sha256(data).hexdigest() != sha256:
            log.warning("blob %s does not match its hash; not served", sha256)
            return self._error(404, "no image with that hash")
        return Response(200, data, content_type=media_type, headers=cache)

    def _static(self, name: str, params: dict[str, str], headers: dict[str, str]) -> Response:
        data = self.assets.get(name)
        if data is None:
            return self._error(404, "no such file")
        suffix = name[name.rindex(".") :]
        return Response(200, data, content_type=_STATIC_TYPES[suffix], headers={"Cache-Control": "no-cache"})


def loopback_hosts(host: str, port: int) -> set[str] | None:
    """Host header values to accept: the loopback names with the port; None for other bind addresses."""
    try:
        if not ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        if host != "localhost":
            return None
    return {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"{host}:{port}"}


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"
    server_version = "agentkit-viewer"
    sys_version = ""
    timeout = 60  # idle keep-alive connections are closed instead of holding a thread forever

    def _respond(self) -> None:
        response = self.server.app.handle(self.command, self.path, dict(self.headers.items()))
        self.send_response(response.status)
        if response.content_type:
            self.send_header("Content-Type", response.content_type)
        for key, value in response.headers.items():
            self.send_header(key, value)
        if "Content-Length" not in response.headers:
            self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        if response.body:
            self.wfile.write(response.body)

    def handle_one_request(self) -> None:
        """Every method, known or not, goes through the router (which refuses all but GET/HEAD).

        A request line over 64 KiB gets its 414 (the attributes its log line reads are set first, as
        the standard library's own handler does), and a browser that leaves before its answer (a
        closed tab, a cancelled image) is a DEBUG line, not a traceback on the terminal."""
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if len(self.raw_requestline) > 65536:
                self.requestline, self.request_version, self.command = "", "", ""
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG, "request line longer than 64 KiB")
                self.close_connection = True
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():
                return
            length = self.headers.get("Content-Length")
            if length and length.isdigit() and int(length) <= 1 << 20:
                self.rfile.read(int(length))  # drain a refused body so the connection stays in sync
            elif length:
                self.close_connection = True
            self._respond()
            self.wfile.flush()
        except TimeoutError:
            self.close_connection = True
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError) as exc:
            log.debug("viewer %s: the browser left before its answer (%s)", self.address_string(), exc)
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:  # the base class's name
        log.debug("viewer %s: " + format, self.address_string(), *args)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], app: ViewerApp) -> None:
        self.app = app
        super().__init__(address, _Handler)


class ViewerServer(HTTPService):
    """The viewer on ``host:port`` (port 0 picks a free one); ``serve_forever`` or ``start``/``stop``."""

    thread_name = "agentkit-viewer"

    def __init__(self, store: TranscriptReader, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = ViewerApp(store)
        super().__init__(host, port, _Handler)
        self.app.allowed_hosts = loopback_hosts(host, self.port)

    def make_server(
        self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]
    ) -> ThreadingHTTPServer:
        return _HTTPServer(address, self.app)

    def start(self) -> ViewerServer:
        """Serve from a background thread (for tests and embedding)."""
        self.serve_in_background()
        return self

    def stop(self) -> None:
        self.stop_serving(join_s=5)

    def __enter__(self) -> ViewerServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
