"""A run whose model can never answer (no key, a refused key, nothing listening) stops at once.

Before: every turn was retried six times with backoff, each episode ended ``model_error`` after
half a minute, and the run exited 0. These tests drive the real CLI in a subprocess and the real
model client over HTTP against the local fake server.
"""

from __future__ import annotations

import json
import socket

import pytest

from agentkit.messages import messages_from_openai
from agentkit.models.base import ModelError
from agentkit.models.litellm_model import LiteLLMModel
from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.testing.error_server import CONTEXT_TOO_LONG, ErrorServer
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore

MESSAGES = [{"role": "user", "content": "hi"}]


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def test_unset_api_key_env_fails_before_any_run_is_created(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    env = cli_env()
    env.pop("AGENTKIT_TEST_NO_SUCH_KEY", None)
    proc = run_cli(
        [
            "run",
            "--env",
            "aai-arena",
            "--task",
            "01-04-03",
            "--model",
            "openai/gpt-4o",
            "--api-key-env",
            "AGENTKIT_TEST_NO_SUCH_KEY",
            "--db",
            db,
        ],
        tmp_path,
        env,
        check=False,
    )
    assert proc.returncode != 0
    lines = _error_lines(proc.stderr)
    assert len(lines) == 1 and "AGENTKIT_TEST_NO_SUCH_KEY" in lines[0] and "Traceback" not in proc.stderr
    assert not (tmp_path / "runs.db").exists() or TranscriptStore(db).list_runs() == []


def test_eval_with_an_unset_key_refuses_before_making_a_database(tmp_path):
    """`agentkit eval` made an empty database (its tables, no run) before refusing the unset key."""
    env = cli_env()
    env.pop("AGENTKIT_TEST_NO_SUCH_KEY", None)
    proc = run_cli(
        [
            "eval",
            "llm-aai-exp1",
            "--model",
            "openai/gpt-4o",
            "--api-key-env",
            "AGENTKIT_TEST_NO_SUCH_KEY",
            "--db",
            f"sqlite:///{tmp_path / 'runs.db'}",
        ],
        tmp_path,
        env,
        check=False,
    )
    assert proc.returncode == 2
    lines = _error_lines(proc.stderr)
    assert len(lines) == 1 and "AGENTKIT_TEST_NO_SUCH_KEY" in lines[0] and "unset or empty" in lines[0]
    assert not (tmp_path / "runs.db").exists()


def test_empty_api_key_env_fails_too(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    proc = run_cli(
        [
            "run",
            "--env",
            "aai-arena",
            "--task",
            "01-04-03",
            "--model",
            "openai/gpt-4o",
            "--api-key-env",
            "EMPTY_KEY",
            "--db",
            db,
        ],
        tmp_path,
        cli_env(EMPTY_KEY=""),
        check=False,
    )
    assert proc.returncode != 0
    assert "EMPTY_KEY" in proc.stderr and "unset or empty" in proc.stderr


def test_refused_api_base_fails_in_one_line(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    port = _closed_port()
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
            f"http://127.0.0.1:{port}/v1",
            "--db",
            db,
        ],
        tmp_path,
        cli_env(),
        check=False,
    )
    assert proc.returncode != 0
    lines = _error_lines(proc.stderr)
    assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0] and "--api-base" in lines[0]


def test_a_listening_server_passes_the_preflight(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(api_key="sk-right-key-0000000") as server:
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
                "MY_KEY",
                "--max-scripts",
                "1",
                "--db",
                db,
            ],
            tmp_path,
            cli_env(MY_KEY="sk-right-key-0000000"),
        )
    assert proc.returncode == 0


def test_client_does_not_retry_a_refused_key():
    with FakeOpenAIServer(api_key="sk-right-key-0000000") as server:
        model = LiteLLMModel(
            "openai/fake-model",
            api_base=server.base_url,
            api_key="sk-wrong-key-000000",
            max_retries=5,
            retry_base_s=0.01,
        )
        with pytest.raises(ModelError, match="after 1 attempt"):
            model.complete(messages_from_openai(MESSAGES))
        assert server.request_count == 1


def test_client_does_not_retry_a_refused_connection():
    model = LiteLLMModel(
        "openai/fake-model",
        api_base=f"http://127.0.0.1:{_closed_port()}/v1",
        api_key="sk-x-0000000",
        max_retries=5,
        retry_base_s=0.01,
    )
    with pytest.raises(ModelError, match="after 1 attempt"):
        model.complete(messages_from_openai(MESSAGES))


def test_client_still_retries_a_server_error():
    with FakeOpenAIServer() as server:
        server.fail_next(500)
        model = LiteLLMModel(
            "openai/fake-model",
            api_base=server.base_url,
            api_key="sk-x-0000000",
            max_retries=2,
            retry_base_s=0.01,
        )
        model.complete(messages_from_openai(MESSAGES))
        assert server.request_count == 2


def test_context_window_error_ends_the_episode_once_with_its_text(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with ErrorServer(400, CONTEXT_TOO_LONG) as server:
        data = json.loads(
            run_cli(
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
                    "MY_KEY",
                    "--db",
                    db,
                    "--json",
                    "--no-endpoint-check",  # the server's one request is the episode's
                ],
                tmp_path,
                cli_env(MY_KEY="sk-some-key-000000"),
            ).stdout
        )
        requests = server.count
    episodes = TranscriptStore(db).list_episodes(run_id=data["run_id"])
    assert len(episodes) == 1 and requests == 1  # one attempt: no retry, no relaunch
    assert episodes[0].end_reason == "model_error"
    assert "maximum context length" in (episodes[0].error or "")
    shown = run_cli(["transcripts", "show", episodes[0].id, "--db", db], tmp_path, cli_env(COLUMNS="250"))
    assert "maximum context length" in shown.stdout


def test_a_transient_model_error_is_still_relaunched(tmp_path):
    from agentkit.config import RunConfig
    from agentkit.runs.runner import execute_run

    store = TranscriptStore(f"sqlite:///{tmp_path / 'runs.db'}")
    with ErrorServer(503, {"error": {"message": "overloaded", "type": "server_error"}}) as server:
        config = RunConfig(
            env="gridworld",
            tasks=["BabyAI-GoToLocal-v0"],
            model="openai/fake-model",
            api_base=server.base_url,
            max_retries=0,
            max_attempts=2,
        )
        summary = execute_run(config, store, api_key="sk-some-key-000000", show_progress=False)
        requests = server.count
    episodes = store.list_episodes(run_id=summary.run_id)
    assert sorted(e.attempt for e in episodes) == [0, 1] and requests == 2  # relaunched once
    assert all("overloaded" in (e.error or "") for e in episodes)
