"""Storage failures: a full database stops the run with one line and `--resume` finishes it; answers
with characters a database refuses (a lone surrogate, a NUL) are stored escaped, never lost.

The full disk is real SQLite refusing to grow: ``PRAGMA max_page_count`` on every connection of the
`agentkit` process (set by a three-line wrapper around the real CLI), so SQLITE_FULL comes from the
database itself. Answers come over real HTTP from the local OpenAI-compatible server.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

from agentkit.testing.cli_runner import cli_env, run_cli, run_json
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore

TASK = "BabyAI-GoToLocal-v0"
SPIN = 'Think("looking around"); Turn(90);'  # never reaches the goal: every episode plays all its scripts
TRIALS = 4

FULL_DISK = """\
import sys
from sqlalchemy import Engine, event
LIMIT = int(sys.argv.pop(1))
event.listen(Engine, "connect", lambda dbapi, _record: dbapi.execute(f"PRAGMA max_page_count = {LIMIT}"))
from agentkit.cli import main
sys.exit(main())
"""


def _experiment(tmp_path: Path, base_url: str) -> Path:
    path = tmp_path / "exp.yaml"
    path.write_text(
        f"env: gridworld\ntasks: [{TASK}]\ntrials: {TRIALS}\nmodel: openai/fake-model\n"
        f"api_base: {base_url}\nmax_scripts: 4\ninclude_images: false\nobserver: {{views: [ascii]}}\n"
    )
    return path


def _pages(path: Path) -> int:
    with sqlite3.connect(path) as con:
        return con.execute("PRAGMA page_count").fetchone()[0]


def test_a_full_database_stops_the_run_with_one_line_and_resume_finishes_it(tmp_path):
    with FakeOpenAIServer(responder=lambda _body: SPIN) as server:
        exp = _experiment(tmp_path, server.base_url)
        # The same run on an unlimited database: its size tells where "full" falls near the end.
        run_cli(["eval", str(exp), "--db", f"sqlite:///{tmp_path / 'room.db'}"], tmp_path)
        limit = _pages(tmp_path / "room.db") - 3
        db_path = tmp_path / "full.db"
        db = f"sqlite:///{db_path}"
        (tmp_path / "full_disk.py").write_text(FULL_DISK)
        full = subprocess.run(
            [sys.executable, str(tmp_path / "full_disk.py"), str(limit), "eval", str(exp), "--db", db],
            cwd=tmp_path,
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert full.returncode == 1, full.stderr
        lines = [
            line for line in full.stderr.splitlines() if line.strip()
        ]  # (the progress bar leaves a blank)
        assert len(lines) == 1 and "Traceback" not in full.stderr, full.stderr
        assert "database or disk is full" in full.stderr and "--resume" in full.stderr
        with TranscriptStore(db) as store:
            (run,) = store.list_runs()
            episodes = store.list_episodes(run_id=run.id)
            kept = {e.id: len(store.get_turns(e.id, with_messages=False)) for e in episodes}
        assert run.status == "stopped" and f"--resume {run.id}" in full.stderr
        reasons = Counter(e.end_reason for e in episodes)
        assert reasons["storage_error"] == 1 and "env_error" not in reasons  # stopped, not relaunched
        assert reasons["script_limit"] >= 1 and sum(kept.values()) >= 4  # what was written is kept
        data = run_json(["eval", "--resume", run.id, "--db", db], tmp_path)
    assert (
        data["run_id"] == run.id and [e["end_reason"] for e in data["episodes"]] == ["script_limit"] * TRIALS
    )
    with TranscriptStore(db) as store:
        assert store.get_run(run.id).status == "finished"
        rows = store.list_episodes(run_id=run.id)
        for episode_id, turns in kept.items():  # nothing written before the failure was lost
            assert len(store.get_turns(episode_id, with_messages=False)) == turns
    final = Counter(e.trial for e in rows if e.status == "finished" and e.end_reason == "script_limit")
    assert final == Counter(range(TRIALS))


def test_answers_with_a_lone_surrogate_or_a_nul_are_stored_escaped(tmp_path):
    answers = iter(["Turn(90); \ud800 and x\x00y", "Go(1); \x00", SPIN])
    db = f"sqlite:///{tmp_path / 'text.db'}"
    with FakeOpenAIServer(responder=lambda _body: next(answers, SPIN)) as server:
        data = run_json(
            [
                "run",
                "--env",
                "gridworld",
                "--task",
                TASK,
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--no-endpoint-check",  # the answers, in order, are the episode's
                "--max-scripts",
                "3",
                "--db",
                db,
            ],
            tmp_path,
        )
    (episode,) = data["episodes"]
    assert episode["end_reason"] != "env_error" and episode["turns"] == 3
    with TranscriptStore(db) as store:
        turns = store.get_turns(episode["episode_id"])
    assert [t.index for t in turns] == [0, 1, 2]
    first, second = turns[0].answer, turns[1].answer
    assert first in ("Turn(90); \\ud800 and x\\u0000y", "Turn(90); \\ud800 and x\x00y")  # paid answer kept
    assert turns[0].output_tokens > 0
    assert second in ("Go(1); \x00", "Go(1); \\u0000")
    assistant = [m["content"] for m in turns[1].messages if m["role"] == "assistant"]
    assert assistant and "\\ud800" in assistant[0]  # the history that carried it is stored too
