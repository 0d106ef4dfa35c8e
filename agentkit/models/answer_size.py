"""Model answers read with a cap on their size after decompression, and error bodies read only in part.

Why: httpx inflates a ``Content-Encoding: gzip`` answer as it reads it, without a limit, so an
endpoint that sends ~1 MB inflating to 1 GB (zeros, or spaces inside valid JSON) cost 3.5-3.7 GB of
memory and the JSON one was accepted (issue 29, row 3). And a 500 with a 10 MB error page was read
whole, then searched by litellm's secret redaction and error mapping, ~30 s per attempt (row 10).

Here the transports of OpenAI-compatible endpoints (``usage_guard``) hand on each answer as a stream
that this module decodes itself (only the encodings it asks for: gzip and deflate), counting the
bytes it gives out: an answer past :data:`MAX_ANSWER_BYTES` raises :class:`RefusedAnswer` naming the
endpoint (not retried: the same endpoint would send the same), and an error answer (status >= 400)
is cut at :data:`MAX_ERROR_BYTES`, enough for any real error message, and its connection closed
unread. A redirect is refused too: following it would send the prompt and the key elsewhere.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import AsyncIterator, Iterator

import httpx

from agentkit.leaves.url_redaction import redact_url

logger = logging.getLogger(__name__)

MAX_ANSWER_BYTES = 32 * 2**20  # a chat answer's JSON after decompression; real ones are < 1 MiB
MAX_ERROR_BYTES = 16 * 2**10  # of an error body: real ones are < 2 KiB, only ~300 chars are shown
ASKED_ENCODINGS = "gzip, deflate"  # what we decode ourselves, with the cap
_DROPPED_HEADERS = ("content-length", "content-encoding", "transfer-encoding")


class RefusedAnswer(Exception):
    """An answer this client will not read: too large once inflated, in an encoding it did not ask
    for, or a redirect. Its message is one line naming the endpoint; another attempt cannot help."""


def refusal_in(exc: BaseException | None) -> RefusedAnswer | None:
    """The :class:`RefusedAnswer` in ``exc``'s cause chain (SDKs wrap it as a connection error)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, RefusedAnswer):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


class _Over(Exception):
    """Decoding passed the cap; ``fits`` is the decoded part within it."""

    def __init__(self, fits: bytes) -> None:
        super().__init__()
        self.fits = fits


class _Inflater:
    """One content coding (gzip or deflate), inflated at most ``room`` bytes per feed."""

    def __init__(self, coding: str) -> None:
        self._coding = coding
        self._obj = zlib.decompressobj(zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS)
        self._first = True

    def feed(self, data: bytes, room: int) -> bytes:
        try:
            return self._feed(data, room)
        except zlib.error:
            if not (self._first and self._coding == "deflate"):
                raise
            self._obj = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, as some servers send (httpx too)
            return self._feed(data, room)
        finally:
            self._first = False

    def _feed(self, data: bytes, room: int) -> bytes:
        pieces: list[bytes] = []
        size = 0
        while data and not self._obj.eof:
            piece = self._obj.decompress(data, room - size + 1)  # at most one byte past the cap
            pieces.append(piece)
            size += len(piece)
            if size > room:
                raise _Over(b"".join(pieces)[:room])
            data = self._obj.unconsumed_tail
            if not piece and data:  # no progress (cannot happen with zlib): never loop on it
                break
        return b"".join(pieces)


class _CappedDecoder:
    """The codings of one answer, innermost last, with one cap on the bytes given out."""

    def __init__(self, codings: list[str], limit: int) -> None:
        self._inflaters = [_Inflater(c) for c in reversed(codings)]
        self._limit = limit
        self.given = 0
        self.raw = 0

    def decode(self, chunk: bytes) -> bytes:
        self.raw += len(chunk)
        for inflater in self._inflaters:
            chunk = inflater.feed(chunk, self._limit - self.given)
        if self.raw > 2 * self._limit + 2**20:  # sent, yet inflating to nothing (garbage past a gzip end)
            raise _Over(chunk[: self._limit - self.given])
        if self.given + len(chunk) > self._limit:
            raise _Over(chunk[: self._limit - self.given])
        self.given += len(chunk)
        return chunk


def _codings(response: httpx.Response, endpoint: str) -> list[str]:
    header = response.headers.get("content-encoding", "")
    codings = [c.strip().lower() for c in header.split(",") if c.strip()]
    codings = [c if c != "x-gzip" else "gzip" for c in codings if c != "identity"]
    unasked = [c for c in codings if c not in ("gzip", "deflate")]
    if unasked:
        raise RefusedAnswer(
            f"the answer of {endpoint} is in Content-Encoding {header!r}, which was not asked for "
            f"(asked: {ASKED_ENCODINGS}); refused unread"
        )
    return codings


class _Reader:
    """What the sync and async streams share: the decoder, the cap, and what passing it means."""

    def __init__(self, response: httpx.Response, endpoint: str) -> None:
        self.endpoint = endpoint
        self.error = response.status_code >= 400
        self.limit = MAX_ERROR_BYTES if self.error else MAX_ANSWER_BYTES
        self.encoding = response.headers.get("content-encoding", "") or "none"
        self.decoder = _CappedDecoder(_codings(response, endpoint), self.limit)

    def decode(self, chunk: bytes) -> tuple[bytes, bool]:
        """(decoded bytes to give out, whether to stop reading)."""
        try:
            return self.decoder.decode(chunk), False
        except zlib.error as exc:
            raise RefusedAnswer(
                f"the answer of {self.endpoint} does not inflate as its Content-Encoding "
                f"{self.encoding!r} says ({exc})"
            ) from None
        except _Over as over:
            if not self.error:
                raise RefusedAnswer(
                    f"the answer of {self.endpoint} is larger than {self.limit // 2**20} MiB "
                    f"once inflated (Content-Encoding: {self.encoding}); refused unread"
                ) from None
            logger.debug("%s: error body cut at %d bytes, its connection closed", self.endpoint, self.limit)
            return over.fits, True


class _CappedStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.Response, reader: _Reader) -> None:
        self._inner = inner
        self._reader = reader

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._inner.iter_raw():
            decoded, stop = self._reader.decode(chunk)
            if decoded:
                yield decoded
            if stop:
                break

    def close(self) -> None:
        self._inner.close()  # before the end: httpcore drops the connection rather than reuse it


class _AsyncCappedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.Response, reader: _Reader) -> None:
        self._inner = inner
        self._reader = reader

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner.aiter_raw():
            decoded, stop = self._reader.decode(chunk)
            if decoded:
                yield decoded
            if stop:
                break

    async def aclose(self) -> None:
        await self._inner.aclose()


def ask_capped_encodings(request: httpx.Request) -> None:
    """Ask only for the encodings decoded here (httpx would also offer br and zstd when installed)."""
    request.headers["accept-encoding"] = ASKED_ENCODINGS


def _refuse_redirect(response: httpx.Response, endpoint: str) -> None:
    if 300 <= response.status_code < 400:
        target = redact_url(response.headers.get("location", "")) or "nowhere"
        raise RefusedAnswer(
            f"{endpoint} answered {response.status_code} (a redirect to {target}); set api_base to "
            "the address it points to (redirects are not followed: they would carry the prompt and key)"
        )


def _capped_response(
    response: httpx.Response, stream: httpx.SyncByteStream | httpx.AsyncByteStream, request: httpx.Request
) -> httpx.Response:
    headers = [(k, v) for k, v in response.headers.raw if k.decode("latin-1").lower() not in _DROPPED_HEADERS]
    return httpx.Response(
        response.status_code, headers=headers, stream=stream, request=request, extensions=response.extensions
    )


def capped(response: httpx.Response, request: httpx.Request) -> httpx.Response:
    """``response`` (from a sync transport) as an answer whose reading keeps the caps above."""
    endpoint = redact_url(str(request.url))
    try:
        _refuse_redirect(response, endpoint)
        reader = _Reader(response, endpoint)
    except RefusedAnswer:
        response.close()
        raise
    return _capped_response(response, _CappedStream(response, reader), request)


async def acapped(response: httpx.Response, request: httpx.Request) -> httpx.Response:
    """The async twin of :func:`capped`."""
    endpoint = redact_url(str(request.url))
    try:
        _refuse_redirect(response, endpoint)
        reader = _Reader(response, endpoint)
    except RefusedAnswer:
        await response.aclose()
        raise
    return _capped_response(response, _AsyncCappedStream(response, reader), request)
