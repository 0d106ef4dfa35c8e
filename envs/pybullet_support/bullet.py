"""The one place that imports pybullet, with its start-up chatter kept off stdout.

Why: pybullet's C code prints "pybullet build time: ..." when the module is first imported (on
stdout or stderr depending on the build), and ``agentkit run --json`` writes its JSON to stdout, so
a stray line would corrupt it. Python-level redirection cannot catch C writes, so the import runs
with file descriptors 1 and 2 pointed at /dev/null; libc's buffers are flushed (``fflush(NULL)``)
before they are restored, otherwise buffered text would still be written later.

Servers are opened with ``p.connect(p.DIRECT)`` rather than ``pybullet_utils.BulletClient``: the
latter passes an empty options string, which makes pybullet print ``argv[0]=`` on stdout, and its
per-call ``functools.partial`` wrapping costs time on the per-step path. Callers pass
``physicsClientId`` themselves.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import threading
from typing import Any

_IMPORT_LOCK = threading.Lock()


def _flush_c_stdio() -> None:
    """Flush every C stdio stream (a no-op when libc cannot be loaded)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else ctypes.CDLL(None)
        libc.fflush(None)
    except (OSError, AttributeError):  # pragma: no cover - exotic platforms
        pass


def _quiet_import() -> Any:
    with _IMPORT_LOCK:
        if "pybullet" in sys.modules:
            return sys.modules["pybullet"]
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
        saved = {fd: os.dup(fd) for fd in (1, 2)}
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            for fd in saved:
                os.dup2(devnull, fd)
            import pybullet

            _flush_c_stdio()
        finally:
            for fd, copy in saved.items():
                os.dup2(copy, fd)
                os.close(copy)
            os.close(devnull)
        return pybullet


p = _quiet_import()


def connect() -> int:
    """A private headless physics server (DIRECT mode); several arenas can live in one process."""
    client = p.connect(p.DIRECT)
    if client < 0:  # pragma: no cover - DIRECT never fails in practice
        raise RuntimeError("pybullet could not start a DIRECT physics server")
    return client


def disconnect(client: int) -> None:
    """Close a server opened by :func:`connect` (ignored when it is already gone)."""
    try:
        p.disconnect(physicsClientId=client)
    except p.error:
        pass
