"""`agentkit run` end to end on the real gridworld: reference agent, OpenAI-compatible model, JSON output."""

from __future__ import annotations

import json
import sqlite3

from agentkit.testing.cli_runner import cli_env, run_cli, run_json
from agentkit.testing.fake_openai import FakeOpenAIServer, count_images
from agentkit.transcripts import TranscriptStore

FAKE_KEY = "sk-test-not-a-real-key-000000000000"


def test_reference_agent_run_prints_pure_json_and_stores_episodes(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = run_json(
        [
            "run",
            "--env",
            "gridworld",
            "--task",
            "BabyAI-GoToLocal-v0",
            "--episodes",
            "3",
            "--seed",
            "7",
            "--db",
            db,
        ],
        tmp_path,
    )
    assert set(data) >= {"run_id", "episodes", "success_rate"}
    assert [e["seed"] for e in data["episodes"]] == [7, 8, 9]
    for e in data["episodes"]:
        assert set(e) >= {"episode_id", "task", "seed", "success", "reward", "end_reason", "scripts"}
    assert data["success_rate"] == 1.0
    store = TranscriptStore(db)
    stored = store.list_episodes(run_id=data["run_id"])
    assert len(stored) == 3


def test_default_database_is_a_file_in_the_working_directory(tmp_path):
    run_cli(["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0"], tmp_path)
    assert (tmp_path / "agentkit.db").is_file()


def test_openai_compatible_model_gets_text_and_image_and_tokens_are_stored(tmp_path):
    answers = iter(['Think("I will look around"); Turn(90);', "Go(1)", "Jump(3);"])
    with FakeOpenAIServer(responder=lambda body: next(answers, "Turn(-90);"), api_key=FAKE_KEY) as server:
        db = f"sqlite:///{tmp_path / 'llm.db'}"
        env = cli_env(MY_TEST_KEY=FAKE_KEY)
        proc = run_cli(
            [
                "run",
                "--env",
                "gridworld",
                "--task",
                "BabyAI-GoToLocal-v0",
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--api-key-env",
                "MY_TEST_KEY",
                "--max-scripts",
                "4",
                "--db",
                db,
                "--json",
                "--no-endpoint-check",  # every request is the episode's: the answers are in turn order
            ],
            tmp_path,
            env,
        )
        data = json.loads(proc.stdout)
        bodies = list(server.requests)
    assert len(bodies) == 4
    first_user = bodies[0]["messages"][-1]
    kinds = [p["type"] for p in first_user["content"]]
    assert "text" in kinds and "image_url" in kinds and count_images(bodies[0]) == 1
    assert bodies[0]["messages"][0]["role"] == "system"
    # the unknown command was explained to the model on the next turn
    assert "Jump" in json.dumps(bodies[3]["messages"][-1])
    episode = data["episodes"][0]
    assert episode["end_reason"] == "script_limit" and episode["scripts"] == 4
    store = TranscriptStore(db)
    turns = store.get_turns(episode["episode_id"], with_messages=False)
    assert len(turns) == 4
    assert all(_field(t, "input_tokens") > 0 and _field(t, "output_tokens") > 0 for t in turns)
    assert _field(turns[2], "parse_error")["code"] == "unknown_command"
    # no key or auth header anywhere: database, stdout, stderr
    raw = (
        (tmp_path / "llm.db").read_bytes() + (tmp_path / "llm.db-wal").read_bytes()
        if (tmp_path / "llm.db-wal").exists()
        else (tmp_path / "llm.db").read_bytes()
    )
    for blob in (raw, proc.stdout.encode(), proc.stderr.encode()):
        assert FAKE_KEY.encode() not in blob
        assert b"Bearer" not in blob
    con = sqlite3.connect(tmp_path / "llm.db")
    dump = "\n".join(con.iterdump())
    assert FAKE_KEY not in dump and "authorization" not in dump.lower()


def _field(obj, name):
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


def test_unknown_env_and_task_are_one_line_errors(tmp_path):
    proc = run_cli(["run", "--env", "nowhere", "--task", "x"], tmp_path, check=False)
    assert proc.returncode == 2 and "unknown env 'nowhere'" in proc.stderr
    proc = run_cli(["run", "--env", "gridworld", "--task", "BabyAI-NoSuchLevel-v0"], tmp_path, check=False)
    assert proc.returncode == 2 and "BabyAI-NoSuchLevel-v0" in proc.stderr


def test_tasks_lists_gridworld_levels(tmp_path):
    proc = run_cli(["tasks", "gridworld", "--json"], tmp_path)
    names = [t["name"] for t in json.loads(proc.stdout)]
    assert "BabyAI-GoToLocal-v0" in names and "BabyAI-PickupLoc-v0" in names
