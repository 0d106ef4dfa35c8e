"""The local web server of ``agentkit play``: the page, its assets and a small JSON API.

Why the standard library's threading server: one request a step (at most ~17 a second per
participant) needs nothing more, and each request may wait for the world to step. The page polls
``/api/step`` with the keys it holds (keyboard mode) or posts a typed script (script mode); each
request moves the world by exactly one answer and returns the frame that follows, so the world
advances only while a page asks, never faster than one step per 0.06 s. ``/api/session`` opens
the participant's session, or returns the one in play (a reloaded or reopened tab resumes).

The experimenter page (``/experimenter``) names participants (id and condition; ``/api/sessions``):
each gets a sitting of its own (its own run, world and thread) and a link ``/?session=TOKEN``, so
several people can play at once on one server without mixing. The page lists every sitting with
its progress and each task's outcome.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlparse

from agentkit.play.keys import GRID_KEYS, held_keys_action, pressed_key_action
from agentkit.play.session import STEP_S, PlayOptions, PlaySession, check_condition, check_participant
from agentkit.transcripts import TranscriptStore
from agentkit.viewer.http_service import HTTPService
from agentkit.viewer.server import loopback_hosts

log = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
MAX_SCRIPT = 4000  # characters of one typed script
MAX_KEYS = 16
ASSETS = {
    "play.html": "text/html; charset=utf-8",
    "play.js": "text/javascript; charset=utf-8",
    "play.css": "text/css; charset=utf-8",
    "experimenter.html": "text/html; charset=utf-8",
    "experimenter.js": "text/javascript; charset=utf-8",
}
PAGES = {"/": "play.html", "/index.html": "play.html", "/experimenter": "experimenter.html"}
CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'"


def _asset(name: str) -> bytes:
    return resources.files("agentkit.play").joinpath("static").joinpath(name).read_bytes()


class BadRequest(ValueError):
    """A request the API refuses, with the one line the page shows."""


@dataclass
class _Seat:
    """A session and when its world last stepped (for the 0.06 s pace)."""

    session: PlaySession
    last_step: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)  # one answer at a time per sitting


class PlayServer(HTTPService):
    """Serves one experimenter's sittings: ``options`` name the participant, tasks and mode."""

    thread_name = "play-server"

    def __init__(
        self,
        store: TranscriptStore,
        options: PlayOptions,
        host: str = "127.0.0.1",
        port: int = 0,
        resume: Any = None,
    ) -> None:
        self.store = store
        self.options = options
        self._resume = resume  # an agentkit.play.resume.ResumePoint for options.participant's first sitting
        self._seats: dict[str, _Seat] = {}
        self._by_participant: dict[str, str] = {}
        self._lock = threading.Lock()
        server = self

        class Handler(_Handler):
            play = server

        super().__init__(host, port, Handler)
        # Bound to loopback: only requests addressed to it (a page of another site that renamed its
        # own address to 127.0.0.1 cannot reach the API). None: any Host (bound elsewhere, on purpose).
        self.allowed_hosts = loopback_hosts(host, self.port)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> str:
        """Serve on a background thread (tests, benchmarks); returns the page's URL."""
        self.serve_in_background()
        return self.url

    def close(self) -> None:
        """Stop serving and close every session (an episode in play ends; its run is closed)."""
        self.stop_serving(join_s=10)
        for seat in list(self._seats.values()):
            seat.session.close()

    # ------------------------------------------------------------------ API
    def add_participant(self, participant: str, condition: str = "") -> str:
        """The token of ``participant``'s sitting, created (with its run) unless one is in play."""
        try:
            check_participant(participant, "participant")
            check_condition(condition, "condition")
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        with self._lock:
            token = self._by_participant.get(participant)
            if token is not None and not self._seats[token].session.state()["finished"]:
                return token
            resume = self._resume if participant == self.options.participant else None
            session = PlaySession(
                replace(self.options, participant=participant, condition=condition), self.store, resume=resume
            )
            session.start()
            if resume is not None:
                self._resume = None
            token = secrets.token_urlsafe(16)
            self._seats[token] = _Seat(session)
            self._by_participant[participant] = token
        log.info("participant %s: run %s (%s mode)", participant, session.run_id, self.options.mode)
        return token

    def open_session(self, body: dict[str, Any]) -> dict[str, Any]:
        """The page's sitting: the one its link names (``session``), else the participant named on the
        command line (created on first call); its token and state."""
        token = body.get("session")
        if not token:
            if self.options.participant is None:
                raise BadRequest("no participant: open the link the experimenter page gives")
            with self._lock:  # a page reloaded after the last arena sees the sitting done, not a new one
                token = self._by_participant.get(self.options.participant)
            if token is None:
                token = self.add_participant(self.options.participant, self.options.condition)
        seat = self.seat(token)
        assert seat.session.participant is not None
        seat.session.participant.wait_first_frame()
        return {"session": token, **seat.session.state()}

    def sessions(self) -> list[dict[str, Any]]:
        """Every sitting of this server, for the experimenter page: who, where, and each task's outcome."""
        rows = []
        for token, seat in list(self._seats.items()):
            state = seat.session.state()
            rows.append(
                {
                    "session": token,
                    "link": f"/?session={token}",
                    "participant": state["participant"],
                    "condition": seat.session.options.condition,
                    "run_id": state["run_id"],
                    "mode": state["mode"],
                    "task": state["task"],
                    "task_index": state["task_index"],
                    "tasks_total": state["tasks_total"],
                    "finished": state["finished"],
                    "error": state["error"],
                    "outcomes": state["outcomes"],
                }
            )
        return rows

    def seat(self, token: Any) -> _Seat:
        seat = self._seats.get(token) if isinstance(token, str) else None
        if seat is None:
            raise BadRequest("unknown session (reload the page to open one)")
        return seat

    def step(self, body: dict[str, Any]) -> dict[str, Any]:
        """Move the world by one answer: the held ``keys`` (keyboard mode) or a ``script``."""
        seat = self.seat(body.get("session"))
        session = seat.session
        assert session.participant is not None
        realtime = session.options.stepping == "realtime"
        if realtime:
            keys = body.get("keys", [])
            if (
                not isinstance(keys, list)
                or len(keys) > MAX_KEYS
                or not all(isinstance(k, str) for k in keys)
            ):
                raise BadRequest("keys: a list of at most 16 key names")
            text = held_keys_action(keys)
        elif session.options.mode == "keyboard":
            action = pressed_key_action(body["press"]) if isinstance(body.get("press"), str) else None
            if action is None:
                raise BadRequest(f"press: one of the keys {', '.join(repr(k) for k in sorted(GRID_KEYS))}")
            text = action
        else:
            script = body.get("script")
            if not isinstance(script, str) or not script.strip():
                raise BadRequest("script: type a script (for example Turn(30); Go(5))")
            text = script
            if len(text) > MAX_SCRIPT:
                raise BadRequest(f"script: at most {MAX_SCRIPT} characters")
        with seat.lock:  # one answer at a time per session, however many tabs ask
            if realtime:  # steps begin at least 0.06 s apart
                wait = seat.last_step + STEP_S - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            seat.last_step = time.monotonic()
            session.participant.hand_over(text)
        return session.state()


class _Handler(BaseHTTPRequestHandler):
    play: PlayServer
    server_version = "agentkit-play"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: dict[str, Any]) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _refused(self) -> bool:
        """Answer (and True) a request not addressed to this server's loopback name."""
        allowed = self.play.allowed_hosts
        if allowed is not None and (self.headers.get("Host") or "").lower() not in allowed:
            self._json(
                HTTPStatus.MISDIRECTED_REQUEST,
                {"error": "this server answers only requests to its own loopback address"},
            )
            return True
        return False

    def do_GET(self) -> None:
        if self._refused():
            return
        url = urlparse(self.path)
        name = PAGES.get(url.path) or url.path.removeprefix("/static/")
        if name in ASSETS and (url.path.startswith("/static/") or url.path in PAGES):
            self._send(HTTPStatus.OK, _asset(name), ASSETS[name])
        elif url.path == "/api/sessions":
            self._json(HTTPStatus.OK, {"sessions": self.play.sessions()})
        elif url.path == "/api/state":
            try:
                seat = self.play.seat(parse_qs(url.query).get("session", [""])[0])
            except BadRequest as exc:
                self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
                return
            self._json(HTTPStatus.OK, seat.session.state())
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {url.path}"})

    def _foreign_origin(self) -> bool:
        """Answer 403 (and True) for a request a page of another site sent: every POST changes state
        (a new participant name makes a run), so one whose ``Origin`` is not this server's own, or
        that the browser marks cross-site, is refused. Tools that send no ``Origin`` (curl, tests)
        are not browsers carrying someone's page, and pass."""
        origin = self.headers.get("Origin")
        site = (self.headers.get("Sec-Fetch-Site") or "").lower()
        hosts = self.play.allowed_hosts or {(self.headers.get("Host") or "").lower()}
        if (origin is None or origin.lower() in {f"http://{h}" for h in hosts}) and site != "cross-site":
            return False
        shown = (origin or "")[:100]
        self._json(
            HTTPStatus.FORBIDDEN,
            {"error": f"Origin {shown!r} is not this server: it answers only its own pages"},
        )
        return True

    def do_POST(self) -> None:
        if self._refused() or self._foreign_origin():
            return
        url = urlparse(self.path)
        try:
            # JSON only: a form on another site cannot post here without a preflight we never grant
            if not (self.headers.get("Content-Type") or "").startswith("application/json"):
                raise BadRequest("requests must be JSON (Content-Type: application/json)")
            declared = (self.headers.get("Content-Length") or "0").strip()
            if not declared.isascii() or not declared.isdigit():
                raise BadRequest(f"Content-Length: {declared[:40]!r} is not a number of bytes")
            length = int(declared)
            if length > MAX_BODY:
                raise BadRequest(f"request body: at most {MAX_BODY} bytes")
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                raise BadRequest("request body: not JSON") from None
            except RecursionError:
                raise BadRequest("request body: JSON nested too deeply") from None
            if not isinstance(body, dict):
                raise BadRequest("request body: a JSON object")
            if url.path == "/api/session":
                self._json(HTTPStatus.OK, self.play.open_session(body))
            elif url.path == "/api/sessions":  # the experimenter names a participant
                participant, condition = body.get("participant"), body.get("condition", "")
                if not isinstance(participant, str) or not isinstance(condition, str):
                    raise BadRequest("participant and condition: text")
                token = self.play.add_participant(participant.strip(), condition.strip())
                self._json(HTTPStatus.OK, {"session": token, "link": f"/?session={token}"})
            elif url.path == "/api/step":
                self._json(HTTPStatus.OK, self.play.step(body))
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no endpoint {url.path}"})
        except BadRequest as exc:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
        except (BrokenPipeError, ConnectionResetError):
            log.debug("the page left before its answer")
        except (
            Exception
        ) as exc:  # e.g. the store cannot create the run: one line for the page, details in the log
            log.exception("play request %s failed", url.path)
            self._json(
                HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"{type(exc).__name__}: {exc}".splitlines()[0]}
            )
