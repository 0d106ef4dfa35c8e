"""Give the C heap's free pages back to the system when a run ends.

Why: a run's episodes allocate and free hundreds of megabytes of short-lived buffers (frames,
JPEG bytes, JSON bodies, SQLite pages) on several threads. glibc keeps what was freed in its
arenas for reuse and returns only the top of each heap, so a process that plays run after run (a
notebook, a service, ``bench/memory_soak.py``) showed resident memory creeping up by run, with no
live object behind it: memray's native traces found the run's live allocations flat (issue 29
row 14). ``malloc_trim(0)`` hands every whole free page back at once; it costs a few milliseconds,
once per run. Elsewhere than glibc (musl, macOS, Windows) there is no such call and nothing happens.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging

log = logging.getLogger(__name__)


@functools.cache
def _trim() -> object | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
        return libc.malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


def release_freed_memory() -> bool:
    """Return the C heap's free pages to the system; whether the C library could."""
    trim = _trim()
    if trim is None:
        return False
    released = bool(trim(0))  # type: ignore[operator]
    log.debug("malloc_trim after the run: %s", "pages released" if released else "nothing to release")
    return True
