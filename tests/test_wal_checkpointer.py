"""The store's background WAL checkpoint: the log stays bounded, every turn reads back, and a
process killed while checkpoints run leaves every committed turn with its images."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from agentkit.messages import ImagePart, Message, TextPart
from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptStore, wal_checkpointer

IMAGE_BYTES = 20_000


def image(i: int) -> ImagePart:
    """A distinct 'image' per turn (content-addressed: every turn a new blob)."""
    data = hashlib.sha256(str(i).encode()).digest() * (IMAGE_BYTES // 32)
    return ImagePart(data, "image/png", hashlib.sha256(data).hexdigest())


def turn(i: int, history: list[Message]) -> TurnRecord:
    return TurnRecord(
        index=i,
        observation={"step": i},
        messages=[Message("system", "sys"), *history, Message("user", (TextPart(f"turn {i}"), image(i)))],
        answer=f"Go({i});",
        usage=Usage(10, 2, 0.0),
        latency_s=0.1,
        cached=False,
        script=[],
        parse_error=None,
        compile_error=None,
        actions=[],
        reward=0.0,
        total_reward=0.0,
        health=None,
        done=False,
        timings={},
    )


def write_turns(store: TranscriptStore, episode: str, start: int, n: int) -> None:
    history: list[Message] = []
    for i in range(start, start + n):
        record = turn(i, history)
        store.add_turn(episode, record)
        history = [*history, record.messages[-1], Message("assistant", record.answer)]


def test_the_thread_checkpoints_and_the_log_starts_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wal_checkpointer, "CHECKPOINT_EVERY_BYTES", 200_000)
    path = tmp_path / "t.db"
    store = TranscriptStore(f"sqlite:///{path}")
    checkpointer = store._checkpointer
    assert checkpointer is not None
    run = store.create_run("gridworld", ["t"], "m", {}, {"s.j2": "x"})
    episode = store.start_episode(run, "t", 0)
    written = 0
    # Behaviour, not time: write until a checkpoint has found the log started over twice (a slow
    # machine only needs more turns), with a cap far above what that takes.
    while checkpointer.log_restarts < 2 and written < 3000:
        write_turns(store, episode, written, 50)
        written += 50
    assert checkpointer.log_restarts >= 2
    assert checkpointer.catch_ups >= 2  # the writer copied back what the thread's passes left
    store.close()
    assert not any(t.name == "agentkit-wal-checkpoint" for t in threading.enumerate())

    reopened = TranscriptStore(f"sqlite:///{path}")
    turns = reopened.get_turns(episode, images="ref")
    assert [t.index for t in turns] == list(range(written))
    last = turns[-1].messages[-1]["content"]
    assert last[1]["sha256"] == image(written - 1).sha256
    assert reopened.get_blob(image(0).sha256).data == image(0).data
    reopened.close()


def test_a_store_in_memory_has_no_checkpoint_thread() -> None:
    with TranscriptStore("sqlite://") as store:
        assert store._checkpointer is None


WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    from agentkit.transcripts import TranscriptStore, wal_checkpointer
    from test_wal_checkpointer import write_turns
    wal_checkpointer.CHECKPOINT_EVERY_BYTES = 100_000
    store = TranscriptStore({url!r})
    run = store.create_run("gridworld", ["t"], "m", {{}}, {{"s.j2": "x"}})
    episode = store.start_episode(run, "t", 0)
    print(episode, flush=True)
    write_turns(store, episode, 0, 100_000)
    """
)


def test_a_process_killed_while_checkpointing_keeps_every_committed_turn(tmp_path: Path) -> None:
    path = tmp_path / "k.db"
    url = f"sqlite:///{path}"
    code = WRITER.format(tests=str(Path(__file__).parent), url=url)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        episode = proc.stdout.readline().strip()
        # Wait until enough turns are committed that several checkpoints have run, then kill.
        probe = sqlite3.connect(path, timeout=30)
        while proc.poll() is None:
            n = probe.execute("SELECT count(*) FROM turns").fetchone()[0]
            if n >= 150:
                break
            time.sleep(0.01)
        probe.close()
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    with TranscriptStore(url) as store:
        turns = store.get_turns(episode, images="ref")
        assert len(turns) >= 150
        assert [t.index for t in turns] == list(range(len(turns)))  # no gap, nothing half-written
        for t in turns:
            part = t.messages[-1]["content"][1]
            assert store.get_blob(part["sha256"]).data == image(t.index).data
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    check.close()
