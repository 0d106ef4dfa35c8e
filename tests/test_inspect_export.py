"""``agentkit transcripts export --format inspect``: an agentkit run as an Inspect log that Inspect reads.

A run played by agentkit's reference agent (two tasks, two trials each) is exported through the real
CLI; Inspect's ``read_eval_log`` must read it back with one sample per episode (task and trial as id
and epoch), every turn's answer in the conversation, and agentkit's pass and reward as the scores.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

import agentkit

TASKS = ["gridworld/goto-object-easy", "gridworld/reach-goal-easy"]


def _export(db: Path, target: str, out: Path) -> subprocess.CompletedProcess[str]:
    agentkit_cli = Path(sys.executable).with_name("agentkit")
    return subprocess.run(
        [
            str(agentkit_cli),
            "transcripts",
            "export",
            target,
            "--db",
            f"sqlite:///{db}",
            "--format",
            "inspect",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_a_run_exported_as_an_inspect_log_reads_back(tmp_path: Path, suffix: str) -> None:
    db = tmp_path / "runs.db"
    summary = agentkit.run("gridworld", TASKS, db=db, episodes=2, max_scripts=3)
    out = tmp_path / f"run{suffix}"
    done = _export(db, summary.run_id, out)
    assert done.returncode == 0, done.stderr
    log = read_eval_log(str(out))
    assert log.status == "success" and log.eval.model == "reference"
    assert log.eval.metadata["agentkit_run_id"] == summary.run_id
    assert sorted((s.id, s.epoch) for s in log.samples) == sorted((t, e) for t in TASKS for e in (1, 2))
    with agentkit.open_store(db, read_only=True) as store:
        for sample in log.samples:
            episode = next(e for e in summary.episodes if e.task == sample.id and e.trial == sample.epoch - 1)
            answers = [t.answer for t in store.get_turns(episode.episode_id)]
            assert [m.text for m in sample.messages if m.role == "assistant"] == answers
            assert sample.messages[0].role == "system"
            assert sample.scores["agentkit_score"].value == {
                "pass": 1.0 if episode.success else 0.0,
                "reward": pytest.approx(episode.reward),
            }
    means = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert means == {
        "pass": pytest.approx(summary.pass_rate),
        "reward": pytest.approx(sum(e.reward for e in summary.episodes) / 4),
    }


def test_an_unknown_run_or_a_wrong_suffix_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    summary = agentkit.run("gridworld", TASKS[0], db=db, max_scripts=1)
    done = _export(db, "nope", tmp_path / "run.eval")
    assert done.returncode != 0 and done.stderr.strip().splitlines() == ["error: no run 'nope'"]
    done = _export(db, summary.run_id, tmp_path / "run.txt")
    assert (
        done.returncode != 0
        and "name a .eval or .json file" in done.stderr
        and "Traceback" not in done.stderr
    )
