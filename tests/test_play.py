"""`agentkit play` without a browser: the page's JSON API over real HTTP on 127.0.0.1.

A participant's sitting must be an ordinary run (model ``human:<id>``, the condition in its config)
whose episodes replay exactly; script mode must give the model's conditions (the prompt, one frame
per turn, a refused script's message); the world must not move while no page asks; and a bad
request is answered in one line.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from agentkit.offline.replay import replay_episode
from agentkit.play import PlayOptions, PlayServer, held_keys_action
from agentkit.play.session import suite_tasks
from agentkit.runs.suite_tasks import UnknownSuite
from agentkit.runs.suite_tasks import suite_tasks as shared_suite_tasks
from agentkit.testing.cli_runner import AGENTKIT, cli_env, ctrl_c_reaches_the_command, run_cli, run_json
from agentkit.transcripts import TranscriptStore, export_jsonl
from agentkit.viewer import ViewerServer, open_readonly

CHILD_TASK = "07-16-01"  # a children40 task that going straight ahead ends in 4 steps (the agent dies)


def _post(url: str, body: object, raw: bytes | None = None) -> tuple[int, dict]:
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


@pytest.fixture
def serve(tmp_path):
    servers: list[PlayServer] = []
    store = TranscriptStore(f"sqlite:///{tmp_path / 'play.db'}")

    def start(**options) -> tuple[str, PlayServer]:
        server = PlayServer(store, PlayOptions(**{"tasks": [CHILD_TASK], "size": 64, **options}))
        servers.append(server)
        return server.start(), server

    yield start, store
    for server in servers:
        server.close()
    store.close()


def test_held_keys_name_animal_ai_actions():
    assert held_keys_action(["ArrowUp"]) == "forward"
    assert held_keys_action(["ArrowUp", "ArrowLeft"]) == "forward-left"
    assert held_keys_action(["ArrowDown", "ArrowRight", "Shift"]) == "back-right"
    assert held_keys_action(["ArrowUp", "ArrowDown", "ArrowLeft"]) == "left"  # up and down cancel
    assert held_keys_action(["ArrowLeft", "ArrowRight"]) == "stay"
    assert held_keys_action([]) == "stay"


def test_options_refused_in_one_line():
    for options, named in (
        ({"mode": "mouse"}, "--mode"),
        ({"env": "mars"}, "--env"),
        ({"condition": "a\nb"}, "--condition"),
        ({"participant": "x" * 65}, "--participant"),
        ({"tasks": []}, "--tasks"),
    ):
        with pytest.raises(ValueError, match=named):
            PlayOptions(**{"participant": "p", "tasks": [CHILD_TASK], **options})


def test_suite_and_tasks_options():
    assert len(suite_tasks("aai-children40", None)) == 40
    assert suite_tasks("aai-children40", "07-16-01, 01-01-02") == ["07-16-01", "01-01-02"]


def test_a_sitting_expands_suites_as_every_command_does():
    """agentkit.runs.suite_tasks is the one expansion: the same tasks, the same refusal, a task played once."""
    assert suite_tasks(None, None) == shared_suite_tasks("aai-arena", "aai-children40")
    assert suite_tasks(None, None, "gridworld") == shared_suite_tasks("gridworld", "gridworld-easy")
    assert suite_tasks(None, f"aai-children40,{CHILD_TASK}") == suite_tasks("aai-children40", None)
    assert suite_tasks(None, f"{CHILD_TASK}, 01-01-02, {CHILD_TASK}") == [CHILD_TASK, "01-01-02"]
    with pytest.raises(
        UnknownSuite, match="^unknown suite 'nope' for env 'aai-arena'; known: .*aai-children40"
    ):
        suite_tasks("nope", None)


def test_script_mode_is_the_models_conditions_and_replays(serve, tmp_path):
    start, store = serve
    url, server = start(participant="p-2", mode="script", condition="adults")
    status, state = _post(url + "api/session", {})
    assert status == 200 and state["tutorial"] and state["task"] == "01-01-01"
    assert "Turn 1 of at most 30" in state["prompt"] and state["frame"].startswith("data:image/jpeg;base64,")
    token = state["session"]

    status, state = _post(url + "api/step", {"session": token, "script": "Jump(3)"})
    assert status == 200 and "Jump" in state["feedback"] and not state["outcomes"]
    assert "could not be carried out" in state["prompt"]  # the model's own feedback line
    status, state = _post(url + "api/step", {"session": token, "script": "Go(10)"})
    assert state["outcomes"][0]["end_reason"] == "goal" and state["task"] == CHILD_TASK
    status, state = _post(url + "api/step", {"session": token, "script": "Go(10)"})
    assert state["finished"] and [o["task"] for o in state["outcomes"]] == ["01-01-01", CHILD_TASK]
    _, again = _post(url + "api/session", {})  # a reload after the last arena: the sitting, done
    assert again["session"] == token and again["finished"] and again["run_id"] == state["run_id"]

    run = store.get_run(state["run_id"])
    assert run.model == "human:p-2" and run.status == "finished"
    assert (run.config["participant"], run.config["condition"], run.config["play_mode"]) == (
        "p-2",
        "adults",
        "script",
    )
    assert run.config["control"] == "script" and run.config["memory"] == "full"
    episodes = store.list_episodes(run_id=run.id)
    assert sorted(e.task for e in episodes) == sorted(["01-01-01", CHILD_TASK])
    tutorial = next(e for e in episodes if e.task == "01-01-01")
    assert [t.answer for t in store.get_turns(tutorial.id, with_messages=False)] == ["Jump(3)", "Go(10)"]
    for episode in episodes:
        report = replay_episode(store, episode.id)
        assert report.matches, report.mismatches
    with ViewerServer(open_readonly(str(store.url)), port=0) as viewer:  # the viewer reads it as any run
        with urllib.request.urlopen(f"{viewer.url}episodes/{tutorial.id}", timeout=30) as response:
            page = response.read().decode()
    assert "human:p-2" in page and "Go(10)" in page
    exported = tmp_path / "sitting.jsonl"  # and exports it as any run
    assert export_jsonl(store, run.id, exported, images="files") == 3
    rows = [json.loads(line) for line in exported.read_text().splitlines()]
    assert [r["answer"] for r in rows][:2] == ["Jump(3)", "Go(10)"]


def test_keyboard_world_waits_for_the_page(serve):
    start, store = serve
    url, server = start(participant="p3", mode="keyboard", tutorial=None)
    _, state = _post(url + "api/session", {})
    token = state["session"]
    assert state["task"] == CHILD_TASK and not state["tutorial"] and state["prompt"] == ""
    for _ in range(2):
        _, state = _post(url + "api/step", {"session": token, "keys": ["ArrowLeft"]})
    assert state["step"] == 2
    time.sleep(0.5)  # no page asks: nothing moves
    with urllib.request.urlopen(f"{url}api/state?session={token}", timeout=30) as response:
        assert json.load(response)["step"] == 2
    _, again = _post(url + "api/session", {})  # a reopened tab resumes the same sitting
    assert again["session"] == token and again["step"] == 2
    _, state = _post(url + "api/step", {"session": token, "keys": ["ArrowRight"]})
    assert state["step"] == 3
    turns = store.get_turns(store.list_episodes(run_id=state["run_id"])[0].id, with_messages=False)
    assert [t.answer for t in turns] == ["left", "left", "right"]
    assert [t.actions for t in turns] == [[[0, 2]], [[0, 2]], [[0, 1]]]
    run = store.get_run(state["run_id"])
    assert run.config["control"] == "frame-by-frame:1" and run.config["tutorial"] is None


def test_bad_requests_get_one_line(serve):
    start, _ = serve
    url, _ = start(participant="p4", mode="keyboard", tutorial=None)
    status, answer = _post(url + "api/step", {"session": "nope", "keys": []})
    assert status == 400 and "unknown session" in answer["error"]
    _, state = _post(url + "api/session", {})
    status, answer = _post(url + "api/step", {"session": state["session"], "keys": "ArrowUp"})
    assert status == 400 and answer["error"].startswith("keys:")
    status, answer = _post(url + "api/step", {}, raw=b"{not json")
    assert status == 400 and answer["error"] == "request body: not JSON"
    status, answer = _post(url + "api/nothing", {})
    assert status == 404
    form = urllib.request.Request(
        url + "api/sessions",
        data=b"participant=eve",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:  # another site's form cannot start a sitting
        urllib.request.urlopen(form, timeout=30)
    assert refused.value.code == 400
    rebound = urllib.request.Request(
        url + "api/sessions",
        data=b"{}",
        headers={"Host": "evil.example:80", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:  # nor a page that renamed its address
        urllib.request.urlopen(rebound, timeout=30)
    assert refused.value.code == 421
    with urllib.request.urlopen(url, timeout=30) as response:
        page = response.read().decode()
        assert (
            "/static/play.js" in page and "default-src 'self'" in response.headers["Content-Security-Policy"]
        )


def test_cli_refuses_bad_options_in_one_line(tmp_path):
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    for args, named in (
        (["--participant", "a b"], "--participant"),
        (["--participant", "p", "--tasks", "99-99-99"], "99-99-99"),
        (["--resume", "nope"], "nope"),
    ):
        proc = run_cli(["play", *args, "--db", db], tmp_path, check=False)
        assert proc.returncode == 2 and named in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_cli_serves_a_sitting_until_ctrl_c(tmp_path):
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    proc = subprocess.Popen(
        [
            *AGENTKIT,
            "play",
            "--participant",
            "p5",
            "--condition",
            "pilot",
            "--tasks",
            CHILD_TASK,
            "--no-tutorial",
            "--size",
            "64",
            "--port",
            "0",
            "--db",
            db,
        ],
        cwd=tmp_path,
        preexec_fn=ctrl_c_reaches_the_command,  # a Ctrl-C, even under a background runner
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        _, state = _post(url + "api/session", {})
        token = state["session"]
        while not state["finished"]:
            _, state = _post(url + "api/step", {"session": token, "keys": ["ArrowUp"]})
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr.read()
    store = TranscriptStore(db)
    run = store.get_run(state["run_id"])
    assert run.model == "human:p5" and run.config["condition"] == "pilot" and run.status == "finished"
    assert [e.end_reason for e in store.list_episodes(run_id=run.id)] == ["died"]
    store.close()


def _script_sitting(url: str, scripts: list[str]) -> str:
    _, state = _post(url + "api/session", {})
    token = state["session"]
    for script in scripts:
        _, state = _post(url + "api/step", {"session": token, "script": script})
    assert state["finished"]
    return state["run_id"]


def test_report_pools_people_into_a_humans_column(serve, tmp_path):
    start, store = serve
    url_a, _ = start(participant="a1", mode="script")
    url_b, _ = start(participant="b2", mode="script")
    runs = [_script_sitting(url_a, ["Go(10)", "Go(10)"]), _script_sitting(url_b, ["Go(10)", "Go(10)"])]
    model_run = store.create_run(
        env="aai-arena", tasks=[CHILD_TASK], model="reference", config={}, templates={}
    )
    db = str(store.url)
    report = run_json(
        [
            "report",
            "aai",
            "--humans",
            ",".join(runs),
            "--tasks",
            f"01-01-01,{CHILD_TASK}",
            "--no-figure",
            "--db",
            db,
        ],
        tmp_path,
    )
    assert report["labels"]["humans"] == "humans (n=2)"
    overall = report["overall"]
    assert overall["n"]["runs"]["humans"] == 2  # two people on the one task; the tutorial never counts
    assert report["clustered_by"]["humans"] == "participant"
    proc = run_cli(["report", "aai", "--humans", model_run, "--db", db, "--no-figure"], tmp_path, check=False)
    assert proc.returncode == 2 and "not a person's" in proc.stderr and "Traceback" not in proc.stderr


def test_two_participants_on_one_server_do_not_mix(serve):
    start, store = serve
    url, _ = start(participant=None, mode="keyboard", tutorial=None)
    status, answer = _post(url + "api/session", {})
    assert status == 400 and "experimenter" in answer["error"]
    status, answer = _post(url + "api/sessions", {"participant": "no good", "condition": ""})
    assert status == 400 and answer["error"].startswith("participant:")
    links = {}
    for who, condition in (("ann", "day"), ("bob", "night")):
        status, answer = _post(url + "api/sessions", {"participant": who, "condition": condition})
        assert status == 200 and answer["link"] == f"/?session={answer['session']}"
        links[who] = answer["session"]
    keys = {"ann": ["ArrowLeft"], "bob": ["ArrowRight"]}
    for who, token in links.items():
        _, state = _post(url + "api/session", {"session": token})
        assert state["participant"] == who
    for _ in range(3):
        for who, token in links.items():
            _post(url + "api/step", {"session": token, "keys": keys[who]})
    with urllib.request.urlopen(url + "api/sessions", timeout=30) as response:
        rows = {row["participant"]: row for row in json.load(response)["sessions"]}
    assert set(rows) == {"ann", "bob"} and rows["bob"]["condition"] == "night"
    for who, answer in (("ann", "left"), ("bob", "right")):
        run = store.get_run(rows[who]["run_id"])
        assert run.model == f"human:{who}" and run.config["condition"] == rows[who]["condition"]
        (episode,) = store.list_episodes(run_id=run.id)
        assert [t.answer for t in store.get_turns(episode.id, with_messages=False)] == [answer] * 3
    with urllib.request.urlopen(url + "experimenter", timeout=30) as response:
        assert "/static/experimenter.js" in response.read().decode()


def test_gridworld_keys_step_once_a_press_and_replay(serve):
    start, store = serve
    url, _ = start(participant="g1", env="gridworld", tasks=["gridworld/reach-goal-easy"], tutorial=None)
    _, state = _post(url + "api/session", {})
    token = state["session"]
    assert state["stepping"] == "turns" and state["health"] is None
    status, answer = _post(
        url + "api/step", {"session": token, "keys": ["ArrowUp"]}
    )  # held keys mean nothing here
    assert status == 400 and answer["error"].startswith("press:")
    presses = ["ArrowUp", "ArrowUp", "ArrowUp", "ArrowRight", "ArrowUp", "ArrowUp"]  # seed 0's room: the goal
    for key in presses:
        _, state = _post(url + "api/step", {"session": token, "press": key})
    assert state["finished"] and state["outcomes"][0]["end_reason"] == "goal"
    run = store.get_run(state["run_id"])
    assert run.env == "gridworld" and run.config["control"] == "frame-by-frame:1"
    (episode,) = store.list_episodes(run_id=run.id)
    answers = [t.answer for t in store.get_turns(episode.id, with_messages=False)]
    assert answers == ["forward", "forward", "forward", "right", "forward", "forward"]
    assert replay_episode(store, episode.id).matches


def test_a_stopped_sitting_resumes_where_it_was_cut(serve):
    from agentkit.play.resume import resume_point

    start, store = serve
    url, server = start(participant="r1", condition="pilot", mode="keyboard")
    _, state = _post(url + "api/session", {})
    token = state["session"]
    while state["task_index"] == 0:
        _, state = _post(url + "api/step", {"session": token, "keys": ["ArrowUp"]})
    _post(url + "api/step", {"session": token, "keys": ["ArrowLeft"]})
    run_id = state["run_id"]
    server.close()  # the server stops mid-task: that episode ends, the tutorial is kept
    assert store.get_run(run_id).status == "stopped"

    options, point = resume_point(store, run_id)
    assert (options.participant, options.condition, options.tasks, options.size) == (
        "r1",
        "pilot",
        [CHILD_TASK],
        64,
    )
    assert list(point.done) == [0] and point.attempts == {1: 1}
    resumed = PlayServer(store, options, resume=point)
    url = resumed.start()
    try:
        _, state = _post(url + "api/session", {})
        assert state["run_id"] == run_id and state["task"] == CHILD_TASK and state["step"] == 0
        assert [o["task"] for o in state["outcomes"]] == ["01-01-01"]
        token = state["session"]
        while not state["finished"]:
            _, state = _post(url + "api/step", {"session": token, "keys": ["ArrowUp"]})
    finally:
        resumed.close()
    assert store.get_run(run_id).status == "finished"
    child = sorted(
        (e for e in store.list_episodes(run_id=run_id) if e.task == CHILD_TASK), key=lambda e: e.attempt
    )
    assert [(e.attempt, e.end_reason) for e in child] == [(0, "model_error"), (1, "died")]
    assert replay_episode(store, child[1].id).matches
    model_run = store.create_run(
        env="aai-arena", tasks=[CHILD_TASK], model="reference", config={}, templates={}
    )
    with pytest.raises(ValueError, match="not an agentkit play sitting"):
        resume_point(store, model_run)


def test_a_world_that_cannot_start_ends_the_sitting_in_one_line(serve):
    start, store = serve
    url, _ = start(
        participant="x1", tasks=["99-99-99"], tutorial=None
    )  # the CLI checks tasks first; here not
    _, state = _post(url + "api/session", {})
    assert state["finished"] and "99-99-99" in state["error"] and "\n" not in state["error"]
    run = store.get_run(state["run_id"])
    assert run.status == "stopped"
    assert [e.end_reason for e in store.list_episodes(run_id=run.id)] == ["env_error"]
