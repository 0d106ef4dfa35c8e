"""Is the process that wrote a "running" row still alive?

A killed process cannot mark its episodes unfinished, so the store records the writer's host, pid
and process start time with each episode and run, and readers check them here: a pid that is gone,
a zombie, or reused by a process with another start time means the writer is dead. Separate from
the store because it is about processes (/proc, signals), not about the database.
"""

from __future__ import annotations

import os
import socket
from typing import Any

_HOST = socket.gethostname()


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time in clock ticks since boot) of a process, from /proc; None if unavailable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    fields = raw[raw.rindex(b")") + 2 :].split()  # the command name may contain spaces and parens
    return fields[0].decode(), fields[19].decode()  # fields 3 and 22 of proc(5)


def _writer_identity() -> tuple[str, int, str | None]:
    pid = os.getpid()
    stat = _proc_stat(pid)
    return _HOST, pid, stat[1] if stat else None


def _process_alive(pid: int, start: str | None) -> bool:
    """Whether the process that wrote a row (on this host) still runs."""
    if os.name == "nt":  # os.kill would terminate the process there; no cheap check, assume alive
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    stat = _proc_stat(pid)
    if stat is None:
        return True  # no /proc: the pid exists, trust it
    state, proc_start = stat
    if state in ("Z", "X"):  # killed, not yet reaped
        return False
    return start is None or proc_start == start  # a different start time means the pid was reused


class _Liveness:
    """Memoised writer checks for one read (many rows share a writer)."""

    def __init__(self) -> None:
        self._seen: dict[tuple[Any, Any, Any], bool] = {}

    def status(self, stored: str, host: str | None, pid: int | None, start: str | None) -> str:
        if stored != "running" or host != _HOST or pid is None:
            return stored
        key = (host, pid, start)
        if key not in self._seen:
            self._seen[key] = _process_alive(pid, start)
        return "running" if self._seen[key] else "unfinished"
