"""Episode protocols (issue 27): agentkit's own and the LLM-AAI harness's, on the real arena, the real
loop and the real store.

A scripted episode (a valid script, an answer that does not parse, another valid script) is played
under each protocol and its step counts are asserted exactly: llm-aai lets 1 + 3 x 16 = 49 steps
pass and takes pictures at steps 1, 17 and 33 before the first answer, an unparsable answer costs
one idle step and gets the fixed reply, and when the scripts run out the clock is run down to the
arena's end. See docs/protocols.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agentkit.config import ObserverSettings, RunConfig
from agentkit.loop import run_episode
from agentkit.models.replay_model import ReplayModel
from agentkit.offline.replay import replay_episode
from agentkit.protocols import LLM_AAI, UNUSABLE_REPLY, start_observation_steps
from agentkit.records import EndReason, EpisodeResult, TurnRecord
from agentkit.runs.experiment import load_experiment
from agentkit.runs.runner import execute_run
from agentkit.runs.setup_episode import make_setup
from agentkit.testing.cli_runner import run_cli, run_json
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore
from agentkit.viewer import ViewerApp
from agentkit.viewer.queries import ViewerData

REPO = Path(__file__).resolve().parents[1]
TASK = "01-04-03"  # a Testbed task with a clock (417 steps) whose goal is out of reach of these scripts
CLOCK = 417
ANSWERS = ["Go(5);", "no script here", "Turn(12);"]  # 5 steps, unparsable (1 idle step), 2 steps
SMALL = {"render_size": 32}


class Turns:
    """A sink that keeps the turns in memory."""

    def __init__(self) -> None:
        self.turns: list[TurnRecord] = []

    def add_turn(self, episode_id: str, turn: TurnRecord) -> None:
        self.turns.append(turn)


def play(
    protocol: str, answers: list[str], env: str = "aai-arena", **config: Any
) -> tuple[EpisodeResult, list[TurnRecord], int]:
    """One scripted episode through the real loop: its result, its turns and the final step."""
    run_config = RunConfig(
        env=env,
        tasks=[TASK],
        model="replay",
        protocol=protocol,
        max_scripts=len(answers),
        observer=ObserverSettings(max_side=32),
        **{"backend_options": SMALL, **config},
    )
    setup = make_setup(run_config, model_factory=lambda backend: ReplayModel(answers))
    sink = Turns()
    try:
        result = run_episode(setup, TASK, 0, sink=sink, episode_id=f"{protocol}-episode")
        final = setup.backend.observe()
    finally:
        setup.backend.close()
    return result, sink.turns, final.step


def _steps(turns: list[TurnRecord]) -> list[tuple[int, int]]:
    """(the step the model was asked at, the steps its answer cost) of every turn."""
    return [(t.observation["step"], len(t.actions)) for t in turns]


def _text(message: Any) -> str:
    content = message.content
    return content if isinstance(content, str) else content[0].text


@pytest.mark.parametrize(
    ("protocol", "first_answer_at", "labels"),
    [("agentkit", 0, ["camera"]), ("llm-aai", 49, ["step 1", "step 17", "step 33"])],
)
def test_step_counts_of_a_scripted_episode_under_each_protocol(protocol, first_answer_at, labels):
    result, turns, final_step = play(protocol, ANSWERS)
    a = first_answer_at
    assert _steps(turns) == [(a, 5), (a + 5, 1), (a + 6, 2)]  # Go(5); the unparsable answer; Turn(12)
    assert turns[1].actions == [[0, 0]] and turns[1].parse_error is not None  # one idle step, the no-op
    assert [i["label"] for i in turns[0].observation["images"]] == labels  # the first prompt's pictures
    assert [i["label"] for i in turns[1].observation["images"]] == ["camera"]  # one view after a script
    # the scripts ran out: the clock is run down with the no-op to the arena's own end
    assert result.end_reason is EndReason.SCRIPT_LIMIT and final_step == CLOCK
    clock = result.metrics["clock_run_out"]
    assert (clock["idle_steps"], clock["ended"], clock["end_reason"]) == (CLOCK - (a + 8), True, "time_limit")
    assert len(result.actions) == a + 8 + 0  # the start's and the scripts' steps (the run-down is apart)
    if protocol == "llm-aai":
        assert result.metrics["protocol_start"] == {
            "protocol": "llm-aai",
            "idle_steps": 49,
            "observed_at": [1, 17, 33],
            "reward": pytest.approx(result.metrics["protocol_start"]["reward"]),
            "ended": False,
            "end_reason": None,
        }
        assert result.metrics["protocol_start"]["reward"] < 0  # the clock's cost of 49 steps
        assert result.actions[:49] == [[0, 0]] * 49
    else:
        assert "protocol_start" not in result.metrics


def test_the_start_is_one_step_then_three_pictures_each_followed_by_16_idle_steps():
    assert (LLM_AAI.start_idle_steps, LLM_AAI.start_observations, LLM_AAI.observation_wait) == (1, 3, 16)
    assert LLM_AAI.start_steps == 49 and start_observation_steps(LLM_AAI) == [1, 17, 33]


def test_an_unparsable_answer_gets_the_fixed_reply_under_llm_aai_and_the_parsers_under_agentkit():
    _, ours, _ = play("agentkit", ANSWERS)
    _, theirs, _ = play("llm-aai", ANSWERS)
    after_ours, after_theirs = _text(ours[2].messages[-1]), _text(theirs[2].messages[-1])
    assert UNUSABLE_REPLY in after_theirs and "I found no command" not in after_theirs
    assert "I found no command" in after_ours and UNUSABLE_REPLY not in after_ours
    first = _text(theirs[0].messages[-1])  # the first prompt says when its pictures were taken
    assert "Step: 49" in first and "step 1, step 17, step 33" in first  # the status block's step, once
    assert "3 pictures, taken\n16 steps apart" in _text(theirs[0].messages[0])  # and the system message
    assert (
        "protocol" not in ours[0].prompt_context and theirs[0].prompt_context["protocol"]["name"] == "llm-aai"
    )


def test_unparsable_answers_never_end_an_llm_aai_episode_and_each_costs_one_step():
    junk = ["nothing to run"] * 7  # more than max_parse_failures (5) in a row
    theirs, turns, _ = play("llm-aai", junk)
    assert theirs.end_reason is EndReason.SCRIPT_LIMIT and theirs.scripts == 7
    assert _steps(turns) == [(49 + i, 1) for i in range(7)]
    ours, turns, _ = play("agentkit", junk)
    assert ours.end_reason is EndReason.PARSE_FAILURE_LIMIT and ours.scripts == 5
    assert _steps(turns) == [(i, 1) for i in range(5)]


def test_the_unity_backend_plays_the_llm_aai_start_as_the_arena_does():
    """Through ML-Agents' protocol (the builtin build), the same steps and the same pictures."""
    result, turns, final_step = play(
        "llm-aai", ANSWERS, env="animalai", backend_options={"aai_build": "builtin", **SMALL}
    )
    assert _steps(turns) == [(49, 5), (54, 1), (55, 2)]
    assert [i["label"] for i in turns[0].observation["images"]] == ["step 1", "step 17", "step 33"]
    assert result.metrics["protocol_start"]["observed_at"] == [1, 17, 33]
    assert result.end_reason is EndReason.SCRIPT_LIMIT and final_step == CLOCK


def test_other_backends_and_frame_by_frame_refuse_it_in_one_line(tmp_path: Path):
    config = RunConfig(env="gridworld", tasks=["BabyAI-GoToLocal-v0"], protocol="llm-aai")
    with pytest.raises(ValueError, match=r"^--protocol llm-aai: the gridworld backend plays only agentkit"):
        make_setup(config, model_factory=lambda backend: ReplayModel([]))
    with pytest.raises(ValidationError, match="cannot be played frame by frame"):
        RunConfig(env="aai-arena", tasks=[TASK], model="x/y", protocol="llm-aai", control="frame-by-frame")
    with pytest.raises(ValueError, match="idle_action is None"):
        make_setup(
            RunConfig(
                env="aai-arena", tasks=[TASK], protocol="llm-aai", backend_options={"idle_action": None}
            )
        )
    proc = run_cli(
        ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--protocol", "llm-aai", "--db",
         f"sqlite:///{tmp_path / 'r.db'}"],
        tmp_path,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: --protocol llm-aai: the gridworld backend plays only agentkit (the LLM-AAI harness is "
        "Animal-AI's: aai-arena, animalai)"
    ]


def test_the_default_stays_ours_and_the_llm_aai_presets_use_the_harness():
    assert RunConfig(env="aai-arena", tasks=[TASK]).protocol == "agentkit"
    for preset in ("llm-aai-exp1", "llm-aai-exp2"):
        _, configs = load_experiment(REPO / "agentkit" / "presets" / f"{preset}.yaml")
        assert {c.protocol for c in configs} == {"llm-aai"}, preset


def test_the_protocol_and_the_start_are_stored_shown_and_replayed(tmp_path: Path):
    store = TranscriptStore(f"sqlite:///{tmp_path / 'runs.db'}")
    calls: list[int] = []

    def scripted(body: dict[str, Any]) -> str:
        calls.append(1)
        return ANSWERS[len(calls) - 1]

    config = RunConfig(
        env="aai-arena",
        tasks=[TASK],
        model="openai/fake-model",
        protocol="llm-aai",
        max_scripts=3,
        max_retries=0,
        max_attempts=1,
        timeout_s=10,
        observer=ObserverSettings(max_side=32),
        backend_options=SMALL,
    )
    with FakeOpenAIServer(scripted) as server:
        summary = execute_run(
            config.model_copy(update={"api_base": server.base_url}), store, show_progress=False
        )
        first_request = server.requests[0]
    assert summary.to_json()["protocol"] == "llm-aai"
    assert store.get_run(summary.run_id).config["protocol"] == "llm-aai"  # recorded with the run
    # the three pictures went to the model in its first prompt
    user = first_request["messages"][-1]["content"]
    assert sum(1 for part in user if part.get("type") == "image_url") == 3
    (episode,) = store.list_episodes(run_id=summary.run_id)
    turns = store.get_turns(episode.id, with_messages=False)
    assert [t.observation["step"] for t in turns] == [49, 54, 55]
    assert [i["label"] for i in turns[0].observation["images"]] == ["step 1", "step 17", "step 33"]
    assert episode.metrics["protocol_start"]["idle_steps"] == 49
    # the viewer: the start said on the episode page, its pictures shown, the path replayed through it
    page = ViewerApp(store).handle("GET", f"/episodes/{episode.id}").body.decode()
    assert re.search(r"protocol llm-aai: 49 idle steps before the first answer", page)
    assert "pictures taken at steps 1, 17, 33" in page and "step 17" in page
    path = ViewerData(store).step_path(episode.id)
    assert path, path.reason
    assert sum(1 for turn, _ in path.points if turn == -1) == 1 + 49  # the reset, then the start's steps
    assert sum(1 for turn, _ in path.points if turn == 0) == 5
    # replay plays the start again and meets the same turns and outcome
    report = replay_episode(store, episode.id)
    assert report.matches, report.mismatches


def test_agentkit_run_and_eval_take_the_flag_store_it_and_print_it(tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    proc = run_cli(
        [
            "run",
            "--env",
            "aai-arena",
            "--task",
            TASK,
            "--max-scripts",
            "1",
            "--protocol",
            "llm-aai",
            "--db",
            db,
        ],
        tmp_path,
    )
    assert "pass rule aai; protocol llm-aai" in proc.stdout  # the run's summary line says it
    (run,) = TranscriptStore(db).list_runs()
    assert run.config["protocol"] == "llm-aai"
    (episode,) = TranscriptStore(db).list_episodes(run_id=run.id)
    assert episode.metrics["protocol_start"]["idle_steps"] == 49
    # a preset's protocol can be set back to ours from the command line
    data = run_json(
        ["eval", "llm-aai-exp1", "--limit", "1", "--trials", "1", "--max-scripts", "1", "--protocol",
         "agentkit", "--db", db],
        tmp_path,
    )  # fmt: skip
    assert data["protocol"] == "agentkit"
    assert TranscriptStore(db).get_run(data["run_id"]).config["protocol"] == "agentkit"
