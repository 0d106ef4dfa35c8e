"""A run stops, in one line and with a telling exit code, when its model keeps failing or on Ctrl-C.

Before: a model that failed every request still played every planned episode (each one ending in
``model_error``) and the command exited 0; Ctrl-C said "resume with RUN_ID" without the id.
Real CLI in a subprocess, real HTTP server on 127.0.0.1, real SQLite store.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time

from agentkit.cli._stops import EXIT_INTERRUPTED, EXIT_STOPPED
from agentkit.config import RunConfig
from agentkit.runs.runner import execute_run
from agentkit.testing.cli_runner import AGENTKIT, cli_env, ctrl_c_reaches_the_command, run_cli
from agentkit.testing.error_server import CONTEXT_TOO_LONG, ErrorServer
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore

TASK = "BabyAI-GoToLocal-v0"


def test_run_stops_after_three_model_errors_in_a_row_and_exits_3(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with ErrorServer(400, CONTEXT_TOO_LONG) as server:
        proc = run_cli(
            [
                "run",
                "--env",
                "gridworld",
                "--task",
                TASK,
                "--episodes",
                "6",
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--db",
                db,
            ],
            tmp_path,
            cli_env(),
            check=False,
        )
    assert proc.returncode == EXIT_STOPPED, proc.stderr
    (run,) = TranscriptStore(db).list_runs()
    assert run.status == "stopped"
    assert len(TranscriptStore(db).list_episodes(run_id=run.id)) == 3  # not 6
    stop_lines = [line for line in proc.stderr.splitlines() if f"run {run.id} stopped" in line]
    assert len(stop_lines) == 1 and "3 episodes in a row ended in model errors" in stop_lines[0]
    assert f"--resume {run.id}" in stop_lines[0]


def test_the_limit_is_a_run_option_and_a_success_resets_the_count(tmp_path):
    store = TranscriptStore(f"sqlite:///{tmp_path / 'runs.db'}")

    def respond(_body):
        return 'Think("x"); Go(1);'

    with FakeOpenAIServer(responder=respond) as server:
        # 2 episodes fail, then every one succeeds: never 3 in a row
        server.fail_next(400, 400)
        config = RunConfig(
            env="gridworld",
            tasks=[TASK],
            episodes=5,
            model="openai/fake-model",
            max_scripts=1,
            api_base=server.base_url,
            max_retries=0,
            max_consecutive_model_errors=3,
        )
        first = execute_run(config, store, api_key="sk-some-key-000000", show_progress=False)
    assert first.stopped is None and len(first.episodes) == 5
    with ErrorServer(400, CONTEXT_TOO_LONG) as server:
        config = RunConfig(
            env="gridworld",
            tasks=[TASK],
            episodes=5,
            model="openai/fake-model",
            api_base=server.base_url,
            max_retries=0,
            max_consecutive_model_errors=2,
        )
        second = execute_run(config, store, api_key="sk-some-key-000000", show_progress=False)
    assert second.stopped is not None and len(second.episodes) == 2
    assert "2 episodes in a row" in (second.stop_message or "")


def test_a_completed_run_exits_0(tmp_path):
    proc = run_cli(
        ["run", "--env", "gridworld", "--task", TASK, "--db", f"sqlite:///{tmp_path / 'r.db'}"], tmp_path
    )
    assert proc.returncode == 0


def test_ctrl_c_prints_the_run_id_and_the_resume_command(tmp_path):
    db_path = tmp_path / "runs.db"
    with FakeOpenAIServer(latency_s=0.5) as server:
        proc = subprocess.Popen(
            [
                *AGENTKIT,
                "run",
                "--env",
                "gridworld",
                "--task",
                TASK,
                "--episodes",
                "50",
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--db",
                f"sqlite:///{db_path}",
            ],
            cwd=tmp_path,
            preexec_fn=ctrl_c_reaches_the_command,  # a Ctrl-C, even under a background runner
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            run_id = None
            deadline = time.time() + 120
            while run_id is None and time.time() < deadline and proc.poll() is None:
                time.sleep(0.2)
                try:
                    with sqlite3.connect(db_path) as con:
                        started = con.execute("SELECT run_id FROM episodes LIMIT 1").fetchone()
                except sqlite3.OperationalError:
                    started = None
                run_id = started[0] if started else None
            assert run_id is not None and proc.poll() is None, "the run ended before it could be interrupted"
            proc.send_signal(signal.SIGINT)
            _, stderr = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == EXIT_INTERRUPTED, stderr
    lines = [line for line in stderr.splitlines() if f"agentkit run --resume {run_id}" in line]
    assert len(lines) == 1 and run_id in lines[0]
