"""The store's one reader serves the viewer's reads: paged listings judged by a caller's verdict,
one turn alone, per-turn figures; and a transcript without stored poses gets no path, not a guess
read out of its status text."""

from __future__ import annotations

from sqlalchemy import Table, case, literal

from agentkit.messages import Message
from agentkit.records import EndReason, EpisodeResult, TurnRecord, Usage
from agentkit.transcripts import TranscriptStore
from agentkit.transcripts.listings import Verdict
from agentkit.viewer import ViewerApp, open_readonly
from agentkit.viewer.trajectory import pose_of

SYSTEM = Message("system", "rules")


def _success(episodes: Table, runs: Table):
    """A verdict of this test's own: the stored success column, unfinished episodes apart."""
    return case(
        (episodes.c.status != "finished", literal("open")),
        (episodes.c.success.is_(True), literal("yes")),
        else_=literal("no"),
    )


VERDICT = Verdict(_success, passed="yes", failed="no")


def _turn(i: int, observation: dict, history: list[Message]) -> TurnRecord:
    user = Message("user", f"turn {i}")
    record = TurnRecord(
        index=i,
        observation=observation,
        messages=[SYSTEM, *history, user],
        answer="Go(1);",
        usage=Usage(10 + i, 2, 0.001),
        latency_s=0.1,
        cached=False,
        script=[{"name": "Go", "args": [1]}] if i % 2 == 0 else None,
        parse_error=None if i % 2 == 0 else {"message": "no command"},
        compile_error=None,
        actions=[[1, 0]] * (i + 1),
        reward=0.5,
        total_reward=0.5 * (i + 1),
        health=None,
        done=False,
        timings={},
    )
    history += [user, Message("assistant", "Go(1);")]
    return record


def _episode(store: TranscriptStore, run: str, task: str, seed: int, success: bool | None, **kw) -> str:
    episode = store.start_episode(run, task, seed, **kw)
    history: list[Message] = []
    for i in range(3):
        store.add_turn(episode, _turn(i, {"step": i, "pose": {"position": [i, 0.0, 2 * i]}}, history))
    if success is not None:
        store.finish_episode(
            episode,
            EpisodeResult(
                episode,
                task,
                seed,
                success=success,
                reward=1.0,
                end_reason=EndReason.GOAL,
                scripts=3,
                turns=3,
            ),
        )
    return episode


def test_listings_count_latest_attempts_by_the_callers_verdict(tmp_path):
    url = f"sqlite:///{tmp_path / 't.db'}"
    with TranscriptStore(url) as store:
        run = store.create_run("gridworld", ["A", "B"], "m", {}, {"system.j2": "s"})
        _episode(store, run, "A", 0, False)
        _episode(store, run, "A", 0, True, attempt=1)  # a relaunch: only this attempt counts
        _episode(store, run, "B", 0, False)
        _episode(store, run, "B", 1, None)  # still open: listed, not judged
        other = store.create_run("aai-arena", ["C"], "n", {}, {"system.j2": "s"})
        _episode(store, other, "C", 0, True)
    reader = open_readonly(url)
    runs = reader.run_summaries(VERDICT, env="gridworld")
    assert runs.total == 1 and [(r.episodes, r.passed, r.judged) for r in runs.items] == [(3, 1, 2)]
    assert reader.facets().envs == ["aai-arena", "gridworld"]
    page = reader.episode_summaries(VERDICT, run_id=run, offset=1, limit=2)
    assert page.total == 4 and page.number == 1 and page.pages == 2 and len(page.items) == 2
    assert [e.outcome for e in reader.episode_summaries(VERDICT, run_id=run).items] == [
        "no",
        "yes",
        "no",
        "open",
    ]
    assert [e.task for e in reader.episode_summaries(VERDICT, outcome="yes").items] == ["A", "C"]
    assert reader.episode_summaries(VERDICT, model="n").items[0].env == "aai-arena"


def test_one_turn_reads_as_the_whole_episode_reads_it(tmp_path):
    url = f"sqlite:///{tmp_path / 't.db'}"
    with TranscriptStore(url) as store:
        run = store.create_run("gridworld", ["A"], "m", {}, {"system.j2": "s"})
        episode = _episode(store, run, "A", 0, True)
    reader = open_readonly(url)
    whole = reader.get_turns(episode, images="ref")
    for i in range(3):
        one = reader.get_turn(episode, i)
        assert one is not None and one.messages == whole[i].messages and one.answer == whole[i].answer
    assert reader.get_turn(episode, 3) is None
    figures = reader.turn_figures(episode)
    assert [(f.parsed, f.n_actions, f.total_reward) for f in figures] == [
        (True, 1, 0.5),
        (False, 2, 1.0),
        (True, 3, 1.5),
    ]
    assert [pose_of(f.observation).y for f in figures] == [0.0, 2.0, 4.0]
    assert reader.turn_fields(episode, ("answer",))[2] == {"index": 2, "answer": "Go(1);"}
    before = reader.turns_stamp(episode)
    assert before[0] == 3
    assert reader.get_image("0" * 64) is None


def test_an_episode_without_stored_poses_says_no_path(tmp_path):
    """An older transcript wrote the position only into the status text: the viewer draws no path
    and says so, rather than parsing the text meant for the model."""
    url = f"sqlite:///{tmp_path / 't.db'}"
    world = {"bounds": [0, 0, 40, 40], "shapes": [{"kind": "circle", "x": 5, "y": 5, "r": 1}]}
    with TranscriptStore(url) as store:
        run = store.create_run("aai-arena", ["A"], "m", {}, {"system.j2": "s"})
        episode = store.start_episode(run, "A", 0)
        history: list[Message] = []
        for i in range(2):
            record = _turn(i, {"step": i, "status_text": f"Step: {i}\nPosition: [{i}.0, 0.0, 3.0]"}, history)
            if i == 0:
                record.world_map, record.prompt_context = world, {"time_limit": 10}
            store.add_turn(episode, record)
    assert pose_of({"status_text": "Step: 1\nPosition: [1.0, 0.0, 3.0]"}) is None
    html = ViewerApp(open_readonly(url)).handle("GET", f"/episodes/{episode}").body.decode()
    assert "no path: this episode's observations store no position" in html and "one dot per turn" not in html
