"""`agentkit eval`: experiment files, their errors, the paper presets, and kill-then-resume."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from agentkit.runs.experiment import ExperimentError, load_experiment
from agentkit.testing.cli_runner import AGENTKIT, cli_env, run_cli, run_json
from agentkit.transcripts import TranscriptStore

REPO = Path(__file__).resolve().parents[1]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "exp.yaml"
    path.write_text(text)
    return path


def test_paper_presets_validate_to_the_papers_settings():
    _, (exp1,) = load_experiment(
        REPO / "agentkit" / "presets" / "llm-aai-exp1.yaml", {"model": "openai/gpt-4o"}
    )
    assert exp1.model == "openai/gpt-4o" and len(exp1.tasks) == 40 and exp1.episodes == 3
    assert (exp1.max_scripts, exp1.temperature, exp1.memory) == (30, 0.0, "full")
    assert exp1.observer.max_side == 512 and exp1.backend_options["render_size"] == 512
    _, (exp2,) = load_experiment(REPO / "agentkit" / "presets" / "llm-aai-exp2.yaml")
    assert len(exp2.tasks) == 12 and {t[:2] for t in exp2.tasks} == {"01", "02", "03"}
    assert exp2.templates_dir == "aai-arena-incontext"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("env: aai-arena\ntasks: [01-04-03]\ntrials: 0\n", "field trials"),
        ("env: aai-arena\ntasks: [01-04-03]\ntemprature: 0.5\n", "unknown field 'temprature'"),
        ("env: aai-arena\ntasks: [01-04-03]\nmax_scripts: many\n", "field max_scripts"),
        ("env: aai-arena\nsuite: nosuch\n", "suite: unknown suite 'nosuch'"),
        ("env: aai-arena\ntasks: [01-04-03\n", "line"),
        ("env: nowhere\ntasks: [x]\n", "unknown env 'nowhere'"),
        ("- just\n- a list\n", "expected a mapping"),
    ],
)
def test_bad_experiment_files_name_the_file_and_field(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(ExperimentError) as info:
        load_experiment(path)
    assert str(path) in str(info.value) and message in str(info.value)
    proc = run_cli(["eval", str(path), "--db", f"sqlite:///{tmp_path / 'x.db'}"], tmp_path, check=False)
    assert proc.returncode == 2 and message in " ".join(proc.stderr.split()) and proc.stdout == ""


def test_eval_reports_per_level_pass_rates_as_json(tmp_path):
    path = _write(tmp_path, "name: tiny\nenv: aai-arena\ntasks: [01-04-03, 03-09-01]\ntrials: 1\n")
    data = run_json(["eval", str(path), "--db", f"sqlite:///{tmp_path / 'e.db'}"], tmp_path)
    assert data["experiment"] == "tiny" and len(data["runs"]) == 1 and len(data["episodes"]) == 2
    assert [g["level"] for g in data["by_level"]] == [1, 3]
    assert all("pass" in e and "level" in e for e in data["episodes"])


def _finished_episodes(db: str) -> int:
    """Finished episodes in the store so far (0 while it is not yet made), read without creating it."""
    from sqlalchemy import create_engine, exc, text

    from agentkit.transcripts.db import resolve_url

    engine = create_engine(resolve_url(db))
    try:
        with engine.connect() as con:
            return con.execute(text("SELECT count(*) FROM episodes WHERE status='finished'")).scalar_one()
    except exc.DBAPIError:
        return 0
    finally:
        engine.dispose()


def test_eval_killed_midway_resumes_to_exactly_one_final_episode_per_trial(tmp_path, any_db):
    """On SQLite and on PostgreSQL (any_db)."""
    db_path = tmp_path / "t.db"
    db = any_db
    # PostgreSQL plays a smaller plan (2 tasks x 2 trials, killed after 1): the same paths, less time.
    tasks = "01-04-03, 01-06-02, 03-09-01" if db.startswith("sqlite") else "01-04-03, 03-09-01"
    total, kill_after = (6, 2) if db.startswith("sqlite") else (4, 1)
    path = _write(tmp_path, f"env: aai-arena\ntasks: [{tasks}]\ntrials: 2\nmax_concurrency: 2\n")
    proc = subprocess.Popen(
        [*AGENTKIT, "eval", str(path), "--db", db, "--json"],
        cwd=tmp_path,
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.time() + 240
        finished = 0
        while time.time() < deadline and finished < kill_after and proc.poll() is None:
            time.sleep(0.3)
            if db_path.exists() or not db.startswith("sqlite"):
                finished = _finished_episodes(db)
        assert proc.poll() is None and finished >= kill_after, (
            "the eval finished (or failed) before it could be killed"
        )
        os.killpg(proc.pid, signal.SIGKILL)  # the run and its worker processes, as a crash would
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    with TranscriptStore(db) as store:
        (run,) = store.list_runs()
        before = {e.id for e in store.list_episodes(run_id=run.id, status="finished")}
    data = run_json(["eval", "--resume", run.id, "--db", db], tmp_path)
    assert data["run_id"] == run.id and len(data["episodes"]) == total
    keys = [(e["task"], e["trial"]) for e in data["episodes"]]
    assert len(set(keys)) == total
    assert before <= {e["episode_id"] for e in data["episodes"]}  # finished episodes were not played again
    with TranscriptStore(db) as store:
        rows = store.list_episodes(run_id=run.id)
        final = [e for e in rows if e.status == "finished"]
        assert len({(e.task, e.trial) for e in final}) == total and len(final) == total
        assert all(e.status == "unfinished" for e in rows if e.status != "finished")
    if db.startswith("sqlite"):
        with sqlite3.connect(db_path) as con:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_per_level_groups_are_in_numeric_order():
    from agentkit.cli.eval import _group_rates

    episodes = [{"level": lv, "success": lv < 5} for lv in (10, 2, 1, 10, 9)]
    groups = _group_rates(episodes, "level")
    assert [g["level"] for g in groups] == [1, 2, 9, 10]
    assert (
        [g["episodes"] for g in groups] == [1, 1, 1, 2]
        and groups[0]["pass"] == 1.0
        and groups[-1]["pass"] == 0.0
    )
    assert [
        g["category"] for g in _group_rates([{"category": c, "success": True} for c in "ba"], "category")
    ] == ["a", "b"]


def test_an_experiment_file_plays_on_a_unity_build_with_env_and_aai_build(tmp_path):
    """The same file on the Animal-AI connector (here with the builtin stand-in as the build): the
    file's options stay (render size from image_size), the build is added, nothing else changes."""
    path = _write(tmp_path, "env: aai-arena\ntasks: [01-04-03]\ntrials: 1\nimage_size: 64\n")
    db = f"sqlite:///{tmp_path / 'unity.db'}"
    data = run_json(["eval", str(path), "--env", "animalai", "--aai-build", "builtin", "--db", db], tmp_path)
    assert data["env"] == "animalai" and [e["end_reason"] for e in data["episodes"]] == ["goal"]
    stored = TranscriptStore(db).get_run(data["run_id"])
    assert stored.env == "animalai"
    assert stored.config["backend_options"] == {"render_size": 64, "aai_build": "builtin"}
    refused = run_cli(["eval", str(path), "--aai-build", "builtin", "--db", db], tmp_path, check=False)
    assert (
        refused.returncode == 2 and "--aai-build: env 'aai-arena' plays no Animal-AI build" in refused.stderr
    )
    assert "--env animalai" in " ".join(refused.stderr.split())
