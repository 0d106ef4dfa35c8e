"""One deadline for a whole HTTP request, kept by the socket operations of the thread that sends it.

Why: httpx's timeouts bound each network operation, so a server that drips a few bytes at a time
never trips a read timeout and holds a request for as long as it likes. The litellm route bounds
the whole request by running it in a helper thread the caller stops waiting for; that costs a
thread start and two thread switches per call (a few tenths of a ms, more on a busy machine). The
direct route (``direct_chat``) sends on the caller's own thread instead, through a connection pool
whose network streams shorten every connect, read and write to the time left before the thread's
deadline (:func:`deadline`), so the whole request ends by then; a passed deadline is an httpx
timeout like any other.

Writes go out as views of the body, not copies: httpcore's own write loop slices the rest of the
buffer after every ``send`` (``buffer = buffer[n:]``), which for the 4.5 MB body of turn 100 on a
loopback socket (a few hundred KB per send) copies tens of MB per call.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore
import httpx
from httpcore._backends.sync import SyncStream  # the plain (or TLS) socket stream of httpcore

_local = threading.local()


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Requests sent by this thread within the block end ``seconds`` from now at the latest."""
    _local.end = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.end = None


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    """The timeout of one socket operation: the given one, shortened to the time left."""
    end = getattr(_local, "end", None)
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the request's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        sock = self._inner.get_extra_info("socket") if isinstance(self._inner, SyncStream) else None
        if not isinstance(sock, socket.socket):  # another stream (TLS inside a proxy's TLS): its own way
            self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))
            return
        view = memoryview(buffer)
        try:
            while view:
                sock.settimeout(_left(timeout, httpcore.WriteTimeout))  # each send: the time left
                view = view[sock.send(view) :]
        except TimeoutError as exc:  # socket.timeout
            raise httpcore.WriteTimeout(exc) from exc
        except OSError as exc:
            raise httpcore.WriteError(exc) from exc

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        tls = self._inner.start_tls(ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout))
        return _Stream(tls)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(
            host, port, _left(timeout, httpcore.ConnectTimeout), local_address, socket_options
        )
        return _Stream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_unix_socket(
            path, _left(timeout, httpcore.ConnectTimeout), socket_options
        )
        return _Stream(stream)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def deadline_transport(proxy: str | None = None, verify: ssl.SSLContext | bool = True) -> httpx.HTTPTransport:
    """httpx's transport (through ``proxy`` if given; ``verify`` as httpx takes it) whose connections
    keep the thread's deadline."""
    transport = httpx.HTTPTransport(proxy=proxy, verify=verify)
    pool = transport._pool  # httpcore's ConnectionPool (or HTTPProxy, one of its kind)
    if not hasattr(pool, "_network_backend"):  # an httpcore that keeps it elsewhere: fail loudly here
        raise RuntimeError("httpcore's connection pool has no _network_backend to keep a deadline")
    pool._network_backend = _Backend()
    return transport
