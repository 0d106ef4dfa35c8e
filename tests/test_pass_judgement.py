"""Pass judged as Animal-AI judges it (issue 14, item 7), on the real arena and the real loop.

An episode our limits stop runs out its clock with the no-op and is judged on the reward it ends
with; an episode that ended in a model or environment error is never a pass (rule ``aai``), or has
no verdict (rule ``llm-aai``, as the LLM-AAI code judged). ``agentkit run``, ``agentkit eval``, the
viewer and ``agentkit report aai`` read the same verdict. See docs/scoring.md.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path
from typing import Any

import pytest

from agentkit.cli.eval import run_json as eval_json
from agentkit.config import RunConfig
from agentkit.envs.animalai_common.tasks import load_task, packaged_task_ids
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.loop import run_episode
from agentkit.models.base import ModelError
from agentkit.models.replay_model import ReplayModel
from agentkit.records import EndReason, EpisodeResult, ModelReply
from agentkit.reports.run_results import read_run
from agentkit.runs.runner import execute_run
from agentkit.runs.setup_episode import make_setup
from agentkit.testing.cli_runner import cli_env, run_json
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore
from agentkit.viewer import ViewerApp
from agentkit.viewer.queries import ViewerData

PASS_MARKS = {task: load_task(task).first().pass_mark for task in packaged_task_ids()}
# A task whose pass mark is below 0 but above what a full clock costs (-1): the old rule passed it
# for a model that never played; running out the clock fails it (01-08-01: one GoodGoal, -0.5).
NEGATIVE = next(t for t, mark in PASS_MARKS.items() if mark is not None and -1 < mark < 0)
# A task whose pass mark lies below a full clock's cost: only staying away from its BadGoal passes
# (01-24-01, -1.05), so a child who stands still until the time is up passes it.
AVOIDANCE = next(t for t, mark in PASS_MARKS.items() if mark is not None and mark < -1)
TURN = "Turn(6);"  # one step that reaches no goal


class RaisingModel:
    """A model whose every call fails, as an unreachable provider does after its retries."""

    name = "raising"

    def complete(self, messages: list[dict[str, Any]]) -> ModelReply:
        raise ModelError("the provider could not be reached")


class BreaksTheWorld:
    """Answers a valid script, but the simulator dies while the model thinks (its world is closed)."""

    name = "breaks-the-world"

    def __init__(self, backend: ArenaBackend) -> None:
        self.backend = backend

    def complete(self, messages: list[dict[str, Any]]) -> ModelReply:
        self.backend.close()
        return ModelReply(text="Go(1);")


def play(
    task: str, model_factory, rule: str = "aai", env: str = "aai-arena", **config: Any
) -> tuple[EpisodeResult, Any]:
    """One episode through the real loop (the arena unless ``env`` says otherwise); the result and
    the world's final state."""
    run_config = RunConfig(
        env=env, tasks=[task], model="replay", include_images=False, pass_rule=rule, **config
    )
    setup = make_setup(run_config, model_factory=model_factory)
    try:
        result = run_episode(setup, task, 0)
        try:
            final = setup.backend.observe()
        except RuntimeError:  # the world was closed (the environment-error case)
            final = None
        return result, final
    finally:
        setup.backend.close()


def idle_episode_length(task: str) -> int:
    """Steps an episode of ``task`` lasts when the agent never moves (its clock, measured)."""
    backend = ArenaBackend(frames=False)
    try:
        backend.reset(task, 0)
        steps = 1
        while not backend.step([0, 0]).done:
            steps += 1
        return steps
    finally:
        backend.close()


def test_the_chosen_tasks_are_the_cases_the_rule_is_about():
    assert -1 < PASS_MARKS[NEGATIVE] < 0 and PASS_MARKS[AVOIDANCE] < -1
    assert sum(1 for mark in PASS_MARKS.values() if mark is not None and mark < 0) == 39


@pytest.mark.parametrize(
    "model_factory",
    [lambda backend: ReplayModel([]), lambda backend: RaisingModel()],
    ids=["replay-with-no-answers", "raising-model"],
)
def test_a_model_error_at_turn_0_is_not_a_pass_on_a_negative_pass_mark_task(model_factory):
    result, _ = play(NEGATIVE, model_factory)
    assert result.end_reason is EndReason.MODEL_ERROR and result.turns == 0
    assert result.reward >= PASS_MARKS[NEGATIVE]  # judged on the reward so far, it would pass
    assert result.success is False and result.metrics["pass"] is False
    assert "clock_run_out" not in result.metrics  # a broken episode is not played on


def test_an_environment_error_is_never_a_pass():
    result, _ = play(NEGATIVE, BreaksTheWorld)
    assert result.end_reason is EndReason.ENV_ERROR
    assert result.reward >= PASS_MARKS[NEGATIVE]
    assert result.success is False and result.metrics["pass"] is False


def test_a_script_limit_stop_runs_out_the_clock_and_is_judged_on_the_final_reward():
    result, final = play(NEGATIVE, lambda backend: ReplayModel([TURN, TURN]), max_scripts=2)
    clock = result.metrics["clock_run_out"]
    assert result.end_reason is EndReason.SCRIPT_LIMIT
    assert clock["reward_when_stopped"] >= PASS_MARKS[NEGATIVE]  # the old rule passed it here
    # the world went on idly to the end of its clock: the episode lasted as long as an idle one
    assert len(result.actions) + clock["idle_steps"] == idle_episode_length(NEGATIVE)
    assert clock["ended"] is True and clock["end_reason"] == "time_limit"
    assert final.done and final.health == 0
    assert result.reward == pytest.approx(clock["reward_when_stopped"] + clock["reward"])
    assert result.reward < PASS_MARKS[NEGATIVE]  # the clock's cost took it below the pass mark
    assert result.success is False and result.metrics["pass"] is False


def test_a_parse_failure_stop_runs_out_the_clock_too():
    result, final = play(
        NEGATIVE, lambda backend: ReplayModel(["I am not sure what to do."] * 2), max_parse_failures=2
    )
    assert result.end_reason is EndReason.PARSE_FAILURE_LIMIT
    assert result.metrics["clock_run_out"]["idle_steps"] > 0 and final.done
    assert result.reward < PASS_MARKS[NEGATIVE] and result.metrics["pass"] is False


def test_standing_still_until_the_time_is_up_passes_the_avoidance_task():
    result, final = play(AVOIDANCE, lambda backend: ReplayModel([TURN]), max_scripts=1)
    assert result.end_reason is EndReason.SCRIPT_LIMIT and final.done
    assert result.reward >= PASS_MARKS[AVOIDANCE]
    assert result.success is True and result.metrics["pass"] is True  # success and pass never disagree


def test_an_untimed_arena_stopped_by_a_limit_has_no_clock_and_is_not_a_pass_without_reward(tmp_path: Path):
    arena = tmp_path / "untimed.yaml"
    arena.write_text(
        "!ArenaConfig\narenas:\n  0: !Arena\n    pass_mark: -0.5\n    t: 0\n    items:\n"
        "    - !Item\n      name: Agent\n      positions:\n      - !Vector3 {x: 20, y: 0, z: 5}\n      rotations: [0]\n"
        "    - !Item\n      name: GoodGoal\n      positions:\n      - !Vector3 {x: 20, y: 0, z: 35}\n"
        "      sizes:\n      - !Vector3 {x: 1, y: 1, z: 1}\n",
        encoding="utf-8",
    )
    result, final = play(str(arena), lambda backend: ReplayModel([TURN, TURN]), max_scripts=2)
    assert result.end_reason is EndReason.SCRIPT_LIMIT
    assert result.metrics["clock_run_out"]["idle_steps"] == 0 and not final.done
    assert result.reward >= -0.5  # at the pass mark, but not an end Animal-AI would judge
    assert result.success is False and result.metrics["pass"] is False


def test_the_unity_backend_runs_out_the_clock_as_the_arena_does():
    """Through ML-Agents' protocol (the builtin build): the build's own clock ends the episode."""
    direct, _ = play(NEGATIVE, lambda backend: ReplayModel([TURN, TURN]), max_scripts=2)
    through, final = play(
        NEGATIVE,
        lambda backend: ReplayModel([TURN, TURN]),
        env="animalai",
        max_scripts=2,
        backend_options={"aai_build": "builtin", "render_size": 16},
    )
    assert through.end_reason is EndReason.SCRIPT_LIMIT and final.done
    clock, want = through.metrics["clock_run_out"], direct.metrics["clock_run_out"]
    assert (clock["idle_steps"], clock["ended"], clock["end_reason"]) == (
        want["idle_steps"],
        True,
        "time_limit",
    )
    assert through.reward == pytest.approx(direct.reward, abs=1e-4)  # the protocol carries float32 rewards
    assert through.success is False and through.metrics["pass"] is False


def test_the_llm_aai_rule_runs_out_the_clock_the_same_and_leaves_errors_without_a_verdict():
    aai, _ = play(NEGATIVE, lambda backend: ReplayModel([TURN, TURN]), max_scripts=2)
    llm, _ = play(NEGATIVE, lambda backend: ReplayModel([TURN, TURN]), rule="llm-aai", max_scripts=2)
    assert (llm.reward, llm.metrics, llm.success) == (aai.reward, aai.metrics, aai.success)
    broken, _ = play(NEGATIVE, lambda backend: RaisingModel(), rule="llm-aai")
    assert broken.end_reason is EndReason.MODEL_ERROR
    assert broken.success is False and broken.metrics["pass"] is None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _turning(body: dict[str, Any]) -> str:
    return TURN


def test_run_eval_viewer_and_report_read_the_same_verdicts(tmp_path: Path):
    store = TranscriptStore(f"sqlite:///{tmp_path / 'judged.db'}")
    common = dict(
        env="aai-arena",
        model="openai/fake-model",
        include_images=False,
        max_retries=0,
        max_attempts=1,
        timeout_s=10,
    )
    with FakeOpenAIServer(_turning) as server:
        played = execute_run(
            RunConfig(tasks=[NEGATIVE, AVOIDANCE], api_base=server.base_url, max_scripts=2, **common),
            store,
            show_progress=False,
        )
    unreachable = f"http://127.0.0.1:{_free_port()}/v1"
    broken = execute_run(
        RunConfig(tasks=[NEGATIVE], api_base=unreachable, **common), store, show_progress=False
    )
    broken_llm = execute_run(
        RunConfig(tasks=[NEGATIVE], api_base=unreachable, pass_rule="llm-aai", **common),
        store,
        show_progress=False,
    )

    verdicts = {e.task: e.metrics["pass"] for e in played.episodes}
    assert verdicts == {NEGATIVE: False, AVOIDANCE: True}
    assert [e.end_reason for e in broken.episodes + broken_llm.episodes] == [EndReason.MODEL_ERROR] * 2
    data = ViewerData(store)
    expected = {
        played.run_id: {NEGATIVE: False, AVOIDANCE: True},
        broken.run_id: {NEGATIVE: False},
        broken_llm.run_id: {NEGATIVE: None},
    }
    for summary in (played, broken, broken_llm):
        want = expected[summary.run_id]
        # agentkit run: success of each episode and the success rate over those with a verdict
        assert {
            e.task: (e.success if e.metrics["pass"] is not None else None) for e in summary.episodes
        } == want
        judged = [v for v in want.values() if v is not None]
        assert summary.success_rate == (sum(judged) / len(judged) if judged else 0.0)
        # agentkit eval: the pass rate over episodes with a verdict
        assert eval_json(summary)["pass_rate"] == summary.success_rate
        # the store (and so the viewer): success column and badge
        stored = {e.task: e for e in store.list_episodes(run_id=summary.run_id)}
        rows = {row.task: row.outcome for row in data.episodes(run_id=summary.run_id).items}
        for task, verdict in want.items():
            assert stored[task].success is bool(verdict)
            assert rows[task] == {True: "pass", False: "fail", None: "no-verdict"}[verdict]
        # agentkit report aai: passes over pairs; an episode without a verdict is not counted
        results = read_run(store, summary.run_id)
        assert {t: (p.passed, p.n) for t, p in results.by_task.items()} == {
            t: (int(v), 1) for t, v in want.items() if v is not None
        }
        assert results.not_judged == sum(v is None for v in want.values())
        assert results.pass_rule.value == summary.config.pass_rule
    stopped = store.list_episodes(run_id=played.run_id)
    assert all(
        e.metrics["clock_run_out"]["idle_steps"] > 0 and e.metrics["clock_run_out"]["ended"] for e in stopped
    )  # stored with the episode
    app = ViewerApp(store)
    page = app.handle("GET", f"/episodes/{stopped[0].id}").body.decode()
    assert re.search(
        rf"\b{stopped[0].metrics['clock_run_out']['idle_steps']}\s+idle steps", page
    )  # said on the page
    void = store.list_episodes(run_id=broken_llm.run_id)[0]
    assert 'class="badge b-no-verdict"' in app.handle("GET", f"/episodes/{void.id}").body.decode()


def test_agentkit_eval_takes_the_rule_and_stores_it_with_the_run(tmp_path: Path):
    experiment = tmp_path / "broken.yaml"
    experiment.write_text(
        f"env: aai-arena\ntasks: [{NEGATIVE}]\nmodel: openai/fake-model\nmax_retries: 0\n"
        "max_attempts: 1\ninclude_images: false\n",
        encoding="utf-8",
    )
    db = f"sqlite:///{tmp_path / 'eval.db'}"
    from agentkit.testing.error_server import ErrorServer

    # a server that only fails (one nobody listens on is refused before the run: issue 16)
    with ErrorServer(500, {"error": {"message": "down", "type": "server_error"}}) as broken:
        data = run_json(
            ["eval", str(experiment), "--api-base", broken.base_url, "--pass-rule", "llm-aai", "--db", db],
            tmp_path,
        )
    assert data["pass_rule"] == "llm-aai" and data["not_judged"] == 1 and data["pass_rate"] == 0.0
    assert data["episodes"][0]["end_reason"] == "model_error" and data["episodes"][0]["pass"] is None
    assert TranscriptStore(db).get_run(data["run_id"]).config["pass_rule"] == "llm-aai"


def test_agentkit_run_and_report_agree_on_the_command_line(tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    with FakeOpenAIServer(_turning) as server:
        ran = run_json(
            [
                "run",
                "--env",
                "aai-arena",
                "--task",
                NEGATIVE,
                "--task",
                AVOIDANCE,
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--max-scripts",
                "2",
                "--no-images",
                "--db",
                db,
            ],
            tmp_path,
            cli_env(),
        )
    assert ran["pass_rule"] == "aai"
    assert {e["task"]: (e["success"], e["pass"]) for e in ran["episodes"]} == {
        NEGATIVE: (False, False),
        AVOIDANCE: (True, True),
    }
    report = run_json(
        [
            "report",
            "aai",
            "--runs",
            ran["run_id"],
            "--tasks",
            f"{NEGATIVE},{AVOIDANCE}",
            "--db",
            db,
            "--no-figure",
        ],
        tmp_path,
    )
    overall = report["overall"]
    assert (overall["passed"]["runs"][ran["run_id"]], overall["n"]["runs"][ran["run_id"]]) == (1, 2)
    assert report["pass_rules"] == {ran["run_id"]: "aai"}
    assert "pass mark" in report["pass_criterion"]
