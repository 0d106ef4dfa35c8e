"""Every run setting that only an experiment file could set has a flag on `agentkit run` and `agentkit eval`.

Each command is run once, in a subprocess, with all its new flags at non-default values (the
reference agent on one gridworld episode, so nothing is paid); each flag then has its own test that
its value reached the RunConfig stored with the run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentkit.cli._run_options import COMMON_FLAGS, EVAL_FLAGS, RUN_FLAGS
from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.transcripts import TranscriptStore

# flag -> (value on the command line, or None for a switch; the RunConfig field; its expected value)
COMMON: dict[str, tuple[str | None, str, Any]] = {
    "--name": ("flags run", "name", "flags run"),
    "--timeout-s": ("33", "timeout_s", 33.0),
    "--max-retries": ("2", "max_retries", 2),
    "--retry-base-s": ("0.5", "retry_base_s", 0.5),
    "--max-attempts": ("3", "max_attempts", 3),
    "--rate-limit-rpm": ("600", "rate_limit_rpm", 600.0),
    "--cache": (None, "cache", True),
    "--cache-max-age-s": ("60", "cache_max_age_s", 60.0),
    "--max-input-tokens": ("100000", "max_input_tokens", 100000),
    "--max-output-tokens": ("50000", "max_output_tokens", 50000),
    "--max-wall-s": ("300", "max_wall_s", 300.0),
    "--run-max-cost": ("5", "run_max_cost_usd", 5.0),
    "--run-max-tokens": ("1000000", "run_max_tokens", 1000000),
    "--run-max-wall-s": ("600", "run_max_wall_s", 600.0),
    "--price-per-mtok": ("1.5,6", "price_per_mtok", [1.5, 6.0]),
    "--fold-system": (None, "fold_system", True),
    "--stop": ("<end_of_turn>", "stop", ["<end_of_turn>"]),
    "--prompt-cache": ("off", "prompt_cache", False),
    "--image-size": ("64", "observer.max_side", 64),
    "--commands": ("api", "backend_options.commands", "api"),
}
RUN_ONLY = {
    "--max-concurrency": ("2", "max_concurrency", 2),
    "--workers": ("threads", "workers", "threads"),
    "--executor": ("local", "executor", "local"),
    "--modality": ("ascii", "observer.views", ["ascii"]),
}
EVAL_ONLY = {
    "--temperature": ("0.5", "temperature", 0.5),
    "--max-tokens": ("77", "max_tokens", 77),
    "--seed": ("5", "seed", 5),
    "--max-scripts": ("3", "max_scripts", 3),
    "--max-parse-failures": ("2", "max_parse_failures", 2),
    "--max-cost": ("1", "max_cost_usd", 1.0),
    "--max-consecutive-model-errors": ("4", "max_consecutive_model_errors", 4),
    "--memory": ("markovian", "memory", "markovian"),
    "--templates": ("gridworld-react", "templates_dir", "gridworld-react"),
    "--no-images": (None, "include_images", False),
}
# Flags of one backend (refused by the gridworld these fixtures run): each reaches the stored config
# in its backend's tests (--profile: tests/test_trifinger_profile_flag.py, trifinger's causalworld|agentkit;
# --protocol llm-aai, Animal-AI's: tests/test_protocols.py).
BACKEND_ONLY = {"--profile", "--protocol"}
# Flags of a model's control (frame-by-frame and tool calls refuse the reference agent these fixtures
# run): each reaches the stored config in tests/test_control_modes.py (--action-format:
# tests/test_tool_calls_run.py).
CONTROL_ONLY = {"--control", "--observe", "--observe-max-images", "--action-format"}
# Flags only --model human takes (refused for the reference agent these fixtures run): each reaches
# the stored config in tests/test_human_runs_alone.py (eval --human-frames files).
HUMAN_ONLY_EVAL = {"--human-frames"}
# Needs a Ray cluster: reaches the stored config in tests/test_ray_executor.py (run --ray-address).
RAY_ONLY = {"--ray-address"}


def _args(flags: dict[str, tuple[str | None, str, Any]]) -> list[str]:
    out: list[str] = []
    for flag, (value, _, _) in flags.items():
        out += [flag] if value is None else [flag, value]
    return out


def _field(config: dict[str, Any], path: str) -> Any:
    for key in path.split("."):
        config = config[key]
    return config


@pytest.fixture(scope="module")
def run_config(tmp_path_factory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("run-flags")
    db = f"sqlite:///{tmp / 'runs.db'}"
    data = json.loads(
        run_cli(
            [
                "run",
                "--env",
                "gridworld",
                "--task",
                "BabyAI-GoToLocal-v0",
                "--max-scripts",
                "1",
                "--db",
                db,
                "--json",
                *_args({**COMMON, **RUN_ONLY}),
            ],
            tmp,
            cli_env(),
        ).stdout
    )
    return TranscriptStore(db).get_run(data["run_id"]).config


@pytest.fixture(scope="module")
def eval_config(tmp_path_factory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("eval-flags")
    db = f"sqlite:///{tmp / 'runs.db'}"
    (tmp / "exp.yaml").write_text("name: flags\nenv: gridworld\ntasks: [BabyAI-GoToLocal-v0]\ntrials: 1\n")
    data = json.loads(
        run_cli(
            ["eval", "exp.yaml", "--db", db, "--json", *_args({**COMMON, **EVAL_ONLY})], tmp, cli_env()
        ).stdout
    )
    return TranscriptStore(db).get_run(data["run_id"]).config


@pytest.mark.parametrize("flag", [*COMMON, *RUN_ONLY])
def test_run_flag_reaches_the_run_config(run_config, flag):
    _, field, expected = {**COMMON, **RUN_ONLY}[flag]
    assert _field(run_config, field) == expected


@pytest.mark.parametrize("flag", [*COMMON, *EVAL_ONLY])
def test_eval_flag_reaches_the_run_config(eval_config, flag):
    _, field, expected = {**COMMON, **EVAL_ONLY}[flag]
    assert _field(eval_config, field) == expected


def test_image_size_also_sets_the_render_size(run_config, eval_config):
    assert run_config["backend_options"]["render_size"] == 64 == eval_config["backend_options"]["render_size"]


def test_every_declared_flag_is_tested_and_documented_in_help(tmp_path):
    assert {f.decl.split("/")[0] for f in COMMON_FLAGS} == set(COMMON) | BACKEND_ONLY | CONTROL_ONLY
    assert {f.decl.split("/")[0] for f in RUN_FLAGS} == set(RUN_ONLY) | RAY_ONLY
    assert {f.decl.split("/")[0] for f in EVAL_FLAGS} == set(EVAL_ONLY) | HUMAN_ONLY_EVAL
    for command, flags in (
        ("run", [*COMMON, *RUN_ONLY, *RAY_ONLY, *BACKEND_ONLY, *CONTROL_ONLY]),
        ("eval", [*COMMON, *EVAL_ONLY, *HUMAN_ONLY_EVAL, *BACKEND_ONLY, *CONTROL_ONLY]),
    ):
        shown = run_cli([command, "--help-all"], tmp_path, {**cli_env(), "COLUMNS": "250"}).stdout
        missing = [flag for flag in flags if flag not in shown]
        assert not missing, f"{command} --help lacks {missing}"


def test_bad_flag_values_are_refused_in_one_line(tmp_path):
    for extra, expected in (
        (["--price-per-mtok", "2.5"], "--price-per-mtok: give IN,OUT"),
        (
            ["--commands", "api", "--env", "aai-arena", "--task", "01-04-03"],
            "--commands: env 'aai-arena' has no such option",
        ),
    ):
        args = [
            "run",
            "--env",
            "gridworld",
            "--task",
            "BabyAI-GoToLocal-v0",
            "--db",
            f"sqlite:///{tmp_path / 'runs.db'}",
            *extra,
        ]
        proc = run_cli(args, tmp_path, cli_env(), check=False)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert proc.returncode == 2 and len(lines) == 1 and expected in lines[0], proc.stderr


def test_modality_is_refused_where_the_env_names_none(tmp_path):
    proc = run_cli(
        [
            "run",
            "--env",
            "aai-arena",
            "--task",
            "01-04-03",
            "--modality",
            "ascii",
            "--db",
            f"sqlite:///{tmp_path / 'runs.db'}",
        ],
        tmp_path,
        cli_env(),
        check=False,
    )
    assert proc.returncode == 2 and "--modality: env 'aai-arena' has no named modalities" in proc.stderr


def test_seed_is_refused_where_a_catalogue_sets_the_seeds(tmp_path):
    proc = run_cli(
        [
            "eval",
            "--env",
            "gridworld",
            "--difficulties",
            "easy",
            "--seed",
            "3",
            "--db",
            f"sqlite:///{tmp_path / 'runs.db'}",
        ],
        tmp_path,
        cli_env(),
        check=False,
    )
    assert (
        proc.returncode == 2
        and "--seed: a catalogue experiment plays its catalogue's own seeds" in proc.stderr
    )


def test_a_resumed_run_refuses_new_settings(tmp_path):
    proc = run_cli(
        ["eval", "--resume", "abc", "--timeout-s", "5", "--db", f"sqlite:///{tmp_path / 'runs.db'}"],
        tmp_path,
        cli_env(),
        check=False,
    )
    assert (
        proc.returncode == 2
        and "--timeout-s: a resumed run keeps the settings it was started with" in proc.stderr
    )
