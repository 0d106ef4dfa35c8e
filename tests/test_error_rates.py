"""An outage is not read as a bad model (issue 30 item 7): rates with the errored episodes counted
apart beside the headline, in `run`, `eval --json` and `report aai`, and a refused connection named.

The outage is real: an OpenAI-compatible server in its own process, killed once the first episode
has ended, so the next requests meet a closed port, as a llama.cpp server that crashed would.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from agentkit.records import EndReason, EpisodeResult
from agentkit.reports.task_sets import resolve_task_set
from agentkit.runs.error_rates import ErrorsApart, errors_apart
from agentkit.testing.cli_runner import AGENTKIT, cli_env, run_cli
from agentkit.transcripts import TranscriptStore


def test_the_line_counts_errors_apart():
    assert (
        ErrorsApart("pass", judged=10, passed=4, model_errors=2).line()
        == "pass 40.0% of 10; 2 model errors: 50.0% of the 8 that played"
    )
    both = ErrorsApart("success", judged=5, passed=0, model_errors=1, env_errors=4)
    assert both.line() == "success 0.0% of 5; 1 model error and 4 environment errors: none played to its end"
    assert ErrorsApart("pass", judged=3, passed=1).line() is None  # no error: the headline says it all
    counted = errors_apart("pass", [(True, "goal"), (False, "model_error"), (False, "env_error")])
    assert (counted.judged, counted.passed, counted.model_errors, counted.env_errors) == (3, 1, 1, 1)
    assert counted.to_json()["played"] == 1 and counted.to_json()["played_rate"] == 1.0


def _server(tmp_path: Path) -> tuple[subprocess.Popen, str]:
    """The package's OpenAI-compatible test server in a process of its own, answering "Turn(90);"."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentkit.testing.fake_openai", "--port", str(port), "--answer", "Turn(90);"]
        + ["--latency", "0.5"],  # the kill lands before the second episode's first answer
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{base}/models", timeout=1):
                return proc, base
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, "the test server did not start"
            time.sleep(0.05)


def _finished(path: Path) -> int:
    """Finished episodes in the SQLite file being written (0 before it exists)."""
    if not path.exists():
        return 0
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        return con.execute("SELECT count(*) FROM episodes WHERE status = 'finished'").fetchone()[0]
    except sqlite3.OperationalError:  # the tables are not made yet
        return 0
    finally:
        con.close()


def _run_through_an_outage(tmp_path: Path, args: list[str], db: Path) -> tuple[str, str, int, str]:
    """Four gridworld episodes, one at a time; the server is killed when the first has ended."""
    server, base = _server(tmp_path)
    try:
        proc = subprocess.Popen(
            [*AGENTKIT, *args, "--model", "openai/fake-model", "--api-base", base, "--max-concurrency", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=cli_env(),
        )
        deadline = time.monotonic() + 240
        while not _finished(db):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
            time.sleep(0.02)
        server.kill()
        server.wait()
        out, err = proc.communicate(timeout=300)
    finally:
        if server.poll() is None:
            server.kill()
    return out, err, proc.returncode, base


def test_a_server_killed_mid_run_is_an_outage_not_a_bad_model(tmp_path):
    path = tmp_path / "o.db"
    db = f"sqlite:///{path}"
    run = ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--episodes", "4"]
    out, err, code, base = _run_through_an_outage(tmp_path, [*run, "--max-scripts", "3", "--db", db], path)
    assert code == 3, err  # stopped: three episodes in a row ended in model errors
    assert "pass rate 0.0% (0/4;" in out  # the headline still counts them as failures
    assert "\npass 0.0% of 4; 3 model errors: 0.0% of the 1 that played\n" in out
    assert f"connection refused to {base}" in out and "InternalServerError" not in out + err

    store = TranscriptStore(db)
    errors = [e.error for e in store.list_episodes() if e.end_reason == "model_error"]
    store.close()
    assert len(errors) == 3 and all(f"connection refused to {base}" in e for e in errors)


def test_eval_json_carries_the_rate_without_errors(tmp_path):
    path = tmp_path / "e.db"
    db = f"sqlite:///{path}"
    experiment = tmp_path / "exp.yaml"
    experiment.write_text(
        "name: outage\nenv: gridworld\ntasks: [BabyAI-GoToLocal-v0]\ntrials: 4\nmax_scripts: 3\n",
        encoding="utf-8",
    )
    out, err, code, _ = _run_through_an_outage(
        tmp_path, ["eval", str(experiment), "--db", db, "--json"], path
    )
    assert code == 3, err
    data = json.loads(out)
    apart = data["errors_apart"]
    assert (apart["judged"], apart["model_errors"], apart["played"]) == (4, 3, 1)
    assert apart["word"] == "pass" and apart["rate"] == 0.0 and apart["played_rate"] == 0.0


def test_report_aai_states_the_rate_without_errors_per_run(tmp_path):
    """Stored episodes of a real store, the real command: 4 children tasks, one trial each; two
    passed, one failed, one ended in a model error."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    store = TranscriptStore(db)
    tasks = resolve_task_set("aai-children40")[:4]
    run_id = store.create_run("aai-arena", tasks, "openai/some-model", {"pass_rule": "aai"}, {})
    outcomes = [(True, EndReason.GOAL), (True, EndReason.GOAL), (False, EndReason.TIME_LIMIT)]
    outcomes.append((False, EndReason.MODEL_ERROR))
    for task, (ok, reason) in zip(tasks, outcomes):
        episode_id = store.start_episode(run_id, task, seed=0)
        store.finish_episode(
            episode_id,
            EpisodeResult(
                episode_id=episode_id,
                task=task,
                seed=0,
                success=ok,
                reward=1.0 if ok else -1.0,
                end_reason=reason,
                scripts=1,
                turns=1,
                metrics={"pass": ok},
                error="connection refused to http://127.0.0.1:9/v1"
                if reason is EndReason.MODEL_ERROR
                else None,
            ),
        )
    store.close()
    proc = run_cli(["report", "aai", "--runs", run_id, "--db", db, "--no-figure"], tmp_path)
    assert f"run {run_id}: pass 50.0% of 4; 1 model error: 66.7% of the 3 that played" in proc.stdout
    data = json.loads(
        run_cli(["report", "aai", "--runs", run_id, "--db", db, "--no-figure", "--json"], tmp_path).stdout
    )
    assert data["errors_apart"][run_id]["played"] == 3 and data["errors_apart"][run_id]["model_errors"] == 1
