"""Re-rendering needs each episode's own prompt variables, not only the run's.

An arena's system message names the episode's time limit, which comes from the arena file the
episode played; a world that is never reset cannot say it. The loop therefore stores, with an
episode's first turn, the variables its templates were rendered with, and a re-render with the
recorded templates reproduces every prompt of an arena run exactly. Transcripts written before
that was stored still re-render, with the facts rebuilt without the world, and the report says so.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from agentkit.offline.rerender import rerender_run
from agentkit.testing.cli_runner import run_cli, run_json
from agentkit.viewer import open_readonly

TASKS = ["01-04-03", "01-21-01"]  # t = 250 and t = 500: 417 and 834 steps, different system messages


@pytest.fixture(scope="module")
def arena_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("arena-context")
    db = folder / "arena.db"
    args = ["run", "--env", "aai-arena", "--db", f"sqlite:///{db}"]
    for task in TASKS:
        args += ["--task", task]
    data = run_json(args, folder)
    return db, data["run_id"]


def test_each_episode_stores_the_variables_its_prompts_were_made_from(arena_run):
    db, run_id = arena_run
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT e.task, c.context FROM episode_contexts c JOIN episodes e ON e.id = c.episode_id "
            "WHERE e.run_id = ? ORDER BY e.task",
            (run_id,),
        ).fetchall()
    assert [task for task, _ in rows] == TASKS

    contexts = [json.loads(text) for _, text in rows]
    assert [c["time_limit"] for c in contexts] == [417, 834] and [c["arena_t"] for c in contexts] == [
        250,
        500,
    ]
    assert all(
        c["task"] == task and c["commands"] and c["max_scripts"] == 30 for c, task in zip(contexts, TASKS)
    )


def test_recorded_templates_reproduce_every_prompt_of_an_arena_run(arena_run):
    db, run_id = arena_run
    report = rerender_run(open_readonly(f"sqlite:///{db}"), run_id, workers=1)
    assert report.episodes == 2 and report.episodes_without_context == 0
    assert report.turns and report.changed_turns == 0, [
        t.system_diff or t.diff for t in report.turns if t.changed
    ][:1]


def test_a_transcript_without_stored_variables_rerenders_and_says_its_facts_were_rebuilt(arena_run, tmp_path):
    db, run_id = arena_run
    old = tmp_path / "old.db"
    with sqlite3.connect(db) as source, sqlite3.connect(old) as target:
        source.backup(target)
    with sqlite3.connect(old) as conn:  # as a database written before the table existed
        conn.execute("DROP TABLE episode_contexts")
    report = rerender_run(open_readonly(f"sqlite:///{old}"), run_id, workers=1)
    assert report.episodes == 2 and report.episodes_without_context == 2
    # without the world, the time limit is unknown: the system message loses it
    assert report.changed_turns == len(report.turns)
    assert any("this arena gives you 417 steps" in t.system_diff for t in report.turns)
    proc = run_cli(["rerender", run_id, "--memory", "full", "--db", f"sqlite:///{old}"], tmp_path)
    assert "2 episode(s) were recorded before agentkit stored" in " ".join(proc.stderr.split())


def test_the_store_and_the_export_give_the_variables_and_an_older_database_has_none(arena_run, tmp_path):
    from agentkit.transcripts import TranscriptStore
    from agentkit.transcripts.export import export_jsonl

    db, run_id = arena_run
    store = open_readonly(f"sqlite:///{db}")
    episode = next(e for e in store.list_episodes(run_id=run_id) if e.task == "01-21-01")
    assert store.get_prompt_context(episode.id)["time_limit"] == 834
    assert store.get_prompt_context("no-such-episode") is None
    out = tmp_path / "run.jsonl"
    export_jsonl(store, run_id, out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    firsts = [line for line in lines if line["index"] == 0]
    assert len(firsts) == 2 and all(line["prompt_context"]["task"] == line["task"] for line in firsts)
    assert all("prompt_context" not in line for line in lines if line["index"] > 0)

    old = tmp_path / "old.db"
    with sqlite3.connect(db) as source, sqlite3.connect(old) as target:
        source.backup(target)
    with sqlite3.connect(old) as conn:
        conn.execute("DROP TABLE episode_contexts")
    assert open_readonly(f"sqlite:///{old}").get_prompt_context(episode.id) is None
    with TranscriptStore(f"sqlite:///{old}") as writable:  # opened for writing, it gains the table
        assert writable.get_prompt_context(episode.id) is None
    with sqlite3.connect(old) as conn:
        assert conn.execute("SELECT count(*) FROM episode_contexts").fetchone() == (0,)


def test_a_trifinger_episode_rerenders_exactly_with_its_own_time_limit(tmp_path):
    db = tmp_path / "tf.db"
    data = run_json(["run", "--env", "trifinger", "--task", "pushing", "--db", f"sqlite:///{db}"], tmp_path)
    store = open_readonly(f"sqlite:///{db}")
    (episode,) = store.list_episodes(run_id=data["run_id"])
    context = store.get_prompt_context(episode.id)
    assert context["time_limit_s"] == 10.0 and context["task"] == "pushing"  # CausalWorld: 10 s per block
    report = rerender_run(store, data["run_id"], workers=1)
    assert report.turns and report.changed_turns == 0 and report.episodes_without_context == 0
