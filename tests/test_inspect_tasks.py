"""agentkit's suites as Inspect tasks (issue 20 item 4): run with Inspect's mock model, scored and stored.

Each test first plays the task with agentkit's reference agent, then gives its answers to Inspect's
``mockllm`` model: the Inspect eval must then pass as the reference did (agentkit's pass and reward in
the log's scores) and leave the episode, turn by turn, in agentkit's store. An unusable answer must
score a fail, and ``inspect eval agentkit/...`` must find the tasks through the entry point.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, get_model

import agentkit
from agentkit.inspect_tasks import suite_task


def _reference_answers(env: str, task: str, db: Path) -> tuple[list[str], float]:
    summary = agentkit.run(env, task, db=db, max_scripts=5)
    episode = summary.episodes[0]
    assert episode.success
    with agentkit.open_store(db, read_only=True) as store:
        return [turn.answer for turn in store.get_turns(episode.episode_id)], episode.reward


def _mock(answers: list[str]) -> object:
    return get_model(
        "mockllm/model", custom_outputs=[ModelOutput.from_content("mockllm/model", a) for a in answers]
    )


def _scores(log: object) -> dict[str, float]:
    return {s.name: s.metrics["mean"].value for s in log.results.scores}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("env", "task"), [("gridworld", "gridworld/goto-object-easy"), ("aai-arena", "01-04-03")]
)
def test_mock_model_replaying_the_reference_passes_and_is_stored(tmp_path: Path, env: str, task: str) -> None:
    answers, reward = _reference_answers(env, task, tmp_path / "reference.db")
    db = tmp_path / "inspect.db"
    logs = inspect_eval(
        suite_task(env, task, db=str(db), max_scripts=5),
        model=_mock(answers),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    log = logs[0]
    assert log.status == "success", log.error
    assert _scores(log) == {"pass": 1.0, "reward": pytest.approx(reward)}
    with agentkit.open_store(db, read_only=True) as store:
        (run,) = store.list_runs()
        assert run.model == "inspect/mockllm/model" and run.status == "finished" and run.env == env
        (episode,) = store.list_episodes(run_id=run.id)
        assert episode.task == task and episode.success
        assert [t.answer for t in store.get_turns(episode.id)] == answers
    assert log.samples[0].metadata["agentkit"]["episode_id"] == episode.id
    assert log.samples[0].output.completion == answers[-1]


def test_an_unusable_answer_scores_a_fail(tmp_path: Path) -> None:
    db = tmp_path / "inspect.db"
    task = suite_task("gridworld", "gridworld/goto-object-easy", db=str(db), max_scripts=2, episodes=2)
    log = inspect_eval(
        task, model=_mock(["I would rather not."] * 4), log_dir=str(tmp_path / "logs"), display="none"
    )[0]
    assert _scores(log)["pass"] == 0.0
    with agentkit.open_store(db, read_only=True) as store:
        episodes = store.list_episodes()
        assert sorted(e.trial for e in episodes) == [0, 1] and not any(e.success for e in episodes)
        assert {e.seed for e in episodes} == {0, 1}  # trial i plays seed + i, as agentkit run plans it


def test_bad_settings_are_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^unknown gridworld task 'nope'"):
        suite_task("gridworld", "nope", db=str(tmp_path / "x.db"))
    with pytest.raises(ValueError, match=r"^agentkit task setting max_scripts: "):
        suite_task("gridworld", "gridworld-easy", db=str(tmp_path / "x.db"), max_scripts=0)


def test_inspect_eval_finds_agentkit_tasks_through_the_entry_point(tmp_path: Path) -> None:
    inspect = Path(sys.executable).with_name("inspect")
    done = subprocess.run(
        [
            str(inspect),
            "eval",
            "agentkit/suite",
            "-T",
            "env=gridworld",
            "-T",
            "tasks=gridworld/goto-object-easy",
            "-T",
            f"db={tmp_path / 'cli.db'}",
            "-T",
            "max_scripts=1",
            "--model",
            "mockllm/model",
            "--log-dir",
            str(tmp_path / "logs"),
            "--log-format",
            "json",
            "--display",
            "none",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (log_file,) = (tmp_path / "logs").glob("*.json")
    log = read_eval_log(str(log_file))
    assert (
        log.eval.task == "agentkit/suite" and _scores(log)["pass"] == 0.0
    )  # mockllm's default text is no script
    with agentkit.open_store(tmp_path / "cli.db", read_only=True) as store:
        (episode,) = store.list_episodes()
        assert episode.task == "gridworld/goto-object-easy" and episode.turns == 1
    assert json.loads(log_file.read_text())["status"] == "success"


@pytest.mark.parametrize(("memory", "last_prompt_length"), [("full", 6), ("markovian", 2)])
def test_the_memory_policy_shapes_what_inspects_model_is_sent(
    tmp_path: Path, memory: str, last_prompt_length: int
) -> None:
    answers, _ = _reference_answers("aai-arena", "01-04-03", tmp_path / "reference.db")
    assert len(answers) == 3  # system + three user prompts and two answers in full history at the third turn
    db = tmp_path / "inspect.db"
    log = inspect_eval(
        suite_task("aai-arena", "01-04-03", db=str(db), max_scripts=5, memory=memory),
        model=_mock(answers),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )[0]
    assert len(log.samples[0].messages) == last_prompt_length + 1  # the last prompt and its answer
    with agentkit.open_store(db, read_only=True) as store:
        (run,) = store.list_runs()
        assert run.config["memory"] == memory
        (episode,) = store.list_episodes(run_id=run.id)
        assert len(store.get_turns(episode.id)[-1].messages) == last_prompt_length
