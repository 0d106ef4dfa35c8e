"""One outcome word: `agentkit run` and `eval` count and name the same verdict (Animal-AI: pass, the task's
pass mark; other backends: success, saying what it means), and the run JSON carries it."""

from __future__ import annotations

import pytest

from agentkit.config import RunConfig
from agentkit.outcome_words import outcome_word, verdict
from agentkit.records import EndReason, EpisodeResult
from agentkit.runner import RunSummary
from agentkit.testing.cli_runner import run_cli, run_json


def _result(task: str, success: bool, passed: bool | None) -> EpisodeResult:
    metrics = {} if passed is None else {"pass": passed, "level": 1}
    return EpisodeResult(
        episode_id=task,
        task=task,
        seed=0,
        success=success,
        reward=0.1,
        end_reason=EndReason.GOAL,
        scripts=1,
        turns=1,
        trial=0,
        metrics=metrics,
    )


def test_the_run_summary_counts_the_pass_mark_not_the_goal():
    # a goal reached below the pass mark is a success but not a pass: the rate counts the pass
    summary = RunSummary(
        "r1",
        RunConfig(env="aai-arena", tasks=["01-04-03"]),
        [_result("a", True, False), _result("b", True, True)],
    )
    assert summary.success_rate == 1.0 and summary.pass_rate == 0.5 and summary.passed == 1
    data = summary.to_json()
    assert data["outcome"] == "pass" and data["pass_rate"] == 0.5 and "pass mark" in data["outcome_meaning"]
    grid = RunSummary(
        "r2", RunConfig(env="gridworld", tasks=["BabyAI-GoToLocal-v0"]), [_result("c", True, None)]
    )
    assert grid.pass_rate == 1.0 and grid.to_json()["outcome"] == "success"
    assert verdict(True, {"pass": False}) is False and verdict(None, {}) is None
    assert outcome_word("trifinger").word == "success" and "90%" in outcome_word("trifinger").meaning


@pytest.mark.parametrize(
    "env,task,word", [("aai-arena", "01-04-03", "pass"), ("gridworld", "BabyAI-GoToLocal-v0", "success")]
)
def test_agentkit_run_names_its_outcome(tmp_path, env, task, word):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    proc = run_cli(["run", "--env", env, "--task", task, "--db", db], tmp_path)
    line = next(line for line in proc.stdout.splitlines() if line.startswith("run "))
    assert f"{word} rate" in line and f"{word}: {outcome_word(env).meaning}" in line, line
    episode_line = next(line for line in proc.stdout.splitlines() if f"  {task}  seed=" in line)
    other = {"pass": "success", "success": "pass"}[word]  # each episode line says the run's word too
    assert f"  {word}  " in episode_line and other not in episode_line, episode_line
    data = run_json(["run", "--env", env, "--task", task, "--db", db], tmp_path)
    assert data["outcome"] == word and 0.0 <= data["pass_rate"] <= 1.0
