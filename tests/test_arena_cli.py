"""`agentkit run --env aai-arena` end to end: pure JSON on stdout, Testbed metrics, a model over HTTP."""

from __future__ import annotations

import json

from agentkit.testing.cli_runner import cli_env, run_cli, run_json
from agentkit.testing.fake_openai import FakeOpenAIServer, count_images
from agentkit.transcripts import TranscriptStore

FAKE_KEY = "sk-test-not-a-real-key-000000000000"


def test_reference_run_prints_pure_json_with_pass_and_level(tmp_path):
    data = run_json(
        ["run", "--env", "aai-arena", "--task", "01-04-03", "--db", f"sqlite:///{tmp_path / 'r.db'}"],
        tmp_path,
    )
    (episode,) = data["episodes"]
    assert episode["task"] == "01-04-03" and episode["level"] == 1 and episode["pass_mark"] == 0.0
    assert isinstance(episode["pass"], bool)


def test_an_openai_compatible_model_sees_the_arena_and_drives_it(tmp_path):
    answers = iter(['Think("the goal is ahead and to the left"); Turn(-30); Go(10);', "Go(35);", "Fly(2);"])
    with FakeOpenAIServer(responder=lambda body: next(answers, "Turn(-90);"), api_key=FAKE_KEY) as server:
        proc = run_cli(
            [
                "run",
                "--env",
                "aai-arena",
                "--task",
                "01-04-03",
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--no-endpoint-check",  # the answers, in order, are the episode's
                "--api-key-env",
                "MY_TEST_KEY",
                "--max-scripts",
                "3",
                "--db",
                f"sqlite:///{tmp_path / 'llm.db'}",
                "--json",
            ],
            tmp_path,
            cli_env(MY_TEST_KEY=FAKE_KEY),
        )
        bodies = list(server.requests)
    data = json.loads(proc.stdout)
    (episode,) = data["episodes"]
    assert 1 <= episode["scripts"] <= 3 and episode["level"] == 1
    first = bodies[0]["messages"]
    assert first[0]["role"] == "system" and "Go(" in json.dumps(first[0])
    assert count_images(bodies[0]) == 1
    assert "Position" in json.dumps(first[-1])


def test_the_animal_ai_version_is_an_option_recorded_with_the_run(tmp_path):
    """--aai-version selects the version the arena reproduces; every episode records it, default 3.1.3."""
    db = f"sqlite:///{tmp_path / 'v.db'}"
    default = run_json(["run", "--env", "aai-arena", "--task", "01-04-03", "--db", db], tmp_path)
    later = run_json(
        ["run", "--env", "aai-arena", "--task", "01-04-03", "--aai-version", "4.1.0", "--db", db], tmp_path
    )
    store = TranscriptStore(db)
    assert store.get_run(later["run_id"]).config["backend_options"] == {"aai_version": "4.1.0"}
    versions = {
        run["run_id"]: store.list_episodes(run["run_id"])[0].metrics["aai_version"]
        for run in (default, later)
    }
    assert versions == {default["run_id"]: "3.1.3", later["run_id"]: "4.1.0"}
    refused = run_cli(
        ["run", "--env", "aai-arena", "--task", "01-04-03", "--aai-version", "2.0", "--db", db],
        tmp_path,
        check=False,
    )
    assert refused.returncode != 0 and "aai_version must be one of 3.1.3, 4.1.0" in refused.stderr
