"""Run a function over a few large parts of work in forked processes, this process taking one part.

Why not ``multiprocessing.Pool``: for work that takes a fraction of a second (``agentkit
rerender`` of a run of a few thousand turns), a pool's start-up, its task and result threads and
its shutdown cost a tenth of the time, and its workers start with nothing warm. Here each part
is one forked child that inherits everything this process has loaded and built (templates,
tokenizer, caches), sends its pickled result back through a pipe and exits; this process does
the last part itself meanwhile. Linux only (fork), which is where callers use it.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

P = TypeVar("P")
R = TypeVar("R")


class ForkedPartFailed(RuntimeError):
    """A forked part died without sending its result."""


def fork_map(
    fn: Callable[[P], R], parts: Sequence[P], after_fork: Callable[[], None] | None = None
) -> list[R]:
    """``[fn(p) for p in parts]``, the parts but the last in forked children. An exception raised
    in a child is raised here (after every child has ended)."""
    if not parts:
        return []
    children: list[tuple[int, int]] = []  # (pid, read end of its pipe)
    try:
        for part in parts[:-1]:
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns into the caller's code
                os.close(read_end)
                _child(fn, part, after_fork, write_end)
            os.close(write_end)
            children.append((pid, read_end))
        last = fn(parts[-1])
        results: list[tuple[bool, Any]] = []  # (ok, result or the exception raised), per child
        while children:
            pid, read_end = children[0]
            del children[0]  # reaped by _collect, whatever it finds
            results.append(_collect(pid, read_end))
    finally:
        for pid, read_end in children:  # only when this process failed: stop and reap the rest
            _stop(pid, read_end)
    values: list[R] = []
    for ok, value in results:
        if not ok:
            raise value
        values.append(value)
    values.append(last)
    return values


def _child(fn: Callable[[P], R], part: P, after_fork: Callable[[], None] | None, write_end: int) -> None:
    code = 0
    try:
        if after_fork is not None:
            after_fork()
        try:
            payload = pickle.dumps((True, fn(part)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # sent back, raised by the parent
            try:
                payload = pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # an exception that does not pickle: its type and message
                payload = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        with os.fdopen(write_end, "wb") as out:
            out.write(payload)
    except BaseException:
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # no exit hooks, no atexit: they belong to the parent


def _collect(pid: int, read_end: int) -> tuple[bool, Any]:
    """(ok, value) unpickled from a worker: its result when ok, else the exception it raised."""
    try:
        with os.fdopen(read_end, "rb") as source:
            data = source.read()
    finally:
        _, status = os.waitpid(pid, 0)
    if not data:
        raise ForkedPartFailed(f"forked worker {pid} ended ({_describe(status)}) without a result")
    return pickle.loads(data)


def _stop(pid: int, read_end: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.close(read_end)
    os.waitpid(pid, 0)


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"
