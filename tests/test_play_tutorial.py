"""The tutorial of an `agentkit play` sitting is a practice episode with an identity of its own.

Why: the gridworld's tutorial task (``gridworld/reach-goal-easy``) is also a task of its default
suite (``gridworld-easy``). When both were planned as (task, trial 0, seed) they had the same
stable episode id, so the sitting broke where the counted copy began. The tutorial must be played
first and stored, the counted suite must hold every one of its tasks once, ``--resume`` must find
where a cut sitting stopped, and reports must leave the tutorial out (but not the counted copy).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from sqlalchemy import update

from agentkit.play import PlayOptions, PlayServer
from agentkit.play.resume import resume_point
from agentkit.play.session import TUTORIALS, suite_tasks
from agentkit.reports.human_runs import read_humans
from agentkit.reports.proportions import Proportion
from agentkit.runs.worker import episode_id_for
from agentkit.transcripts import TranscriptStore
from agentkit.transcripts.schema import Episode, Run

GRID_TUTORIAL = TUTORIALS["gridworld"]
# MiniGrid-Empty-5x5 (reach-goal-easy): the agent starts in the top-left corner facing east, the goal
# is the bottom-right corner whatever the seed; one forward too many bumps the wall harmlessly.
TO_THE_GOAL = ["ArrowUp", "ArrowUp", "ArrowUp", "ArrowRight", "ArrowUp", "ArrowUp"]


def _post(url: str, body: object) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)
    except urllib.error.HTTPError as exc:
        return json.load(exc)


def _default_gridworld_sitting(participant: str) -> PlayOptions:
    """What `agentkit play --env gridworld --participant P` plays: the tutorial, then gridworld-easy."""
    return PlayOptions(
        participant=participant,
        tasks=suite_tasks(None, None, "gridworld"),
        tutorial=GRID_TUTORIAL,
        env="gridworld",
        size=64,
    )


@pytest.fixture
def store(tmp_path):
    store = TranscriptStore(f"sqlite:///{tmp_path / 'play.db'}")
    yield store
    store.close()


def _until_next_task(url: str, token: str, state: dict, key: str) -> dict:
    """Press ``key`` until the episode in play ends (the sitting's 30-turn limit ends any episode)."""
    index = state["task_index"]
    for _ in range(40):
        state = _post(url + "api/step", {"session": token, "press": key})
        if state.get("error") or state["finished"] or state["task_index"] != index:
            return state
    raise AssertionError(f"{state['task']} did not end")


def test_default_gridworld_sitting_plans_each_episode_once():
    options = _default_gridworld_sitting("plan")
    suite = suite_tasks(None, None, "gridworld")
    assert GRID_TUTORIAL in suite  # the collision this file is about
    plan = options.plan()
    assert len(plan) == len(suite) + 1 and plan[0][0] == GRID_TUTORIAL
    assert [task for task, _, _ in plan[1:]] == suite  # the counted suite, each task once, in order
    ids = {episode_id_for("run", task, trial, seed, 0) for task, trial, seed in plan}
    assert len(ids) == len(plan)
    config = options.run_config()
    assert config.tasks == suite and list(config.episode_plan()) == plan[1:]
    # The Animal-AI default: its tutorial is not one of the children's forty, and a tutorial named
    # again in --tasks is still its own episode.
    arena = PlayOptions(participant="a", tasks=suite_tasks(None, None))
    assert arena.tutorial not in arena.tasks and len(arena.plan()) == 41
    again = PlayOptions(participant="a", tasks=[str(arena.tutorial), "07-16-01"])
    assert len({episode_id_for("run", *key, 0) for key in again.plan()}) == 3


def test_default_gridworld_sitting_plays_its_tutorial_task_twice_and_resumes(store):
    server = PlayServer(store, _default_gridworld_sitting("g7"))
    url = server.start()
    try:
        state = _post(url + "api/session", {})
        token = state["session"]
        assert state["tutorial"] and state["task"] == GRID_TUTORIAL and state["tasks_total"] == 16
        for key in TO_THE_GOAL:
            state = _post(url + "api/step", {"session": token, "press": key})
        assert state["task_index"] == 1 and state["outcomes"][0]["end_reason"] == "goal"
        state = _until_next_task(url, token, state, "ArrowLeft")  # goto-object-easy, however it ends
        # The counted copy of the tutorial's task: before the fix its episode id was the tutorial's,
        # and the sitting stopped here ("episode ... exists already").
        assert state["error"] is None and not state["finished"], state["error"]
        assert (state["task_index"], state["task"], state["tutorial"]) == (2, GRID_TUTORIAL, False)
        for key in TO_THE_GOAL:
            state = _post(url + "api/step", {"session": token, "press": key})
        assert state["task_index"] == 3 and state["outcomes"][2]["end_reason"] == "goal"
        _post(url + "api/step", {"session": token, "press": "ArrowLeft"})  # one step into the 4th task
        run_id = state["run_id"]
    finally:
        server.close()  # the server stops mid-task: the cut episode ends, the three before are kept

    run = store.get_run(run_id)
    assert run.status == "stopped" and run.tasks == suite_tasks(None, None, "gridworld")
    assert run.config["tutorial"] == GRID_TUTORIAL
    practice = [e for e in store.list_episodes(run_id=run_id) if e.task == GRID_TUTORIAL]
    assert len({e.id for e in practice}) == 2 and all(e.end_reason == "goal" for e in practice)
    assert sorted(e.trial for e in practice) == [0, run.config["tutorial_trial"]]

    options, point = resume_point(store, run_id)
    assert options.tasks == run.tasks and options.tutorial == GRID_TUTORIAL
    assert sorted(point.done) == [0, 1, 2] and point.attempts == {3: 1}
    resumed = PlayServer(store, options, resume=point)
    url = resumed.start()
    try:
        state = _post(url + "api/session", {})
        assert state["run_id"] == run_id and state["task_index"] == 3 and state["step"] == 0
        assert state["task"] == "gridworld/wall-crossing-easy" and not state["tutorial"]
        assert [o["task"] for o in state["outcomes"]][::2] == [GRID_TUTORIAL, GRID_TUTORIAL]
    finally:
        resumed.close()


def test_reports_leave_out_the_tutorial_but_count_its_task_when_asked(store):
    """An Animal-AI sitting whose --tasks name the tutorial arena again: the practice episode is
    left out of the humans column, the counted one is in it."""
    server = PlayServer(
        store,
        PlayOptions(participant="h1", tasks=["01-01-01", "07-16-01"], mode="script", size=64),
    )
    url = server.start()
    try:
        state = _post(url + "api/session", {})
        token = state["session"]
        for script in ("Go(10)", "Go(10)", "Go(10)"):  # 01-01-01 twice (goal), 07-16-01 (dies)
            state = _post(url + "api/step", {"session": token, "script": script})
        assert state["finished"] and state["error"] is None, state["error"]
    finally:
        server.close()
    assert [o["end_reason"] for o in state["outcomes"]] == ["goal", "goal", "died"]
    humans = read_humans(store, [state["run_id"]])
    assert humans.by_task == {"01-01-01": Proportion(1, 1), "07-16-01": Proportion(0, 1)}
    assert len(humans.episodes) == 2 and state["outcomes"][0]["episode_id"] not in humans.episodes


def test_a_sitting_stored_before_the_tutorial_had_its_own_trial_still_resumes(store):
    """Older sittings stored the tutorial as trial 0 of the run's first task, and no tutorial_trial:
    --resume keeps that tutorial (it is not played again), and reports still leave it out."""
    server = PlayServer(store, PlayOptions(participant="o1", tasks=["07-16-01"], mode="script", size=64))
    url = server.start()
    try:
        state = _post(url + "api/session", {})
        state = _post(url + "api/step", {"session": state["session"], "script": "Go(10)"})
        assert state["task_index"] == 1 and state["outcomes"][0]["end_reason"] == "goal"
        run_id = state["run_id"]
    finally:
        server.close()  # cut in 07-16-01
    config = dict(store.get_run(run_id).config)
    del config["tutorial_trial"]
    with store.engine.begin() as conn:  # rewrite it as an older agentkit stored it
        conn.execute(
            update(Run).where(Run.id == run_id).values(tasks=["01-01-01", "07-16-01"], config=config)
        )
        conn.execute(
            update(Episode)
            .where(Episode.run_id == run_id, Episode.task == "01-01-01")
            .values(trial=0, seed=0)
        )
    options, point = resume_point(store, run_id)
    assert (options.tasks, options.tutorial, options.tutorial_trial) == (["07-16-01"], "01-01-01", 0)
    assert list(point.done) == [0] and point.attempts == {1: 1}
    humans = read_humans(store, [run_id])
    assert humans.by_task == {"07-16-01": Proportion(0, 1)}  # cut: a model error, a fail under aai
