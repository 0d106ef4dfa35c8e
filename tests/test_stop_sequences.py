"""`--stop` and `--max-tokens` reach the HTTP request a model server receives, on `run` and `eval`.

Issue 30 item 8: a base model ran every junk answer to 1,024 tokens and nothing could stop it
earlier. The fake server keeps every request body and cuts its answer at a stop sequence, as a real
server does, so these tests see both what was asked and what came back into the store.
"""

from __future__ import annotations

import json
import sqlite3

from agentkit.leaves import run_defaults
from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.testing.fake_openai import FakeOpenAIServer

RAMBLING = "Turn(-90);\nUser: and now?\nAssistant: Go(1); Go(1); Go(1);"  # a base model playing both sides


def _run(server: FakeOpenAIServer, db: str, *extra: str, tmp_path) -> dict:
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
            "--max-scripts",
            "2",
            "--db",
            db,
            "--json",
            *extra,
        ],
        tmp_path,
        cli_env(),
    )
    return json.loads(proc.stdout)


def _episode_bodies(server: FakeOpenAIServer) -> list[dict]:
    """The episode's requests: without the endpoint check's 1-token probes."""
    return [b for b in server.requests if b.get("max_tokens") != 1]


def test_stop_sequences_and_max_tokens_reach_the_request_and_cut_the_answer(tmp_path):
    db_path = tmp_path / "runs.db"
    with FakeOpenAIServer(responder=lambda _body: RAMBLING) as server:
        data = _run(
            server, f"sqlite:///{db_path}", "--stop", "\nUser:", "--stop", "<end_of_turn>",
            "--max-tokens", "200", tmp_path=tmp_path,
        )  # fmt: skip
    bodies = _episode_bodies(server)
    assert len(bodies) == 2
    assert all(b["stop"] == ["\nUser:", "<end_of_turn>"] and b["max_tokens"] == 200 for b in bodies)
    with sqlite3.connect(db_path) as conn:
        answers = [a for (a,) in conn.execute("SELECT answer FROM turns ORDER BY id")]
        (config,) = [json.loads(c) for (c,) in conn.execute("SELECT config FROM runs")]
    assert answers == ["Turn(-90);", "Turn(-90);"]  # the server stopped at "\nUser:"
    assert config["stop"] == ["\nUser:", "<end_of_turn>"] and config["max_tokens"] == 200
    assert data["run_id"]


def test_without_the_flags_no_stop_is_sent_and_max_tokens_is_the_default(tmp_path):
    with FakeOpenAIServer(responder=lambda _body: "Turn(-90);") as server:
        _run(server, f"sqlite:///{tmp_path / 'runs.db'}", tmp_path=tmp_path)
    bodies = _episode_bodies(server)
    assert bodies and all("stop" not in b for b in bodies)
    assert all(b["max_tokens"] == run_defaults.MAX_TOKENS == 512 for b in bodies)


def test_eval_takes_stop_from_the_flag_and_from_the_file(tmp_path):
    experiment = tmp_path / "tiny.yaml"
    experiment.write_text(
        "name: tiny\nenv: gridworld\ntasks: [BabyAI-GoToLocal-v0]\nmodel: openai/fake-model\n"
        'trials: 1\nmax_scripts: 1\nstop: ["<end_of_turn>"]\n'
    )
    with FakeOpenAIServer(responder=lambda _body: "Turn(-90);") as server:
        for extra in ([], ["--stop", "###"]):
            run_cli(
                [
                    "eval",
                    str(experiment),
                    "--api-base",
                    server.base_url,
                    "--db",
                    f"sqlite:///{tmp_path / 'e.db'}",
                ]
                + extra,
                tmp_path,
                cli_env(),
            )
    first, second = _episode_bodies(server)
    assert first["stop"] == ["<end_of_turn>"] and second["stop"] == ["###"]  # the flag replaces the file's


def test_an_empty_stop_sequence_is_refused_in_one_line(tmp_path):
    proc = run_cli(
        ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--stop", "", "--db",
         f"sqlite:///{tmp_path / 'r.db'}"],
        tmp_path,
        cli_env(),
        check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "--stop: a stop sequence cannot be empty" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "r.db").exists()


def test_stop_sequences_are_part_of_the_response_cache_key_only_when_given(tmp_path):
    """An answer cut at "\\nUser:" is another answer than an uncut one: never served for the other."""
    from agentkit.config import RunConfig
    from agentkit.models.cached_model import CachedModel
    from agentkit.models.litellm_model import LiteLLMModel
    from agentkit.runs.setup_episode import wrap_model
    from agentkit.transcripts import TranscriptStore

    store = TranscriptStore(f"sqlite:///{tmp_path / 'c.db'}")
    base = {"env": "gridworld", "tasks": ["BabyAI-GoToLocal-v0"], "model": "openai/m", "cache": True}
    params = []
    for stop in (None, ["\nUser:"]):
        config = RunConfig(**base, stop=stop)
        wrapped = wrap_model(LiteLLMModel("openai/m", stop=config.stop, warm_up=False), config, store)
        assert isinstance(wrapped, CachedModel)
        params.append(wrapped.params)
    store.close()
    assert "stop" not in params[0]  # the keys of runs without --stop are those of before
    assert params[1]["stop"] == ["\nUser:"]
