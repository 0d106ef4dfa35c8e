"""`agentkit run --resume RUN` (issue 30 item 6): a killed `agentkit run` is finished under its own
run id, playing only the episodes without a final result, never one twice; settings that would
change what the run plays are refused beside --resume in one line.

The run is a real subprocess killed with SIGKILL (its whole process group, as a crash would), on a
real SQLite store; the reference agent plays the pybullet arena, so no model is called.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from contextlib import closing

from agentkit.testing.cli_runner import AGENTKIT, cli_env, run_cli, run_json
from agentkit.transcripts import TranscriptStore

TASKS = ["01-04-03", "01-06-02", "03-09-01"]
EPISODES = 6  # per task: 18 in all, so a kill after the second leaves many to play (they take ~0.2 s)


def _finished(db_path) -> int:
    """Finished episodes stored so far (0 while the database is not yet made)."""
    if not db_path.exists():
        return 0
    try:  # closed here, not whenever the garbage collector gets to it: a connection left open in
        # this process would lose its locks when agentkit later reads the file (see docs/storage.md)
        with closing(sqlite3.connect(db_path, timeout=5)) as con:
            return con.execute("SELECT count(*) FROM episodes WHERE status='finished'").fetchone()[0]
    except sqlite3.OperationalError:  # the tables are not made yet
        return 0


def test_a_killed_run_is_resumed_to_completion_without_repeating_an_episode(tmp_path):
    db_path = tmp_path / "runs.db"
    db = f"sqlite:///{db_path}"
    args = ["run", "--env", "aai-arena", "--episodes", str(EPISODES), "--db", db]
    for task in TASKS:
        args += ["--task", task]
    proc = subprocess.Popen(
        [*AGENTKIT, *args],
        cwd=tmp_path,
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.time() + 240
        while time.time() < deadline and _finished(db_path) < 2 and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None and _finished(db_path) >= 2, "the run ended before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    with TranscriptStore(db) as store:
        (run,) = store.list_runs()
        before = {e.id for e in store.list_episodes(run_id=run.id, status="finished")}
    total = len(TASKS) * EPISODES
    assert 2 <= len(before) < total

    resumed = run_cli(["run", "--resume", run.id, "--db", db], tmp_path).stdout
    summary = next(line for line in resumed.splitlines() if line.startswith("run "))
    assert summary.startswith(f"run {run.id}: pass rate") and f"/{total};" in summary, summary
    played = [line for line in resumed.splitlines() if "  seed=" in line]
    assert len(played) == total - len(before), resumed  # only the missing episodes were played

    with TranscriptStore(db) as store:
        assert [r.id for r in store.list_runs()] == [run.id]  # the same run, no new one
        rows = store.list_episodes(run_id=run.id)
        final = [e for e in rows if e.status == "finished"]
        assert len(final) == total and len({(e.task, e.seed) for e in final}) == total
        assert before <= {e.id for e in final}  # what was finished was kept, not played again
        assert all(e.status == "unfinished" for e in rows if e.status != "finished")
    with sqlite3.connect(db_path) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    again = run_json(["run", "--resume", run.id, "--db", db], tmp_path)  # nothing is left to play
    assert again["run_id"] == run.id and len(again["episodes"]) == total


def test_resume_refuses_settings_and_unknown_runs_in_one_line(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = run_json(["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--db", db], tmp_path)
    for extra, expected in (
        (["--episodes", "3"], "--episodes: a resumed run keeps the settings it was started with"),
        (["--env", "aai-arena"], "--env: a resumed run keeps the settings it was started with"),
        (["--max-tokens", "9"], "--max-tokens: a resumed run keeps the settings it was started with"),
    ):
        proc = run_cli(["run", "--resume", data["run_id"], "--db", db, *extra], tmp_path, check=False)
        assert proc.returncode != 0 and proc.stderr.strip().splitlines() == [f"error: {expected}"], (
            proc.stderr
        )
    proc = run_cli(["run", "--resume", "nope", "--db", db], tmp_path, check=False)
    assert proc.returncode != 0 and proc.stderr.strip() == "error: --resume: no run 'nope' in the store"
    proc = run_cli(["run", "--db", db], tmp_path, check=False)
    assert proc.returncode != 0 and "--resume RUN" in proc.stderr
    # the settings a resumed run may change are taken, and the run id stays
    kept = run_json(["run", "--resume", data["run_id"], "--db", db, "--max-concurrency", "2"], tmp_path)
    assert kept["run_id"] == data["run_id"] and len(kept["episodes"]) == 1
