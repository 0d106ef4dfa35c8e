"""The endpoint check before a run's first episode (issue 30 item 2), against a real HTTP server.

The fake OpenAI server here behaves as llama.cpp's does with the chat formats that lose part of a
prompt: it drops the system message (``gemma``), drops or refuses images (no vision projector),
refuses tools (no ``--jinja``), and counts the prompt it kept in ``usage``. The check must find each
from those counts and errors alone, stop the run in one line naming the fix, cost only 1-token
requests, and ask a healthy endpoint once (the cache).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentkit import api
from agentkit.config import RunConfig
from agentkit.runs.endpoint_check import EndpointRefused, check_endpoint, needs_endpoint_check
from agentkit.runs.endpoint_check_cache import cache_path
from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.testing.fake_openai import FakeOpenAIServer

MODEL = "openai/fake-model"


def _config(server: FakeOpenAIServer, **fields) -> RunConfig:
    return RunConfig(
        env="gridworld", tasks=["BabyAI-GoToLocal-v0"], model=MODEL, api_base=server.base_url, **fields
    )


def _probes(server: FakeOpenAIServer) -> list[dict]:
    return [b for b in server.requests if b.get("max_tokens") == 1]


def test_a_healthy_endpoint_passes_with_1_token_requests_and_is_asked_once(tmp_path):
    with FakeOpenAIServer() as server:
        assert check_endpoint(_config(server, action_format="tools"), None) == []
        first = len(server.requests)
        assert check_endpoint(_config(server, action_format="tools"), None) == []  # from the cache
    assert first == 4 and len(server.requests) == 4  # plain, system, image, tools; then nothing
    assert all(b["max_tokens"] == 1 for b in server.requests)
    entries = json.loads(cache_path().read_text())
    (report,) = [e["report"] for e in entries.values()]
    assert (report["system"], report["images"], report["tools"]) == ("kept", "kept", "kept")


@pytest.mark.parametrize(
    ("server_mode", "fields", "said"),
    [
        ({"system_role": "drop"}, {}, "dropped the system message"),
        ({"system_role": "reject"}, {}, "refused the system message (HTTP 400: System role not supported)"),
        ({"images": "drop"}, {}, "dropped images"),
        ({"images": "reject"}, {}, "refused images (HTTP 500: image input is not supported"),
        ({"tools": "drop"}, {"action_format": "tools"}, "dropped tool schemas"),
        (
            {"tools": "reject"},
            {"action_format": "tools"},
            "refused tool schemas (HTTP 400: tools param requires",
        ),
    ],
)
def test_what_the_endpoint_loses_stops_the_run_naming_the_fix(server_mode, fields, said):
    fix = {"system_role": "--fold-system", "images": "--no-images", "tools": "--action-format text"}
    with FakeOpenAIServer(**server_mode) as server:
        with pytest.raises(EndpointRefused) as refused:
            check_endpoint(_config(server, **fields), None)
    line = str(refused.value)
    assert "\n" not in line and said in line and f"add {fix[next(iter(server_mode))]}" in line
    assert "--no-endpoint-check" in line


def test_a_dropped_system_message_is_caught_by_its_token_count_whatever_the_model_answers():
    """The gemma case of issue 30: the server answers well and counts the prompt without the system message."""
    with FakeOpenAIServer(responder=lambda _b: "ready", system_role="drop") as server:
        with pytest.raises(EndpointRefused, match=r"counted (\d+) input tokens with it and \1 without"):
            check_endpoint(_config(server), None)


def test_the_fix_named_makes_the_run_pass_the_check():
    with FakeOpenAIServer(system_role="drop", images="reject", tools="reject") as server:
        config = _config(server, fold_system=True, include_images=False)  # text action format: no tools
        assert check_endpoint(config, None) == []
        assert (
            _probes(server) == server.requests and len(server.requests) == 1
        )  # nothing left to ask but the plain one


def test_a_run_that_makes_no_images_is_not_refused_for_an_endpoint_without_them():
    with FakeOpenAIServer(images="reject") as server:
        assert check_endpoint(_config(server, observer={"views": ["ascii", "language"]}), None) == []
    assert not any(isinstance(m["content"], list) for b in server.requests for m in b["messages"])


def test_a_cached_refusal_is_asked_again_so_a_fixed_server_runs():
    with FakeOpenAIServer(system_role="drop") as server:
        with pytest.raises(EndpointRefused):
            check_endpoint(_config(server), None)
        entries = json.loads(cache_path().read_text())
        assert [e["report"]["system"] for e in entries.values()] == ["dropped"]
        server.system_role = "keep"  # restarted with a chat format that keeps system messages
        asked = len(server.requests)
        assert check_endpoint(_config(server), None) == []
        assert len(server.requests) == asked + 3  # asked again, not refused from memory
    entries = json.loads(cache_path().read_text())
    assert [e["report"]["system"] for e in entries.values()] == ["kept"]


def test_a_small_context_warns_and_one_smaller_than_max_tokens_stops():
    with FakeOpenAIServer(context_tokens=3000) as server:
        (line,) = check_endpoint(_config(server), None)
    assert "context of 3000 tokens" in line and "--memory window:K" in line
    with FakeOpenAIServer(context_tokens=400) as server:
        with pytest.raises(EndpointRefused, match="--max-tokens 512: the endpoint's context is 400 tokens"):
            check_endpoint(_config(server), None)


def test_an_endpoint_without_token_counts_gets_a_warning_naming_the_fix_not_a_stop():
    with FakeOpenAIServer(usage={"completion_tokens": 1}) as server:
        lines = check_endpoint(_config(server), None)
    assert any("cannot tell whether" in line and "--fold-system" in line for line in lines)
    assert not any(json.loads(cache_path().read_text()).values()) if cache_path().exists() else True


def test_local_stand_ins_are_never_checked():
    for model in ("reference", "human", "replay", "causalworld:pushing_ppo_curr1", "mockllm/model"):
        assert not needs_endpoint_check(model), model
    assert needs_endpoint_check("openai/gpt-4o") and needs_endpoint_check("anthropic/claude-sonnet-4-5")


def test_a_cache_file_that_is_not_json_is_ignored_with_a_warning(caplog):
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_text("{not json")
    with FakeOpenAIServer() as server:
        assert check_endpoint(_config(server), None) == []
    assert "cannot be read" in caplog.text
    assert json.loads(cache_path().read_text())  # written whole again


def test_the_python_api_refuses_before_making_a_database(tmp_path: Path):
    db = tmp_path / "api.db"
    with FakeOpenAIServer(system_role="drop") as server:
        with pytest.raises(api.RunSetupError, match="add --fold-system"):
            api.run(
                "gridworld",
                "BabyAI-GoToLocal-v0",
                model=MODEL,
                api_base=server.base_url,
                db=f"sqlite:///{db}",
            )
        assert not db.exists()
        summary = api.run(
            "gridworld", "BabyAI-GoToLocal-v0", model=MODEL, api_base=server.base_url, max_scripts=1,
            db=f"sqlite:///{db}", endpoint_check=False,
        )  # fmt: skip
    assert summary.run_id


def test_agentkit_run_stops_in_one_line_and_no_endpoint_check_skips_it(tmp_path: Path):
    db = tmp_path / "cli.db"
    args = ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--model", MODEL, "--max-scripts", "1",
            "--db", f"sqlite:///{db}", "--json"]  # fmt: skip
    with FakeOpenAIServer(system_role="drop") as server:
        refused = run_cli([*args, "--api-base", server.base_url], tmp_path, cli_env(), check=False)
        assert refused.returncode == 2 and refused.stdout == "" and not db.exists()
        (line,) = refused.stderr.strip().splitlines()
        assert line.startswith("error: --model openai/fake-model at http://127.0.0.1:")
        assert "dropped the system message" in line and "add --fold-system" in line
        asked = len(server.requests)
        ran = run_cli([*args, "--api-base", server.base_url, "--no-endpoint-check"], tmp_path, cli_env())
        json.loads(ran.stdout)  # pure JSON
        assert _probes(server) == server.requests[:asked] and len(server.requests) == asked + 1


def test_agentkit_eval_checks_each_model_and_warns_on_stderr_only(tmp_path: Path):
    experiment = tmp_path / "tiny.yaml"
    experiment.write_text(
        f"name: tiny\nenv: gridworld\ntasks: [BabyAI-GoToLocal-v0]\nmodel: {MODEL}\ntrials: 1\nmax_scripts: 1\n"
    )
    with FakeOpenAIServer(context_tokens=3000) as server:
        proc = run_cli(
            ["eval", str(experiment), "--api-base", server.base_url, "--db", f"sqlite:///{tmp_path / 'e.db'}",
             "--json"],
            tmp_path,
            cli_env(),
        )  # fmt: skip
    json.loads(proc.stdout)
    assert "warning: endpoint check:" in proc.stderr and "context of 3000 tokens" in proc.stderr
    assert len(_probes(server)) == 3  # plain, system, image: the eval's one model asked once
