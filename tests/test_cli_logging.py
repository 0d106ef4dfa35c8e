"""`-v` / `--log-level` on every command, and `--json` stdout pure JSON however much is logged.

Why: litellm's own handlers wrote its DEBUG records to stdout, so `agentkit -v run ... --json`
printed log lines before the JSON document and a script reading stdout broke.
"""

from __future__ import annotations

import json

from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.testing.fake_openai import FakeOpenAIServer

FAKE_KEY = "sk-test-logging"


def test_verbose_arena_run_prints_only_json_on_stdout(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    proc = run_cli(["-v", "run", "--env", "aai-arena", "--task", "01-04-03", "--db", db, "--json"], tmp_path)
    data = json.loads(proc.stdout)  # the whole of stdout is one JSON document
    assert data["episodes"][0]["task"] == "01-04-03"
    assert "DEBUG" in proc.stderr  # the debug lines went to stderr


def test_debug_logging_of_a_litellm_model_stays_off_stdout(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(responder=lambda body: "Turn(-90);", api_key=FAKE_KEY) as server:
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
                "2",
                "--db",
                db,
                "--json",
                "--log-level",
                "debug",
            ],  # given after the command name
            tmp_path,
            env=cli_env(MY_TEST_KEY=FAKE_KEY),
        )
    data = json.loads(proc.stdout)
    assert data["model"] == "openai/fake-model" and data["episodes"][0]["scripts"] == 2
    assert "LiteLLM" in proc.stderr  # litellm's own records reach stderr, through our handler


def test_log_level_on_other_commands_and_a_bad_level_is_one_line(tmp_path):
    proc = run_cli(["--log-level", "INFO", "tasks", "gridworld"], tmp_path)
    assert "BabyAI-GoToLocal-v0" in proc.stdout
    proc = run_cli(["tasks", "gridworld", "--log-level=debug"], tmp_path)
    assert "BabyAI-GoToLocal-v0" in proc.stdout
    proc = run_cli(["tasks", "gridworld", "--log-level", "loud"], tmp_path, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: --log-level must be one of debug, info, warning, error, critical, not 'loud'"
    ]


def test_verbose_after_the_command_name_is_the_global_flag(tmp_path):
    """`agentkit run -v ...` was refused ("No such option: -v"); it now means `agentkit -v run ...`."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    proc = run_cli(["run", "-v", "--env", "aai-arena", "--task", "01-04-03", "--db", db, "--json"], tmp_path)
    assert json.loads(proc.stdout)["episodes"][0]["task"] == "01-04-03"
    assert "DEBUG" in proc.stderr
    proc = run_cli(["tasks", "gridworld", "--verbose"], tmp_path)  # refused (exit 2) before
    assert "BabyAI-GoToLocal-v0" in proc.stdout


def test_no_command_declares_a_v_of_its_own():
    """The hoisting of `-v` to the front would take it from a command that had one."""
    import typer.main

    from agentkit.cli import app

    def options(command, path):
        for param in command.params:
            yield path, param.opts + param.secondary_opts
        for name, sub in getattr(command, "commands", {}).items():
            yield from options(sub, f"{path} {name}")

    root = typer.main.get_command(app)
    found = [
        (path, opts)
        for name, sub in root.commands.items()
        for path, opts in options(sub, name)
        if {"-v", "--verbose"} & set(opts)
    ]
    assert found == []
    assert {"-v", "--verbose"} <= {opt for param in root.params for opt in param.opts}
