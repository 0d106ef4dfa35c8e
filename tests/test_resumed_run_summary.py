"""A resumed run's summary counts the model calls of the whole run, not only of the last invocation.

Before: ``model calls: N retries, M turns cut by --max-tokens`` was summed over the episodes played
by the invocation that printed it, so after ``eval --resume`` the retries and cut answers of the
episodes played before the stop vanished from the summary. It is now read from the store's
``model_calls`` table. Kill-free: the first invocation stops by itself (one episode ends in a
provider's 400 and ``--max-consecutive-model-errors 1`` stops the run), the resume plays the rest;
its summary must equal that of the same experiment played in one go. Real CLI in subprocesses,
the real model client over HTTP to the local OpenAI-shaped server, real SQLite stores.
"""

from __future__ import annotations

import json

import pytest

from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.testing.fake_openai import FakeOpenAIServer

LONG_ANSWER = 'Think("' + "the ball is somewhere to the left of the door " * 20 + '"); Go(1);'
TASKS = ["BabyAI-GoToLocal-v0", "BabyAI-GoToObj-v0", "BabyAI-GoToRedBall-v0"]
FLAGS = [
    "--max-tokens",
    "8",
    "--max-scripts",
    "2",
    "--max-consecutive-model-errors",
    "1",
    "--max-retries",
    "2",
    "--retry-base-s",
    "0",
]


def _eval(args: list[str], tmp_path, server: FakeOpenAIServer, db: str) -> tuple[int, dict]:
    proc = run_cli(  # every request is an episode's: the forced errors land where the test puts them
        [*args, "--api-base", server.base_url, "--db", db, "--json", "--no-endpoint-check"],
        tmp_path,
        cli_env(),
        check=False,
    )
    assert proc.returncode in (0, 3), proc.stderr[-2000:]
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.block_network(allowed_hosts=[r"127\.0\.0\.1"])
def test_a_resumed_runs_model_calls_cover_the_episodes_played_before_the_stop(tmp_path):
    (tmp_path / "exp.yaml").write_text(
        f"name: three\nenv: gridworld\ntasks: {json.dumps(TASKS)}\nmodels: [openai/fake-model]\n"
    )
    answered = [0]

    def stopping_after_the_first_episode(_body: dict) -> str:
        answered[0] += 1
        if answered[0] == 2:  # the first episode's last answer: the next request (episode 2) gets a 400
            server.fail_next(400)
        return LONG_ANSWER

    db = f"sqlite:///{tmp_path / 'resumed.db'}"
    with FakeOpenAIServer(stopping_after_the_first_episode) as server:
        server.fail_next(500)  # the first request is retried once
        code, first = _eval(["eval", "exp.yaml", *FLAGS], tmp_path, server, db)
        assert code == 3 and len(first["episodes"]) == 2  # stopped: episode 3 never started
        assert first["model_calls"]["retries"] == 1 and first["model_calls"]["model_errors"] == 1
        code, resumed = _eval(["eval", "--resume", first["run_id"]], tmp_path, server, db)
    assert code == 0 and resumed["run_id"] == first["run_id"] and len(resumed["episodes"]) == 3

    with FakeOpenAIServer(lambda _body: LONG_ANSWER) as server:
        server.fail_next(500)
        code, whole = _eval(
            ["eval", "exp.yaml", *FLAGS], tmp_path, server, f"sqlite:///{tmp_path / 'whole.db'}"
        )
    assert code == 0
    # Episode 1's retry and its two cut answers were played before the resume: still counted.
    assert (
        resumed["model_calls"]
        == whole["model_calls"]
        == {
            "retries": 1,
            "cut_by_max_tokens": 6,
            "dropped_prompt_warnings": 0,
            "model_errors": 0,
            "errors": [],
        }
    )
