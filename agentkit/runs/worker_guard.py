"""Worker processes die with the run that started them, from their first instruction on.

A worker process of ``agentkit eval`` that outlives its parent (killed by SIGKILL, the OOM killer,
a closed terminal) goes on taking the episodes already queued to it and writes them into the
run, while ``--resume`` plays the same trials again. So the first thing a worker does, before it
imports the runner and its simulators (a second of imports during which the parent may die), is
to ask the kernel to kill it with its parent (Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``), then
check that its parent is still the process that started it: a parent that died before the request
leaves the worker adopted by another process, and it exits at once. Where there is no prctl, a
daemon thread watches the parent pid instead.

This module imports nothing heavy on purpose: it is the pool initializer, and the worker's real
context reaches it as pickled bytes, unpickled only after the guard is in place.
"""

from __future__ import annotations

import logging
import os
import pickle
import sys
import threading
import time
from importlib import import_module
from typing import Any

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1  # linux/prctl.h
WATCH_INTERVAL_S = 0.5  # how often the fallback watcher looks at the parent pid


def _request_death_signal() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that is unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int) -> None:
    """Fallback where the kernel cannot do it: exit as soon as the parent pid changes."""
    while True:
        if os.getppid() != parent_pid:
            os._exit(1)
        time.sleep(WATCH_INTERVAL_S)


def die_with_parent(parent_pid: int) -> None:
    """Make this process end when ``parent_pid`` (the process that started it) ends.

    Exits at once if that parent is already gone (this process was adopted by another).
    """
    if not _request_death_signal():
        threading.Thread(target=_watch_parent, args=(parent_pid,), name="parent-watch", daemon=True).start()
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(1)


def guarded_init(parent_pid: int, target: str, payload: bytes, *extra: Any) -> None:
    """Pool initializer: guard first, then call ``target`` ("module:function") with the pickled
    ``payload`` arguments followed by ``extra`` (objects that must travel unpickled, e.g. a shared
    ``multiprocessing.Value``)."""
    die_with_parent(parent_pid)
    module, _, name = target.partition(":")
    init = getattr(import_module(module), name)
    init(*pickle.loads(payload), *extra)


def initializer_args(target: str, args: tuple[Any, ...], *extra: Any) -> tuple[Any, ...]:
    """The ``initargs`` of a pool whose initializer is ``guarded_init`` (called in the parent)."""
    return (os.getpid(), target, pickle.dumps(args), *extra)
