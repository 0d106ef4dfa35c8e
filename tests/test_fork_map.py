"""fork_map: parts in forked children (this process doing the last), results in order, failures raised."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from agentkit.offline.fork_map import ForkedPartFailed, fork_map

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork_map forks (Linux)")


def _where(part: list[int]) -> tuple[int, int]:
    return os.getpid(), sum(part)


def test_results_come_back_in_order_and_all_but_the_last_part_run_in_children():
    parts = [[1, 2], [3], [4, 5, 6], [7]]
    results = fork_map(_where, parts)
    assert [total for _, total in results] == [3, 3, 15, 7]
    pids = [pid for pid, _ in results]
    assert pids[-1] == os.getpid()
    assert len(set(pids[:-1])) == 3 and os.getpid() not in pids[:-1]
    assert fork_map(_where, []) == []


_MARK: list[int] = []


def _marked(part: int) -> tuple[int, list[int]]:
    return part, list(_MARK)


def test_the_after_fork_hook_runs_in_children_only():
    results = fork_map(_marked, [1, 2], after_fork=lambda: _MARK.append(os.getpid()))
    assert results[0][1] and results[0][1] != [os.getpid()]
    assert results[1] == (2, [])
    assert _MARK == []


def _fail_on_two(part: int) -> int:
    if part == 2:
        raise KeyError(f"part {part} is bad")
    return part


def test_an_exception_in_a_child_is_raised_here_with_its_type():
    with pytest.raises(KeyError, match="part 2 is bad"):
        fork_map(_fail_on_two, [1, 2, 3])


def _die(part: int) -> int:
    if part == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    return part


def test_a_child_that_dies_is_a_clear_error_and_leaves_no_zombie():
    with pytest.raises(ForkedPartFailed, match="killed by signal 9"):
        fork_map(_die, [0, 1])
    assert _zombie_children() == []


def _zombie_children() -> list[int]:
    """Pids of this process's children that ended and were never reaped (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            found.append(int(stat.parent.name))
    return found


def test_a_large_result_passes_through_the_pipe():
    results = fork_map(lambda n: "x" * n, [3_000_000, 10])
    assert len(results[0]) == 3_000_000 and results[1] == "x" * 10
