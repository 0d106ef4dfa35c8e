"""Seeds and episode counts out of range are refused by the real CLI with one line, before any run starts.

Before: ``--seed 2**63`` crashed on SQLite's 64-bit column (OverflowError), a negative seed on gridworld
made every episode end in ``env_error``, and ``--episodes 100000000`` ran out of memory planning them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agentkit.config import MAX_EPISODES, MAX_SEED, RunConfig
from agentkit.testing.cli_runner import run_cli

TASK = "BabyAI-GoToLocal-v0"


def refused(args: list[str], cwd: Path) -> str:
    """The one error line of a refused command; the database must hold no run."""
    db = cwd / "limits.db"
    proc = run_cli([*args, "--db", f"sqlite:///{db}"], cwd, check=False, timeout=120)
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    if db.exists():
        con = sqlite3.connect(db)
        try:
            tables = {row[0] for row in con.execute("select name from sqlite_master where type='table'")}
            assert "runs" not in tables or con.execute("select count(*) from runs").fetchone()[0] == 0
        finally:
            con.close()
    return lines[0]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            ["--seed", str(2**63)],
            "seed: Value error, seeds must be whole numbers from 0 to 9223372036854775807",
        ),
        (["--seed", str(2**64 + 5)], "got 18446744073709551621"),
        (["--seed", "-1"], "got -1"),
        (["--seed", str(MAX_SEED - 3), "--episodes", "10"], "and so must seed + episodes - 1"),
        (["--episodes", "100000000"], "episodes: Value error, a run plays at most 1,000,000 episodes"),
    ],
    ids=["2^63", "2^64+5", "negative", "last-seed-overflows", "1e8-episodes"],
)
def test_run_refuses_seeds_and_counts_out_of_range(tmp_path: Path, options: list[str], expected: str) -> None:
    line = refused(["run", "--env", "gridworld", "--task", TASK, *options], tmp_path)
    assert line.startswith("error: invalid option: ") and expected in line, line


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (f"tasks: [{TASK}]\nseed: -5\n", "field seed: Value error, seeds must be whole numbers from 0"),
        (f"tasks: [{TASK}]\nseed: {2**63}\n", "field seed: Value error"),
        (
            f"tasks: [{TASK}]\ntrials: 100000000\n",
            "field trials: Input should be less than or equal to 1000000",
        ),
        (
            f"tasks: [{TASK}, {TASK}]\ntrials: 600000\n",
            "a run plays at most 1,000,000 episodes (600,000 per task x 2",
        ),
        (
            "catalogue: {seeds_per_pair: 100000000}\n",
            "field catalogue.seeds_per_pair: Input should be less than",
        ),
    ],
    ids=["negative-seed", "seed-2^63", "1e8-trials", "tasks-x-trials", "catalogue-seeds"],
)
def test_eval_refuses_experiment_files_out_of_range(tmp_path: Path, body: str, expected: str) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text("env: gridworld\n" + body, encoding="utf-8")
    line = refused(["eval", str(path)], tmp_path)
    assert line.startswith(f"error: {path}: ") and expected in line, line


def test_eval_of_the_catalogue_refuses_an_absurd_seed_count(tmp_path: Path) -> None:
    line = refused(["eval", "--env", "gridworld", "--seeds-per-pair", "100000000"], tmp_path)
    assert line == "error: field catalogue.seeds_per_pair: Input should be less than or equal to 10000", line


def test_the_largest_seeds_are_accepted_and_the_plan_is_lazy() -> None:
    config = RunConfig(env="gridworld", tasks=[TASK], seed=MAX_SEED - 1, episodes=2)
    assert list(config.episode_plan()) == [(TASK, 0, MAX_SEED - 1), (TASK, 1, MAX_SEED)]
    big = RunConfig(env="gridworld", tasks=[TASK], episodes=MAX_EPISODES)
    plan = big.episode_plan()
    assert next(iter(plan)) == (TASK, 0, 0) and not isinstance(plan, list)


def test_a_seed_at_the_top_of_the_range_plays_and_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "top.db"
    run_cli(
        [
            "run",
            "--env",
            "gridworld",
            "--task",
            TASK,
            "--seed",
            str(MAX_SEED),
            "--db",
            f"sqlite:///{db}",
            "--json",
        ],
        tmp_path,
        timeout=300,
    )
    con = sqlite3.connect(db)
    try:
        seeds = [row[0] for row in con.execute("select seed from episodes")]
    finally:
        con.close()
    assert seeds == [MAX_SEED]
