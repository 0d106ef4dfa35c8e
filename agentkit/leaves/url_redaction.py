"""URLs as they may be stored or logged: no user info, no secret-looking query values.

Why: an API base such as ``http://user:pass@host/v1?api_key=...`` carries credentials inside the
URL itself. Run configs are stored for reproducibility and shown by the viewer and the exports,
and logs are pasted into bug reports, so every URL that is stored or logged goes through
``redact_url`` (or ``redact_urls`` for free text) first. Only the stored and logged copies are
redacted: the request itself is sent to the real URL, which the process keeps in memory.
"""

from __future__ import annotations

import logging
import re
import traceback
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

log = logging.getLogger(__name__)

REDACTED = "REDACTED"

# A query parameter is secret when one of its words (split on anything but letters and digits,
# and on camelCase) is one of these: "api_key", "X-Api-Key", "accessToken", "sig", "subscription-key"...
_SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "pass",
        "sig",
        "signature",
        "auth",
        "authorization",
        "credential",
        "credentials",
        "session",
        "sessionid",
        "cookie",
        "bearer",
        "jwt",
    }
)

# A URL in free text ends before white space or quotes, and before trailing punctuation.
_URL_IN_TEXT = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]*[^\s'\"<>`.,;:!?)\]]")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORD = re.compile(r"[a-z0-9]+")


def is_secret_param(name: str) -> bool:
    """Whether a query parameter's name looks like it carries a credential."""
    words = _WORD.findall(_CAMEL.sub(r"\1_\2", name).lower())
    # "accesstoken", "subscriptionkey": a word ending in a secret word counts too (a harmless value
    # redacted by mistake costs nothing; a key kept by mistake leaks).
    return any(w.endswith(s) for w in words for s in _SECRET_WORDS)


def _redact_query(query: str) -> str:
    if not query:
        return query
    pairs = parse_qsl(query, keep_blank_values=True)
    if not any(is_secret_param(k) for k, _ in pairs):
        return query  # untouched: the stored URL stays exactly what was given
    return "&".join(
        f"{quote(k, safe='')}={REDACTED if is_secret_param(k) else quote(v, safe='')}" for k, v in pairs
    )


def redact_url(url: str) -> str:
    """``url`` without user info and with secret-looking query (and fragment) values replaced.

    A string that is not a URL with a scheme and host comes back unchanged; one that cannot be
    parsed at all comes back as a placeholder rather than verbatim.
    """
    if "://" not in url:
        return url
    try:
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]  # drop "user:password@"
        return urlunsplit(
            (
                parts.scheme,
                netloc,
                parts.path,
                _redact_query(parts.query),
                _redact_query(parts.fragment) if "=" in parts.fragment else parts.fragment,
            )
        )
    except ValueError:
        return f"[a URL that could not be parsed, {REDACTED}]"


def redact_urls(text: str) -> str:
    """``text`` with every URL in it passed through ``redact_url`` (for logs and error messages)."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)


def install_log_redaction() -> None:
    """Make every log record of this process carry its message with URLs redacted.

    A record factory rather than a handler filter, because libraries (litellm) attach handlers of
    their own; records are only made once a logger's level let them through, so quiet debug
    logging costs nothing.
    """
    factory = logging.getLogRecordFactory()
    if getattr(factory, "redacts_urls", False):
        return

    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: the handler reports it as usual
            return record
        if "://" in message:
            record.msg, record.args = redact_urls(message), ()
        if record.exc_info and record.exc_info[1] is not None:
            # Handlers render tracebacks themselves (and exception messages quote URLs, httpx's
            # "for url 'http://user:pass@...'"): a traceback with a URL is rendered here, redacted.
            text = "".join(traceback.format_exception(*record.exc_info))
            if "://" in text:
                record.msg, record.args = f"{record.getMessage()}\n{redact_urls(text).rstrip()}", ()
                record.exc_info, record.exc_text = None, None
        return record

    make.redacts_urls = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(make)


def url_to_resume(stored: str | None, given: str | None, what: str = "--api-base") -> str | None:
    """The URL a resumed run uses: the stored one, or ``given`` when it is that URL with its secrets.

    The stored copy was redacted, so it cannot be used again when it had credentials; the user
    gives the full URL once more and it is taken when it redacts to exactly what was stored.
    """
    if given and stored and redact_url(given) == stored:
        return given
    if stored and REDACTED in stored:
        log.warning(
            "%s of the stored run had its credentials removed (%s); give the full URL again with %s",
            what,
            stored,
            what,
        )
    return stored
