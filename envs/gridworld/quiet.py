"""Keep MiniGrid/BabyAI chatter off stdout, where ``--json`` output goes.

BabyAI prints "Sampling rejected: ..." while generating levels; those lines are routed to this
module's logger at DEBUG instead of being lost, so they can still be seen with ``-v``.
"""

from __future__ import annotations

import contextlib
import io
import logging
import sys
import threading
from typing import Any

logger = logging.getLogger("agentkit.envs.gridworld.minigrid")


class _LogWriter(io.TextIOBase):
    """A write-only text stream that turns whole lines into log records."""

    def __init__(self, log: logging.Logger) -> None:
        self._log = log
        self._pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            if line.strip():
                self._log.debug("%s", line)
        return len(text)

    def flush(self) -> None:
        if self._pending.strip():
            self._log.debug("%s", self._pending)
        self._pending = ""


class _Router(io.TextIOBase):
    """Stands in for ``sys.stdout`` while any thread is inside ``quiet_stdout``: writes from such a
    thread go to the logger, writes from every other thread to the real stream."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        writer = getattr(_local, "writer", None)
        if writer is not None and _local.depth > 0:
            return writer.write(text)
        return self.real.write(text)

    def flush(self) -> None:
        self.real.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, encoding, isatty ... of the real stream
        return getattr(self.real, name)


_local = threading.local()
_lock = threading.Lock()
_active = 0  # threads currently inside quiet_stdout
_router: _Router | None = None


class quiet_stdout(contextlib.AbstractContextManager):
    """Route this thread's writes to ``sys.stdout`` to the logger for the duration of the block.

    Thread-safe: concurrent episodes enter and leave in any order, so a plain swap of
    ``sys.stdout`` (saved and restored per block) would leave the logger installed for good and
    swallow the ``--json`` output. Instead one router is installed while any thread is quiet.
    """

    def __enter__(self) -> None:
        global _active, _router
        if getattr(_local, "writer", None) is None:
            _local.writer = _LogWriter(logger)
            _local.depth = 0
        _local.depth += 1
        with _lock:
            if _active == 0:
                _router = _Router(sys.stdout)
                sys.stdout = _router
            _active += 1

    def __exit__(self, *exc: object) -> None:
        global _active, _router
        _local.depth -= 1
        if _local.depth == 0:
            _local.writer.flush()
        with _lock:
            _active -= 1
            if _active == 0 and _router is not None:
                if sys.stdout is _router:  # someone else (pytest's capture) may have swapped it since
                    sys.stdout = _router.real
                _router = None
