"""A small HTTP service on one port, served from the calling thread or a background one.

Why: the viewer (``agentkit view``) and the play page (``agentkit play``) both put a standard
library ``ThreadingHTTPServer`` on ``host:port`` (port 0 picks a free one), tell their URL, serve
in the foreground or from a thread for tests, and stop. That lifecycle is written once here; each
keeps its own request handler and what it serves.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

POLL_S = 0.2  # how often the serve loop looks for a shutdown request


class HTTPService:
    """``httpd`` bound on ``host:port``; ``url``, ``serve_forever``, and a background thread."""

    thread_name = "agentkit-http"

    def __init__(self, host: str, port: int, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = self.make_server((host, port), handler)
        self.httpd.daemon_threads = True  # a request in flight never keeps the process alive
        self.host, self.port = host, int(self.httpd.server_address[1])
        self._thread: threading.Thread | None = None
        self._serving = False

    def make_server(
        self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]
    ) -> ThreadingHTTPServer:
        """The server to bind (a subclass may return its own ``ThreadingHTTPServer``)."""
        return ThreadingHTTPServer(address, handler)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host  # an IPv6 literal is bracketed
        return f"http://{host}:{self.port}/"

    def serve_forever(self) -> None:
        self._serving = True
        try:
            self.httpd.serve_forever(poll_interval=POLL_S)
        finally:
            self._serving = False

    def serve_in_background(self) -> None:
        """Serve from a daemon thread (for tests and embedding)."""
        self._thread = threading.Thread(target=self.serve_forever, name=self.thread_name, daemon=True)
        self._thread.start()

    def stop_serving(self, join_s: float = 5.0) -> None:
        """End the serve loop (if one was started) and release the port."""
        if self._thread is not None or self._serving:  # shutdown() waits for a loop: never without one
            self.httpd.shutdown()
        if self._thread is not None:
            self._thread.join(join_s)
        self.httpd.server_close()
