"""Control modes (agentkit.control): frame-by-frame episodes and frames taken during a script.

The two episodes run the real pybullet arena (a 100-step arena whose goal stands ahead of the agent,
``tests/data/control_modes/goal_ahead.yaml``, frames of 32 pixels) against a model behind litellm;
HTTP is recorded in cassettes (``tests/cassettes/test_control_modes/``) from the local
OpenAI-compatible server. Re-record: ``.venv/bin/pytest tests/test_control_modes.py --record-mode=rewrite``.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agentkit.actions import Command, Script
from agentkit.cli._run_options import COMMON_FLAGS, RunFlags
from agentkit.config import ObserverSettings, RunConfig
from agentkit.control import parse_control, parse_observe
from agentkit.control.frame_watch import Taken, events_of, thin
from agentkit.control.primitive_answer import parse_primitive
from agentkit.envs.animalai_common.primitives import PRIMITIVES
from agentkit.envs.base import StepResult
from agentkit.loop import run_episode
from agentkit.models.openai_messages import to_openai
from agentkit.offline.replay import replay_episode
from agentkit.records import EndReason
from agentkit.runs.setup_episode import make_setup
from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.testing.fake_openai import FakeOpenAIServer, count_images

TEST_API_KEY = "sk-test-not-a-real-key-000000"
TASK = str(Path(__file__).parent / "data" / "control_modes" / "goal_ahead.yaml")
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*qualifier:UserWarning")


def _user_text(message: dict[str, Any]) -> str:
    content = message["content"]
    return (
        content if isinstance(content, str) else "\n".join(p["text"] for p in content if p["type"] == "text")
    )


def _images(message: dict[str, Any]) -> int:
    content = message["content"]
    return 0 if isinstance(content, str) else sum(p["type"] == "image_url" for p in content)


def stepper(body: dict[str, Any]) -> str:
    """Frame-by-frame: a first answer of prose (refused), then forward until the goal is touched."""
    if len(body["messages"]) == 2:  # system + the first turn
        return "I think I should go forward."
    return "`forward`"


def turner(body: dict[str, Any]) -> str:
    return f'Think("I see {count_images(body)} image(s)"); Turn(-72);'  # 12 steps of 6 degrees


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def endpoint(record_mode: str, request: pytest.FixtureRequest) -> Iterator[str]:
    if record_mode == "none":
        yield f"http://127.0.0.1:{_closed_port()}/v1"
        return
    with FakeOpenAIServer(request.param, api_key=TEST_API_KEY) as server:
        yield server.base_url


class _Turns:
    def __init__(self) -> None:
        self.turns: list[Any] = []

    def add_turn(self, episode_id: str, turn: Any) -> None:
        # The loop hands typed messages; this test reads them as the model client sends them.
        self.turns.append(replace(turn, messages=to_openai(turn.messages)))


def _play(base_url: str, **settings: Any):
    config = RunConfig(
        env="aai-arena",
        tasks=[TASK],
        model="openai/fake-model",
        api_base=base_url,
        observer=ObserverSettings(max_side=32),
        backend_options={"render_size": 32},
        **settings,
    )
    setup = make_setup(config, api_key=TEST_API_KEY)
    sink = _Turns()
    try:
        result = run_episode(setup, TASK, 0, sink=sink)
    finally:
        setup.backend.close()
    return result, sink.turns


@pytest.mark.vcr
@pytest.mark.parametrize("endpoint", [stepper], indirect=True)
def test_a_frame_by_frame_arena_episode_reaches_the_goal_n_steps_per_answer(endpoint):
    result, turns = _play(endpoint, control="frame-by-frame:5")
    assert result.end_reason == EndReason.GOAL and result.success
    system = turns[0].messages[0]["content"]
    assert "forward-left: each step: move forward and turn left 6 degrees" in system
    assert "Go(n)" not in system and "Think(" not in system
    # the prose answer is refused in one line, shown on the next turn, and the world waited one idle step
    first = turns[0]
    assert first.script is None and first.parse_error["code"] == "not_a_primitive"
    assert first.actions == [[0, 0]]
    assert "answer with exactly one action name (forward-left, forward-right, forward" in _user_text(
        turns[1].messages[-1]
    )
    # then every answer holds forward for 5 steps, until the goal ends the episode mid-answer
    moving = turns[1:]
    assert all(t.script == [{"name": "forward", "args": []}] for t in moving)
    assert [len(t.actions) for t in moving[:-1]] == [5] * (len(moving) - 1)
    assert 1 <= len(moving[-1].actions) <= 5 and moving[-1].done
    assert all(a == [1, 0] for t in moving for a in t.actions)
    assert "\nStep: 1\n" in _user_text(turns[1].messages[-1])  # the status block names the world's step
    assert "of at most" not in _user_text(turns[1].messages[-1])  # no count of answers: they are unlimited
    assert result.scripts == len(turns) > 2


@pytest.mark.vcr
@pytest.mark.parametrize("endpoint", [turner], indirect=True)
def test_a_script_with_observe_every_5_shows_the_frames_of_steps_5_and_10_next_turn(endpoint):
    result, turns = _play(endpoint, observe="every:5", max_scripts=2)
    assert result.end_reason == EndReason.SCRIPT_LIMIT and len(turns) == 2
    assert len(turns[0].actions) == 12 and _images(turns[0].messages[-1]) == 1
    second = turns[1].messages[-1]
    # steps 5 and 10 of the 12-step script, then the view now (a frame of step 12 would repeat it)
    assert _images(second) == 3
    assert [i["label"] for i in turns[1].observation["images"]] == ["step 5", "step 10", "camera"]
    assert "The attached pictures, in order: step 5, step 10, and now." in _user_text(second)
    assert "Step: 12" in _user_text(second)  # the step of the view now, said once, by the status block
    assert 'Think("I see 4 image(s)")' in turns[1].answer  # the first turn's one, and these three


def test_the_image_budget_keeps_evenly_spread_frames_and_the_latest(tmp_path):
    taken = [Taken(step, "", ()) for step in range(5, 65, 5)]  # 12 frames
    assert [t.step for t in thin(taken, 4)] == [5, 25, 40, 60]
    assert [t.step for t in thin(taken, 1)] == [60] and thin(taken, 12) == taken


def test_events_are_what_a_step_reports():
    assert events_of(StepResult(reward=-0.01, done=False)) == ""  # Animal-AI's health drain is no event
    assert events_of(StepResult(reward=2.5, done=True)) == "reward +2.50"
    assert (
        events_of(StepResult(reward=0.0, done=False, info={"touched": ["Wall"], "lights": "off"}))
        == "touched Wall; lights off"
    )


def test_observe_is_refused_in_one_line_where_the_backend_takes_no_frames_mid_script():
    from agentkit.control import make_control
    from agentkit.envs.trifinger.backend import TriFingerBackend

    with pytest.raises(ValueError, match="the trifinger backend cannot take frames during a script"):
        make_control("script", "every:5", 8, TriFingerBackend.__new__(TriFingerBackend))


def test_a_primitive_answer_is_read_strictly():
    names = [p.name for p in PRIMITIVES]
    assert names == [
        "forward-left",
        "forward-right",
        "forward",
        "back-left",
        "back-right",
        "back",
        "left",
        "right",
        "stay",
    ]
    for answer in (
        "forward-left",
        "  Forward-Left.\n",
        "`forward-left`",
        "```\nforward-left\n```",
        '"forward-left"',
    ):
        assert parse_primitive(answer, names) == Script((Command("forward-left"),)), answer
    for answer in ("forward left", "go forward-left", "forward-left; right", "Go(3)", "forward-leftt"):
        error = parse_primitive(answer, names)
        assert not isinstance(error, Script) and error.code == "not_a_primitive" and "\n" not in error.message
    assert parse_primitive("  ", names).code == "empty_answer"


def test_mode_specs_are_parsed_in_one_place():
    assert parse_control("script").spec == "script"
    assert parse_control("frame-by-frame").spec == "frame-by-frame:1"
    assert parse_control(" Frame-By-Frame:8 ").steps == 8
    assert parse_observe("every:5").every == 5 and parse_observe("events").spec == "events"
    for bad, option in (
        ("frames", "--control"),
        ("frame-by-frame:0", "--control"),
        ("frame-by-frame:x", "--control"),
    ):
        with pytest.raises(ValueError, match=option):
            parse_control(bad)
    for bad in ("every", "every:0", "sometimes"):
        with pytest.raises(ValueError, match="--observe"):
            parse_observe(bad)


def test_bad_control_settings_are_refused_in_one_line(tmp_path, fake_openai):
    for settings, expected in (
        ({"control": "frames"}, "--control: give script or frame-by-frame[:N]"),
        ({"observe": "every:0"}, "--observe every:K"),
        ({"observe": "every:5", "include_images": False}, "the run sends no images"),
        ({"observe": "events", "control": "frame-by-frame"}, "is for --control script"),
    ):
        with pytest.raises(ValueError, match=re.escape(expected)):
            RunConfig(env="aai-arena", tasks=[TASK], model="openai/x", **settings)
    cases = (
        (
            [
                "run",
                "--env",
                "aai-arena",
                "--task",
                "01-04-03",
                "--control",
                "frame-by-frame:4",
                "--db",
                f"sqlite:///{tmp_path / 'r.db'}",
            ],
            "needs a model that answers primitive actions",
        ),
        (
            [
                "run",
                "--env",
                "trifinger",
                "--task",
                "pushing",
                "--model",
                "openai/x",
                "--api-base",
                fake_openai.base_url,
                "--control",
                "frame-by-frame",
                "--db",
                f"sqlite:///{tmp_path / 't.db'}",
            ],
            "this backend has no primitive actions",
        ),
    )
    for args, expected in cases:
        proc = run_cli(args, tmp_path, {**cli_env(), "OPENAI_API_KEY": TEST_API_KEY}, check=False)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert proc.returncode != 0 and len(lines) == 1 and expected in lines[0], (args, proc.stderr)


def test_the_control_flags_reach_the_stored_run_config(tmp_path, fake_openai):
    fake_openai.responder = lambda body: "forward"
    db = f"sqlite:///{tmp_path / 'r.db'}"
    proc = run_cli(
        [
            "run",
            "--env",
            "aai-arena",
            "--task",
            TASK,
            "--model",
            "openai/fake-model",
            "--api-base",
            fake_openai.base_url,
            "--control",
            "frame-by-frame:25",
            "--image-size",
            "32",
            "--db",
            db,
            "--json",
        ],
        tmp_path,
        {**cli_env(), "OPENAI_API_KEY": TEST_API_KEY},
    )
    from agentkit.transcripts import TranscriptStore

    run_id = json.loads(proc.stdout)["run_id"]
    config = TranscriptStore(db).get_run(run_id).config
    assert config["control"] == "frame-by-frame:25" and config["observe"] == "end"
    (episode,) = TranscriptStore(db).list_episodes(run_id=run_id)
    replayed = replay_episode(TranscriptStore(db), episode.id)  # the stored answers, read as primitives again
    assert replayed.matches and replayed.recorded["end_reason"] == "goal", replayed.mismatches
    given = RunFlags({"observe": "events", "observe_max_images": 3}, COMMON_FLAGS).apply(
        RunConfig(env="aai-arena", tasks=[TASK], model="openai/fake-model")
    )
    assert given.control == "script" and given.observe == "events" and given.observe_max_images == 3


def test_an_observed_run_shows_its_frames_in_the_viewer_and_rerenders_only_under_its_own_mode(
    tmp_path, fake_openai
):
    from agentkit.offline.rerender import rerender_run
    from agentkit.transcripts import TranscriptStore
    from agentkit.viewer import ViewerApp, open_readonly

    fake_openai.responder = turner
    db = f"sqlite:///{tmp_path / 'r.db'}"
    env = {**cli_env(), "OPENAI_API_KEY": TEST_API_KEY}
    proc = run_cli(
        [
            "run",
            "--env",
            "aai-arena",
            "--task",
            TASK,
            "--model",
            "openai/fake-model",
            "--api-base",
            fake_openai.base_url,
            "--observe",
            "every:5",
            "--image-size",
            "32",
            "--max-scripts",
            "2",
            "--db",
            db,
            "--json",
        ],
        tmp_path,
        env,
    )
    run_id = json.loads(proc.stdout)["run_id"]
    store = TranscriptStore(db)
    (episode,) = store.list_episodes(run_id=run_id)
    html = ViewerApp(open_readonly(db)).handle("GET", f"/episodes/{episode.id}?turn=1").body.decode()
    captions = [c.split(" · ")[0] for c in re.findall(r"<figcaption>([^<]*)</figcaption>", html)]
    assert captions == ["step 5", "step 10", "camera"]  # the frames of the turn in order, with their steps
    # the stored turns re-render to the same prompts (frames included) under the recorded mode...
    same = rerender_run(store, run_id, control="script")
    assert len(same.turns) == 2 and same.changed_turns == 0
    assert replay_episode(store, episode.id).matches
    # ...and another mode is refused in one line
    with pytest.raises(ValueError, match="recorded with --control script"):
        rerender_run(store, run_id, control="frame-by-frame:2")
    refused = run_cli(
        ["rerender", run_id, "--control", "frame-by-frame", "--db", db], tmp_path, env, check=False
    )
    lines = [line for line in refused.stderr.splitlines() if line.strip()]
    assert refused.returncode != 0 and len(lines) == 1, refused.stderr
    assert "--control frame-by-frame:1: run" in lines[0] and "recorded with --control script" in lines[0]


def test_frame_by_frame_is_refused_with_templates_that_only_ask_for_scripts():
    from agentkit.control import Control, ControlMode
    from agentkit.prompts.renderer import resolve_templates

    control = Control(ControlMode("frame-by-frame", 2), PRIMITIVES)
    control.check_templates(resolve_templates("aai-arena"))  # the packaged set describes both modes
    with pytest.raises(ValueError, match="never reads the variable control"):
        control.check_templates(
            resolve_templates("aai-arena", "aai-arena-incontext")
        )  # its example writes scripts


def test_observe_events_takes_a_frame_when_the_lights_change_in_the_arena(tmp_path):
    from agentkit.control import FrameWatch
    from agentkit.envs.arena.backend import ArenaBackend
    from agentkit.observers.image_encoding import encode_image

    arena = tmp_path / "dark.yaml"
    arena.write_text(Path(TASK).read_text().replace("    t: 60\n", "    t: 60\n    blackouts: [0, 3]\n"))
    backend = ArenaBackend(render_size=16)
    watch = FrameWatch(
        parse_observe("events"), backend, lambda frame, label: encode_image(frame, label, max_side=16)
    )
    try:
        first = backend.reset(str(arena), 0)
        assert first.status["lights"] == "off"
        watch.start(0)
        for _ in range(8):
            watch.after_step(backend.step([0, 0]))
        from agentkit.observers.observer import Observer

        seen = watch.finish(Observer().observe(backend.observe()))
    finally:
        backend.close()
    labels = [image.label for image in seen.images]
    # the blackout ends at frame 3, step 5 (5/3 of the frames), and the goal ahead is seen again
    assert labels == ["step 5 (lights on; GoodGoal in view)", "camera"]


def test_observe_events_takes_a_frame_when_a_goal_comes_into_view_in_the_arena():
    from agentkit.control import FrameWatch
    from agentkit.envs.arena.backend import ArenaBackend
    from agentkit.observers.image_encoding import encode_image
    from agentkit.observers.observer import Observer

    backend = ArenaBackend(render_size=16)
    watch = FrameWatch(
        parse_observe("events"), backend, lambda frame, label: encode_image(frame, label, max_side=16)
    )
    try:
        backend.reset(TASK, 0)  # the goal stands straight ahead, 7 units away
        watch.start(0)  # in view already: not news
        for _ in range(60):  # a whole turn to the right, 6 degrees a step
            watch.after_step(backend.step([0, 1]))
        seen = watch.finish(Observer().observe(backend.observe()))
    finally:
        backend.close()
    # it leaves the 100-degree view on the way round and comes back at 312 degrees (48 to its left)
    assert [image.label for image in seen.images] == ["step 52 (GoodGoal in view)", "camera"]


def test_a_frame_by_frame_gridworld_episode_walks_minigrids_own_actions(fake_openai):
    """The empty room starts facing east at (1, 1) with the goal at (3, 3): forward twice, turn
    right, forward twice; each answer is held for one step."""
    moves = iter(["forward", "forward", "right", "forward", "forward"])
    fake_openai.responder = lambda body: next(moves)
    config = RunConfig(
        env="gridworld",
        tasks=["gridworld/reach-goal-easy"],
        model="openai/fake-model",
        api_base=fake_openai.base_url,
        include_images=False,
        memory="window:2",
        control="frame-by-frame",
        observer=ObserverSettings(views=["ascii"]),
        backend_options={"frame": "none"},
    )
    setup = make_setup(config, api_key=TEST_API_KEY)
    sink = _Turns()
    try:
        result = run_episode(setup, "gridworld/reach-goal-easy", 0, sink=sink)
    finally:
        setup.backend.close()
    assert result.success and [t.actions for t in sink.turns] == [[2], [2], [1], [2], [2]]
    system = sink.turns[0].messages[0]["content"]
    assert "- toggle: open or close the door in front" in system and "Go(n)" not in system
    assert "Step: 3" in _user_text(sink.turns[3].messages[-1])
    assert len(sink.turns[4].messages) == 1 + 2 * 2 + 1  # the window:2 history policy applies


def test_observe_events_in_the_gridworld_reports_objects_coming_into_the_agents_view():
    from agentkit.control import FrameWatch
    from agentkit.envs.gridworld.backend import GridworldBackend
    from agentkit.observers.image_encoding import encode_image
    from agentkit.observers.observer import Observer

    backend = GridworldBackend(frame="agent", render_size=32)
    watch = FrameWatch(
        parse_observe("events"), backend, lambda frame, label: encode_image(frame, label, max_side=32)
    )
    try:
        backend.reset("BabyAI-GoToLocal-v0", 3)  # "go to the red key"; the key is in view from the start
        watch.start(0)
        for _ in range(4):  # turning right on the spot: a grey key, then what was behind comes back
            watch.after_step(backend.step(1))
        seen = watch.finish(Observer().observe(backend.observe()))
    finally:
        backend.close()
    assert [image.label for image in seen.images] == [
        "step 1 (grey key in view)",
        "step 3 (green box in view; grey ball in view)",
        "step 4 (red ball in view; red box in view; red key in view)",
        "view",
    ]  # an event's frame stays
