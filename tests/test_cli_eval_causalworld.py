"""`agentkit eval causalworld`: CausalWorld's evaluation protocols of a task as one stored run.

A tiny real run (reaching's three protocols, one episode each, the reference agent): pure JSON on
stdout with the per-protocol metrics, every episode run to CausalWorld's full length and stored,
the bar chart written, ``--resume`` re-scoring from the store, and bad input refused in one line
before any database is made.
"""

from __future__ import annotations

import json

from agentkit.testing.cli_runner import run_cli


def test_reaching_with_the_reference_agent_scores_every_protocol_and_resumes(tmp_path):
    db = f"sqlite:///{tmp_path / 'cw.db'}"
    figure = tmp_path / "chart.png"
    args = ["eval", "causalworld", "--task", "reaching", "--model", "reference"]
    args += ["--episodes-per-protocol", "1", "--seed", "3", "--db", db, "--figure", str(figure)]
    played = run_cli(args, tmp_path)
    assert "CausalWorld evaluation: reaching" in played.stdout and figure.stat().st_size > 0

    # --resume plays nothing more and scores the run again from the store; --json: one document
    data = json.loads(
        run_cli(["eval", "--resume", _run_id(played.stdout), "--db", db, "--json"], tmp_path).stdout
    )
    board = data["causalworld"]
    assert (board["task"], board["episodes_per_protocol"], board["first_seed"]) == ("reaching", 1, 3)
    assert [row["protocol"] for row in board["protocols"]] == ["P0", "P5", "P12"]
    episodes = {e["task"]: e for e in data["episodes"]}
    assert set(episodes) == {"reaching@P0", "reaching@P5", "reaching@P12"}
    assert episodes["reaching@P0"]["success"]  # the default targets: the reference reaches them
    for row in board["protocols"]:
        assert row["episodes"] == 1 and 0.0 <= row["mean_last_fractional_success"] <= 1.0
        assert row["std_last_fractional_success"] == 0.0  # one episode
        assert row["mean_full_integrated_fractional_success"] is not None
        episode = episodes[f"reaching@{row['protocol']}"]
        assert episode["seed"] == 3 and episode["control_steps"] == 125  # 5 s of 40 ms, never cut short
        assert row["mean_last_fractional_success"] == episode["last_fractional_success"]
        # the table printed while playing shows the same mean, and the episode's line the verdict
        # the run's rate counts (solved at the time limit is a success, not a fail)
        line = next(x for x in played.stdout.splitlines() if f" {row['protocol']} " in x)
        assert f"{row['mean_last_fractional_success']:.3f}" in line
        word = "pass" if episode["success"] else "fail"
        assert f"{episode['episode_id']}  reaching@{row['protocol']}  trial=0  {word}" in played.stdout


def _run_id(stdout: str) -> str:
    """The run id of the summary line ``run RUN_ID (MODEL): ...``."""
    return next(line.split()[1] for line in stdout.splitlines() if line.startswith("run "))


def test_a_bad_task_and_a_profile_that_undoes_the_evaluation_fail_in_one_line(tmp_path):
    db = tmp_path / "never.db"
    for extra, message in (
        (["--task", "pushy"], "'pushy' has no CausalWorld evaluation protocols"),
        ([], "name CausalWorld's task with --task"),
        (["--task", "pushing", "--profile", "agentkit"], "--profile: CausalWorld's evaluation runs"),
    ):
        proc = run_cli(["eval", "causalworld", *extra, "--db", f"sqlite:///{db}"], tmp_path, check=False)
        assert proc.returncode == 2 and proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1 and message in proc.stderr
    assert not db.exists()
