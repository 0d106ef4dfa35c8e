"""Settings either take effect or are refused (or warned about) in one line; and --fold-system.

Before: ``templates:`` beside a catalogue harness was dropped, ``--max-cost`` on a model litellm
has no price for never stopped anything, ``report --tasks aai-level-01,aai-level-02`` answered that
'aai-level-01' is not one of the suites it then listed, and a model without a system role lost its
instructions. Real CLI in subprocesses, the real model client against the local OpenAI-shaped server.
"""

from __future__ import annotations

import pytest

from agentkit.config import RunConfig
from agentkit.envs.animalai_common.suites import suites
from agentkit.models.fold_system import fold_system_message
from agentkit.models.price_check import unpriced_budget_warning
from agentkit.reports.task_sets import resolve_task_set
from agentkit.runs.experiment import ExperimentError, expand_experiment
from agentkit.runs.runner import execute_run
from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore

GRIDWORLD = ["--env", "gridworld", "--task", "BabyAI-GoToLocal-v0"]


# --- --fold-system ------------------------------------------------------------------------------


def test_fold_system_sends_the_system_text_inside_the_first_user_message(tmp_path):
    store = TranscriptStore(f"sqlite:///{tmp_path / 'runs.db'}")
    with FakeOpenAIServer() as server:
        config = RunConfig(
            env="gridworld",
            tasks=["BabyAI-GoToLocal-v0"],
            model="openai/fake-model",
            api_base=server.base_url,
            max_scripts=2,
            fold_system=True,
        )
        summary = execute_run(config, store, api_key="sk-some-key-000000", show_progress=False)
        sent = [body["messages"] for body in server.requests]
    stored = store.get_turns(summary.episodes[0].episode_id)[0].messages
    system_text = stored[0]["content"]
    assert stored[0]["role"] == "system"  # the store keeps the messages as rendered
    assert all(m["role"] != "system" for messages in sent for m in messages)
    first_user = sent[0][0]
    assert first_user["role"] == "user" and first_user["content"][0] == {"type": "text", "text": system_text}
    assert first_user["content"][1:] == stored[1]["content"][:1] + first_user["content"][2:]
    assert store.get_run(summary.run_id).config["fold_system"] is True  # recorded with the run


def test_without_fold_system_the_system_message_is_sent_as_such(tmp_path):
    with FakeOpenAIServer() as server:
        config = RunConfig(
            env="gridworld",
            tasks=["BabyAI-GoToLocal-v0"],
            model="openai/fake-model",
            api_base=server.base_url,
            max_scripts=1,
        )
        execute_run(
            config,
            TranscriptStore(f"sqlite:///{tmp_path / 'runs.db'}"),
            api_key="sk-some-key-000000",
            show_progress=False,
        )
        assert server.requests[0]["messages"][0]["role"] == "system"


def test_fold_system_of_text_messages_and_without_a_user_message():
    folded = fold_system_message(
        [
            {"role": "system", "content": "Rules."},
            {"role": "user", "content": "Go?"},
            {"role": "assistant", "content": "Go(1);"},
            {"role": "user", "content": "Next?"},
        ]
    )
    assert folded == [
        {"role": "user", "content": "Rules.\n\nGo?"},
        {"role": "assistant", "content": "Go(1);"},
        {"role": "user", "content": "Next?"},
    ]
    assert fold_system_message([{"role": "system", "content": "Rules."}]) == [
        {"role": "user", "content": "Rules."}
    ]
    plain = [{"role": "user", "content": "Go?"}]
    assert fold_system_message(plain) is plain


def test_fold_system_is_an_experiment_file_key():
    _, configs = expand_experiment(
        {"env": "gridworld", "tasks": ["BabyAI-GoToLocal-v0"], "fold_system": True}, "exp.yaml"
    )
    assert configs[0].fold_system is True


# --- budgets on unpriced models -----------------------------------------------------------------


def test_a_cost_budget_on_an_unpriced_model_is_warned_about_at_start(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer() as server:
        base = [
            "run",
            *GRIDWORLD,
            "--model",
            "openai/fake-model",
            "--api-base",
            server.base_url,
            "--max-scripts",
            "1",
            "--db",
            db,
            "--json",
        ]
        warned = run_cli([*base, "--max-cost", "0.5"], tmp_path, cli_env())
        priced = run_cli([*base, "--max-cost", "0.5", "--price-per-mtok", "1,2"], tmp_path, cli_env())
    lines = [line for line in warned.stderr.splitlines() if "cannot stop" in line]
    assert len(lines) == 1
    assert (
        "--max-cost" in lines[0]
        and "openai/fake-model" in lines[0]
        and "the budget cannot stop this run" in lines[0]
    )
    assert "cannot stop" not in priced.stderr
    assert (
        unpriced_budget_warning("openai/fake-model", None, {"--max-cost": None}) is None
    )  # no budget, no warning
    assert unpriced_budget_warning("openai/gpt-4o", None, {"--max-cost": 1.0}) is None  # litellm prices it


def test_a_run_budget_on_an_unpriced_model_is_warned_about_by_eval_too(tmp_path):
    (tmp_path / "exp.yaml").write_text(
        "env: gridworld\ntasks: [BabyAI-GoToLocal-v0]\nmax_scripts: 1\nrun_max_cost_usd: 1.0\n"
    )
    with FakeOpenAIServer() as server:
        proc = run_cli(
            [
                "eval",
                "exp.yaml",
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--db",
                f"sqlite:///{tmp_path / 'runs.db'}",
                "--json",
            ],
            tmp_path,
            cli_env(),
        )
    assert "--run-max-cost (run_max_cost_usd): litellm has no price for openai/fake-model" in proc.stderr


# --- templates overridden by a catalogue harness ----------------------------------------------


@pytest.mark.parametrize(
    "key, value", [("templates", "gridworld"), ("templates_dir", "gridworld"), ("memory", "full")]
)
def test_a_setting_the_harness_overrides_is_refused_naming_the_key(key, value):
    with pytest.raises(ExperimentError) as caught:
        expand_experiment(
            {"env": "gridworld", "catalogue": {"harness": "react", "tasks": ["goto-object"]}, key: value},
            "exp.yaml",
        )
    message = str(caught.value)
    assert (
        message.startswith(f"exp.yaml: {key}: catalogue.harness 'react' sets the templates")
        and "\n" not in message
    )


def test_templates_flag_beside_a_harness_flag_is_refused_in_one_line(tmp_path):
    proc = run_cli(
        [
            "eval",
            "--env",
            "gridworld",
            "--harness",
            "react",
            "--templates",
            "gridworld",
            "--db",
            f"sqlite:///{tmp_path / 'runs.db'}",
        ],
        tmp_path,
        cli_env(),
        check=False,
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert (
        proc.returncode == 2
        and len(lines) == 1
        and "--templates: the catalogue's harness 'react'" in lines[0]
    )


def test_modality_and_harness_flags_set_the_files_catalogue():
    data = {
        "env": "gridworld",
        "catalogue": {"tasks": ["goto-object"], "difficulties": ["easy"], "seeds_per_pair": 1},
    }
    _, configs = expand_experiment(
        data, "exp.yaml", overrides={"catalogue": {"modality": "ascii", "harness": "markovian"}}
    )
    assert configs[0].observer.views == ["ascii"] and configs[0].memory == "markovian"
    assert configs[0].evaluation["modality"] == "ascii"
    with pytest.raises(ExperimentError, match="--modality: applies to a task catalogue"):
        expand_experiment(
            {"env": "gridworld", "tasks": ["BabyAI-GoToLocal-v0"]},
            "exp.yaml",
            overrides={"catalogue": {"modality": "ascii", "harness": None}},
        )


# --- report --tasks with several suites ---------------------------------------------------------


def test_report_tasks_takes_suites_separated_by_commas():
    named = suites()
    assert resolve_task_set("aai-level-01,aai-level-02") == sorted(
        {*named["aai-level-01"], *named["aai-level-02"]}
    )
    assert resolve_task_set("aai-level-01 01-01-01") == sorted(named["aai-level-01"])
    with pytest.raises(ValueError, match="'foo' is neither a suite"):
        resolve_task_set("aai-level-01,foo")
