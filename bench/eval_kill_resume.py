"""The reliability acceptance run: an eval killed midway and resumed ends with exactly 120 episodes.

Runs ``agentkit eval llm-aai-exp1`` (agentkit/presets/) (the 40 children tasks x 3 trials) with the
reference agent and ``--max-concurrency 2``, SIGKILLs the whole process group once about half
the episodes are stored, then runs ``agentkit eval --resume RUN``. Prints wall times, the
episodes finished before the kill, the final count of (task, trial) results, superseded
attempts (the killed episodes, kept as "unfinished" records) and SQLite's integrity check.

Usage: python bench/eval_kill_resume.py [--kill-at 60] [--db PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PRESET = REPO / "agentkit" / "presets" / "llm-aai-exp1.yaml"
CLI = [sys.executable, "-m", "agentkit.cli"]


def finished(db: Path) -> int:
    try:
        with sqlite3.connect(db) as con:
            return con.execute("SELECT count(*) FROM episodes WHERE status='finished'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kill-at", type=int, default=60, help="finished episodes before the kill")
    parser.add_argument("--db", type=Path, default=None)
    args = parser.parse_args()
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "eval.db"
        url = f"sqlite:///{db}"
        start = time.perf_counter()
        proc = subprocess.Popen(
            [*CLI, "eval", str(PRESET), "--max-concurrency", "2", "--db", url, "--json"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        while finished(db) < args.kill_at and proc.poll() is None:
            time.sleep(0.2)
        if proc.poll() is not None:
            raise SystemExit(
                f"the eval ended (exit {proc.returncode}) before {args.kill_at} episodes: nothing to kill"
            )
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        killed_after = time.perf_counter() - start
        before = finished(db)
        with sqlite3.connect(db) as con:
            (run_id,) = con.execute("SELECT id FROM runs").fetchone()
        print(f"killed after {killed_after:.1f}s with {before} episodes finished (run {run_id})")
        start = time.perf_counter()
        out = subprocess.run(
            [*CLI, "eval", "--resume", run_id, "--max-concurrency", "2", "--db", url, "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        resumed = time.perf_counter() - start
        data = json.loads(out.stdout)
        keys = {(e["task"], e["trial"]) for e in data["episodes"]}
        with sqlite3.connect(db) as con:
            rows = con.execute("SELECT status, count(*) FROM episodes GROUP BY status").fetchall()
            integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        counts = dict(rows)
        print(
            f"resumed in {resumed:.1f}s: {len(data['episodes'])} episodes in the result, {len(keys)} distinct "
            f"(task, trial), {counts.get('finished', 0)} finished rows, "
            f"{counts.get('unfinished', 0)} killed attempts kept as unfinished; integrity_check={integrity}"
        )
        for group in data.get("by_level", []):
            print(f"  level {group['level']:>2}: pass {group['pass']:.2f} ({group['episodes']} episodes)")
        ok = len(data["episodes"]) == len(keys) == counts.get("finished", 0) == 120 and integrity == "ok"
        print(f"episodes={len(keys)} {'OK' if ok else 'MISMATCH'}")


if __name__ == "__main__":
    main()
