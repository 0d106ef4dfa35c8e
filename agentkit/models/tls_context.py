"""One TLS context for every HTTP client agentkit makes in a process.

Why: httpx builds a fresh ``ssl.SSLContext`` for each client it creates, loading certifi's whole CA
bundle into OpenSSL: about 450,000 small allocations, freed again when the client goes. A process
that runs many runs (a notebook, ``bench/memory_soak.py``, a server) made one client per run, and
OpenSSL's churn left the C heap fragmented: resident memory rose by about 0.25 MB per run with no
Python object to show for it (measured with memray's native traces, issue 29 row 14). A context is
safe to share between threads and clients, so it is built once per CA setting and reused.

The context is the one httpx itself would build (``httpx.create_ssl_context``), so certificate
checks are unchanged, ``SSL_CERT_FILE``/``SSL_CERT_DIR`` included (they key the cache).
"""

from __future__ import annotations

import os
import ssl
import threading

import httpx

_contexts: dict[tuple[str | None, str | None], ssl.SSLContext] = {}
_lock = threading.Lock()


def shared_tls_context() -> ssl.SSLContext:
    """The process's TLS context for the CA setting the environment names now (built on first use,
    ~20 ms; httpx reads ``SSL_CERT_FILE``/``SSL_CERT_DIR`` itself, they only key the cache here)."""
    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    with _lock:
        context = _contexts.get(key)
        if context is None:
            context = _contexts[key] = httpx.create_ssl_context(trust_env=True)
        return context
