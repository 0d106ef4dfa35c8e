"""A run hands the C heap's free pages back when it ends (agentkit.runs.freed_memory, issue 29 row 14)."""

from __future__ import annotations

import ctypes
import platform

import pytest

from agentkit.config import RunConfig
from agentkit.runs import freed_memory, runner
from agentkit.transcripts import TranscriptStore


def _rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_freed_pages_go_back_to_the_system_on_glibc() -> None:
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    # 64 MB in blocks under the mmap threshold, so they live in the heap; keep every 16th block
    # so the heap's top is not free and only a trim of its middle can give pages back.
    blocks = [libc.malloc(64 * 1024) for _ in range(1024)]
    for block in blocks:
        ctypes.memset(block, 1, 64 * 1024)
    for i, block in enumerate(blocks):
        if i % 16:
            libc.free(block)
    before = _rss_kb()
    assert freed_memory.release_freed_memory() is True
    after = _rss_kb()
    for block in blocks[::16]:
        libc.free(block)
    assert before - after > 32 * 1024, f"RSS {before} kB before the trim, {after} kB after"


def test_a_run_releases_freed_memory_when_it_ends(tmp_path, monkeypatch) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(runner, "release_freed_memory", lambda: calls.append(True) or True)
    config = RunConfig(env="gridworld", tasks=["BabyAI-GoToLocal-v0"], model="reference", episodes=2)
    with TranscriptStore(f"sqlite:///{tmp_path / 'r.db'}") as store:
        summary = runner.execute_run(config, store, show_progress=False)
    assert len(summary.episodes) == 2 and calls == [True]
