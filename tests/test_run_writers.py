"""A run has one live writer: worker processes die with `agentkit eval`, and a second `--resume`
of a run that a live process writes refuses with one line.

Real `agentkit eval` subprocesses (reference agent, worker processes) on a real SQLite file; the
processes of a run are found by their session (each eval is started in a session of its own).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path

from agentkit.testing.cli_runner import AGENTKIT, cli_env, run_json
from agentkit.transcripts import TranscriptStore

EXPERIMENT = "env: aai-arena\ntasks: [01-04-03, 01-06-02, 03-09-01]\ntrials: 2\nmax_concurrency: 2\nworkers: processes\n"
TRIALS = 6


def _session(sid: int) -> list[tuple[int, int]]:
    """(pid, parent pid) of every live process in session ``sid`` (zombies are dead: left out)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        fields = raw[raw.rindex(b")") + 2 :].split()  # state, ppid, pgrp, session, ...
        if int(fields[3]) == sid and fields[0] not in (b"Z", b"X"):
            found.append((int(name), int(fields[1])))
    return found


def _start_eval(tmp_path: Path, db: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([*AGENTKIT, "eval", *args, "--db", db], cwd=tmp_path, env=cli_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _importing_numpy(pid: int) -> bool:
    """Whether the process has numpy's core library mapped: a worker in its heavy imports."""
    try:
        with open(f"/proc/{pid}/maps") as f:
            return "_multiarray_umath" in f.read()
    except OSError:
        return False


def _wait_for_workers(proc: subprocess.Popen, n: int, timeout_s: float = 120) -> None:
    """Until ``n`` worker processes of the eval are in their heavy imports (the moment a parent's
    death used to leave them running: they asked to die with it only after those imports)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        if sum(1 for pid, ppid in _session(proc.pid) if ppid == proc.pid and _importing_numpy(pid)) >= n:
            return
        time.sleep(0.01)
    raise AssertionError("the eval never started its worker processes")


def _kill_session(proc: subprocess.Popen) -> None:
    if proc.poll() is None or _session(proc.pid):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _final_per_trial(db: str, run_id: str) -> Counter:
    with TranscriptStore(db) as store:
        rows = store.list_episodes(run_id=run_id)
    return Counter((e.task, e.trial) for e in rows if e.status == "finished")


def test_sigkilled_eval_leaves_no_worker_alive_and_resume_plays_each_trial_once(tmp_path):
    db_path = tmp_path / "orphans.db"
    db = f"sqlite:///{db_path}"
    (tmp_path / "exp.yaml").write_text(EXPERIMENT)
    proc = _start_eval(tmp_path, db, "exp.yaml")
    try:
        # Both workers exist and are importing the runner: kill only the parent.
        _wait_for_workers(proc, 2)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while _session(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _session(proc.pid) == [], "processes of the killed run are still alive"
    finally:
        _kill_session(proc)
    with TranscriptStore(db) as store:
        (run,) = store.list_runs()
        assert run.status == "unfinished"
    data = run_json(["eval", "--resume", run.id, "--db", db], tmp_path)
    assert data["run_id"] == run.id and len(data["episodes"]) == TRIALS
    final = _final_per_trial(db, run.id)
    assert len(final) == TRIALS and set(final.values()) == {1}  # exactly one final episode per trial
    with sqlite3.connect(db_path) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
