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
import threading
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
    return subprocess.Popen(
        [*AGENTKIT, "eval", *args, "--db", db],
        cwd=tmp_path,
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


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
        _wait_for_workers(proc, min(2, os.cpu_count() or 1))  # the runner starts at most one per CPU
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=120)  # waits here are long for a loaded machine; each ends when its event comes
        deadline = time.monotonic() + 120
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


def _wait_for_episodes(db_path: Path, proc: subprocess.Popen, n: int, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        if db_path.exists():
            try:
                with sqlite3.connect(db_path, timeout=5) as con:
                    if con.execute("SELECT count(*) FROM episodes").fetchone()[0] >= n:
                        return
            except sqlite3.OperationalError:
                pass
        time.sleep(0.05)
    raise AssertionError("the eval never started its episodes")


def _stop_between_writes(pgid: int, db_path: Path) -> None:
    """SIGSTOP the writer's process group at a moment it holds no write transaction: stopped inside
    one it would keep the database locked (a race that a loaded machine makes likely). Stop, check
    that a write lock can be taken, and let it run on a little if not."""
    for _ in range(200):
        os.killpg(pgid, signal.SIGSTOP)
        try:
            conn = sqlite3.connect(db_path, timeout=0.5, isolation_level=None)
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("ROLLBACK")
            finally:
                conn.close()
            return
        except sqlite3.OperationalError:
            os.killpg(pgid, signal.SIGCONT)
            time.sleep(0.02)
    raise AssertionError("the writer never paused between two writes")


def test_a_second_resume_of_a_run_being_written_refuses_with_one_line(tmp_path):
    db_path = tmp_path / "writers.db"
    db = f"sqlite:///{db_path}"
    (tmp_path / "exp.yaml").write_text(EXPERIMENT)
    first = _start_eval(tmp_path, db, "exp.yaml")
    try:
        _wait_for_episodes(db_path, first, 1)
        _stop_between_writes(first.pid, db_path)  # alive, holding the run, writing nothing meanwhile
        with TranscriptStore(db) as store:
            (run,) = store.list_runs()
        probe = subprocess.run(
            [*AGENTKIT, "eval", "--resume", run.id, "--db", db],
            cwd=tmp_path,
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert probe.returncode == 2 and probe.stdout == ""
        assert len(probe.stderr.splitlines()) == 1 and "is being written by pid" in probe.stderr, probe.stderr
        assert f"pid {first.pid} " in probe.stderr
    finally:
        _kill_session(first)
    first.wait(timeout=120)

    # The writer died: two resumes started together, one takes the run over, the other refuses.
    resumes = [_start_eval(tmp_path, db, "--resume", run.id) for _ in range(2)]
    try:
        errors = [proc.communicate(timeout=300)[1] for proc in resumes]
    finally:
        for proc in resumes:
            _kill_session(proc)
    codes = sorted(proc.returncode for proc in resumes)
    assert codes == [0, 2], errors
    refusal = errors[[proc.returncode for proc in resumes].index(2)]
    assert (
        len(refusal.splitlines()) == 1 and "is being written by pid" in refusal and "Traceback" not in refusal
    )
    final = _final_per_trial(db, run.id)
    assert len(final) == TRIALS and set(final.values()) == {1}
    with TranscriptStore(db) as store:
        assert store.get_run(run.id).status == "finished"


def test_a_lease_held_elsewhere_expires_and_is_taken_over(tmp_path):
    """A writer on another host cannot be checked from here: its run is held while its heartbeat
    is fresh, and taken over once the lease has expired; the old holder then learns it lost it."""
    from agentkit.transcripts.run_lease import LEASE_TTL_S, LeaseKeeper, RunBusyError

    db_path = tmp_path / "lease.db"
    with TranscriptStore(f"sqlite:///{db_path}") as store:
        run_id = store.create_run(env="gridworld", tasks=["t"], model="m", config={}, templates={})
        token = store.take_run(run_id)
        assert store.renew_run(run_id, token)
        with sqlite3.connect(db_path) as con:  # as if another host had written and renewed it just now
            con.execute("UPDATE runs SET writer_host = 'elsewhere', writer_pid = 1 WHERE id = ?", (run_id,))
            con.execute("UPDATE run_leases SET renewed_at = ? WHERE run_id = ?", (time.time() - 5, run_id))
        try:
            store.take_run(run_id)
            raise AssertionError("a fresh lease of another host was taken over")
        except RunBusyError as exc:
            assert "pid 1 on elsewhere" in str(exc) and "\n" not in str(exc)
        with sqlite3.connect(db_path) as con:
            con.execute(
                "UPDATE run_leases SET renewed_at = ? WHERE run_id = ?",
                (time.time() - LEASE_TTL_S - 1, run_id),
            )
        new_token = store.take_run(run_id)
        lost = threading.Event()
        with LeaseKeeper(lambda: store.renew_run(run_id, token), on_lost=lost.set, every_s=0.05) as keeper:
            assert lost.wait(30) and keeper.lost  # the old holder's heartbeat finds the run taken over
        assert (
            new_token != token and not store.renew_run(run_id, token) and store.renew_run(run_id, new_token)
        )
        assert store.get_run(run_id).status == "running"
