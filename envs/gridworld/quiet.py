"""Keep MiniGrid/BabyAI chatter off stdout, where ``--json`` output goes.

BabyAI prints "Sampling rejected: ..." while generating levels; those lines are routed to this
module's logger at DEBUG instead of being lost, so they can still be seen with ``-v``.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Iterator

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


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Redirect ``sys.stdout`` to the logger for the duration of the block."""
    writer = _LogWriter(logger)
    with contextlib.redirect_stdout(writer):
        try:
            yield
        finally:
            writer.flush()
