"""One outcome vocabulary (issue 30 item 6): every command, summary and listing calls an episode's
verdict "pass" or "fail" (or says why it has none: "incomplete", "no-verdict"), on every backend.

Animal-AI counts the pass mark, gridworld and TriFinger their success flag, but the words are the
same: a gridworld episode was a "failure" in `agentkit run` and a "fail" in `agentkit eval`. The
commands run as real subprocesses; a source scan finds any new place that prints the old words.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentkit.config import RunConfig
from agentkit.outcome_words import OUTCOMES, outcome_word, verdict, verdict_text
from agentkit.records import EndReason, EpisodeResult
from agentkit.runs.runner import RunSummary
from agentkit.testing.cli_runner import run_cli, run_json

ROOT = Path(__file__).resolve().parents[1]
OLD_WORDS = re.compile(r"\b(success|failure)\b", re.IGNORECASE)


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
    assert grid.pass_rate == 1.0 and grid.to_json()["outcome"] == "pass"
    assert verdict(True, {"pass": False}) is False and verdict(None, {}) is None
    assert [verdict_text(v) for v in (True, False, None)] == ["pass", "fail", "no-verdict"]
    assert set(OUTCOMES) == {"pass", "fail", "incomplete", "no-verdict"}
    for env in ("aai-arena", "gridworld", "trifinger", "animalai"):
        assert outcome_word(env).word == "pass"
    assert "90%" in outcome_word("trifinger").meaning  # what a pass means still differs per backend


def _printed_words(text: str) -> list[str]:
    """The old words in printed lines, leaving out "success" as the name of a metric (success_rate)."""
    return [
        m.group(0) for line in text.splitlines() for m in OLD_WORDS.finditer(line.replace("_success", ""))
    ]


@pytest.mark.parametrize("env,task", [("aai-arena", "01-04-03"), ("gridworld", "BabyAI-GoToLocal-v0")])
def test_every_command_says_pass_or_fail(tmp_path, env, task):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    run = run_cli(["run", "--env", env, "--task", task, "--episodes", "2", "--db", db], tmp_path).stdout
    summary = next(line for line in run.splitlines() if line.startswith("run "))
    assert "pass rate" in summary and f"pass: {outcome_word(env).meaning}" in summary, summary
    episode_lines = [line for line in run.splitlines() if f"  {task}  seed=" in line]
    assert len(episode_lines) == 2 and all(re.search(r"  (pass|fail)  ", line) for line in episode_lines)
    data = run_json(["run", "--env", env, "--task", task, "--db", db], tmp_path)
    assert data["outcome"] == "pass"

    experiment = tmp_path / "exp.yaml"
    experiment.write_text(f"env: {env}\ntasks: ['{task}']\ntrials: 1\nmodel: reference\n", encoding="utf-8")
    evaluated = run_cli(["eval", str(experiment), "--db", db], tmp_path).stdout
    assert re.search(r"  (pass|fail)  ", evaluated) and "pass rate" in evaluated, evaluated

    listed = run_cli(["transcripts", "list", "--db", db], tmp_path, check=True).stdout
    assert re.search(r"\b(pass|fail)\b", listed), listed
    shown = run_cli(["transcripts", "show", data["episodes"][0]["episode_id"], "--db", db], tmp_path).stdout
    assert re.search(r"outcome=(pass|fail)", shown), shown
    for text in (run, evaluated, listed, shown.splitlines()[0]):
        assert _printed_words(text) == [], text


# Places that may still write the old words: they name a metric or a flag, not an episode's verdict.
_ALLOWED = {
    "agentkit/viewer/queries.py",  # OUTCOME_ALIASES: old links' ?outcome=success still filter
    "agentkit/outcome_words.py",  # its docstring tells the history
    "agentkit/inspect_tasks/export_log.py",  # Inspect's own log schema: a run's status "success"
    "agentkit/evals/gridworld/leaderboard.py",  # the leaderboard's metric named "success" (a flag, not a word)
}
_VERDICT_LITERAL = re.compile(
    r"""["'](success|failure)["']\s*(if|else|\})|(then|else)\s+["'](success|failure)["']"""
)


def test_no_source_prints_the_old_words_as_a_verdict():
    """A scan of the package and its templates: no string "success"/"failure" chosen by a verdict
    (``'success' if ok else 'fail'``, ``{"pass": ..., "success": "failure"}``) outside the allowed files."""
    found = []
    for path in [*ROOT.glob("agentkit/**/*.py"), *ROOT.glob("agentkit/**/*.html")]:
        name = path.relative_to(ROOT).as_posix()
        if name in _ALLOWED:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _VERDICT_LITERAL.search(line) or re.search(r">\s*(success|failure)\s*<", line):
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == [], "\n".join(found)


def test_the_scan_can_fail():
    """The pattern the scan uses does see the old forms."""
    assert _VERDICT_LITERAL.search("f\"{'success' if r['success'] else 'fail'}\"")
    assert _VERDICT_LITERAL.search('{"pass": "fail", "success": "failure"}')
