"""The transcript store against real SQLite files (and, for the key tests, a real PostgreSQL server:
``any_db``): durability, content addressing, status, export."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from typed_turns import typed  # tests/support/

from agentkit.messages import Message
from agentkit.records import EndReason, EpisodeResult, TurnRecord, Usage
from agentkit.transcripts import TranscriptStore, export_jsonl, make_engine, scrub_secrets
from agentkit.transcripts.store import TurnExistsError, templates_hash

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4  # content is opaque to the store
PNG_SHA = hashlib.sha256(PNG).hexdigest()
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode("ascii")
JPEG = b"\xff\xd8\xff\xe0" + b"jpeg-bytes" * 50
JPEG_URL = "data:image/jpeg;base64," + base64.b64encode(JPEG).decode("ascii")
SYSTEM = {"role": "system", "content": "You control an agent in a grid world. Answer with a script."}


def db_url(tmp_path: Path, name: str = "t.db") -> str:
    return f"sqlite:///{tmp_path / name}"


def make_turn(index: int, messages: list[Any], **overrides: Any) -> TurnRecord:
    values: dict[str, Any] = dict(
        index=index,
        observation={
            "step": index,
            "ascii": "#####\n#A.G#\n#####",
            "images": [],
            "mission": "reach the goal",
        },
        messages=messages,
        answer=f"forward {index}",
        usage=Usage(input_tokens=100 + index, output_tokens=10, cost_usd=0.001),
        latency_s=0.5,
        cached=False,
        script=[{"op": "forward", "n": index}],
        parse_error=None,
        compile_error=None,
        actions=[2] * index,
        reward=0.0,
        total_reward=0.0,
        health=None,
        done=False,
        timings={"model": 0.5, "env": 0.01},
    )
    values.update(overrides)
    return TurnRecord(**values)


def image_message(step: int, url: str = PNG_URL) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": f"Step {step}. What do you do?"},
            {"type": "image_url", "image_url": {"url": url}},
        ],
    }


def full_history_turns(n: int) -> list[TurnRecord]:
    """Turns whose prompts repeat all earlier messages, with the same image every turn."""
    history: list[dict[str, Any]] = [SYSTEM]
    turns = []
    for i in range(n):
        history = [*history, image_message(i)]
        turns.append(make_turn(i, [dict(m) for m in history]))
        history = [*history, {"role": "assistant", "content": f"forward {i}"}]
    return turns


def new_episode(store: TranscriptStore, **run_kw: Any) -> tuple[str, str]:
    run_id = store.create_run(
        env=run_kw.get("env", "gridworld"),
        tasks=["MiniGrid-Empty-5x5-v0"],
        model="fake/model",
        config=run_kw.get("config", {"temperature": 0}),
        templates={"system.j2": "You are {{ name }}.", "turn.j2": "{{ observation }}"},
    )
    return run_id, store.start_episode(run_id, "MiniGrid-Empty-5x5-v0", seed=7, trial=1)


def count(store: TranscriptStore, sql: str) -> int:
    with store.engine.connect() as conn:
        return conn.exec_driver_sql(sql).scalar_one()


def run_child(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


CHILD_PRELUDE = """
    import sys, time
    from agentkit.messages import Message
    from agentkit.records import TurnRecord, Usage
    from agentkit.transcripts import TranscriptStore

    def turn(i, messages):
        return TurnRecord(index=i, observation={"step": i}, messages=messages, answer="ok",
                          usage=Usage(1, 1, 0.0), latency_s=0.0, cached=False, script=None,
                          parse_error=None, compile_error=None, actions=[], reward=0.0,
                          total_reward=0.0, health=None, done=False, timings={})
"""


# --- engine ------------------------------------------------------------------------------------------


def test_every_connection_is_wal_with_busy_timeout(tmp_path: Path) -> None:
    engine = make_engine(db_url(tmp_path))
    with engine.connect() as a, engine.connect() as b, engine.connect() as c:
        for conn in (a, b, c):
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_default_database_is_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    engine = make_engine(None)
    assert Path(engine.url.database) == tmp_path / "agentkit.db"
    assert (tmp_path / "agentkit.db").exists()
    engine.dispose()


def test_tables_are_created_once_and_reopened(any_db: str) -> None:
    url = any_db
    with TranscriptStore(url) as store:
        run_id, _ = new_episode(store)
    with TranscriptStore(url) as store:
        assert store.get_run(run_id).episodes == 1


# --- writing and reading -----------------------------------------------------------------------------


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "core"])
def test_round_trip_stores_each_image_once(any_db: str, fast_path: bool) -> None:
    store = TranscriptStore(any_db, fast_path=fast_path)
    run_id, episode_id = new_episode(store)
    turns = full_history_turns(3)  # the same image in 3 turns, and 6 times in all prompts together
    for t in turns:
        store.add_turn(episode_id, typed(t))

    read = store.get_turns(episode_id)
    assert [t.to_record() for t in read] == turns  # every field, messages restored as data URLs
    assert read[2].messages[3]["content"][1]["image_url"]["url"] == PNG_URL

    assert count(store, "SELECT count(*) FROM blobs WHERE media_type = 'image/png'") == 1
    assert store.get_blob(PNG_SHA).data == PNG
    # Content-addressed messages: 6 distinct message contents behind 2 + 4 + 6 messages sent, each
    # message row written once for the episode (schema 2; schema 1 wrote all 12 rows to ``messages``).
    assert count(store, "SELECT count(*) FROM blobs WHERE media_type = 'application/json'") == 6
    assert count(store, "SELECT count(*) FROM episode_messages") == 6
    assert count(store, "SELECT count(*) FROM messages") == 0

    refs = store.get_turns(episode_id, images="ref")
    part = refs[0].messages[1]["content"][1]
    assert part == {"type": "image_ref", "sha256": PNG_SHA, "media_type": "image/png"}
    assert store.get_turns(episode_id, with_messages=False)[0].messages is None

    run = store.get_run(run_id)
    assert run.env == "gridworld" and run.tasks == ["MiniGrid-Empty-5x5-v0"] and run.episodes == 1
    assert run.templates["system.j2"] == "You are {{ name }}."
    assert run.templates_hash == templates_hash(run.templates)
    assert [r.id for r in store.list_runs()] == [run_id]
    store.close()


def test_restored_messages_do_not_share_state(tmp_path: Path) -> None:
    store = TranscriptStore(db_url(tmp_path))
    _, episode_id = new_episode(store)
    for t in full_history_turns(2):
        store.add_turn(episode_id, typed(t))
    first, second = store.get_turns(episode_id)
    first.messages[1]["content"][0]["text"] = "changed"
    assert second.messages[1]["content"][0]["text"] == "Step 0. What do you do?"


def test_other_content_shapes_round_trip(any_db: str) -> None:
    store = TranscriptStore(any_db)
    _, episode_id = new_episode(store)
    messages = [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": JPEG_URL}}]},
        {"role": "user", "content": "ünïcode ✓"},
    ]
    store.add_turn(episode_id, typed(make_turn(0, messages)))
    assert store.get_turns(episode_id)[0].messages == messages
    assert count(store, "SELECT count(*) FROM blobs WHERE media_type = 'image/jpeg'") == 1


def test_turns_come_back_in_index_order(tmp_path: Path) -> None:
    store = TranscriptStore(db_url(tmp_path))
    _, episode_id = new_episode(store)
    for i in (2, 0, 1):
        store.add_turn(episode_id, typed(make_turn(i, [SYSTEM])))
    assert [t.index for t in store.get_turns(episode_id)] == [0, 1, 2]


def test_turn_index_is_unique_per_episode(any_db: str) -> None:
    store = TranscriptStore(any_db)
    run_id, episode_id = new_episode(store)
    store.add_turn(episode_id, typed(make_turn(0, [SYSTEM, image_message(0)])))
    with pytest.raises(TurnExistsError):
        store.add_turn(episode_id, typed(make_turn(0, [SYSTEM, image_message(0, JPEG_URL)])))
    # The failed turn left nothing behind (not even its new image), and writing goes on.
    assert count(store, "SELECT count(*) FROM blobs WHERE media_type = 'image/jpeg'") == 0
    store.add_turn(episode_id, typed(make_turn(1, [SYSTEM, image_message(1, JPEG_URL)])))
    assert [t.index for t in store.get_turns(episode_id)] == [0, 1]
    assert count(store, "SELECT count(*) FROM blobs WHERE media_type = 'image/jpeg'") == 1
    # The same index in another episode is fine; an unknown episode is not.
    other = store.start_episode(run_id, "MiniGrid-Empty-5x5-v0", seed=8)
    store.add_turn(other, typed(make_turn(0, [SYSTEM])))
    with pytest.raises(KeyError):
        store.add_turn("no-such-episode", typed(make_turn(0, [SYSTEM])))


def test_finish_episode(any_db: str) -> None:
    store = TranscriptStore(any_db)
    run_id, episode_id = new_episode(store)
    assert store.get_episode(episode_id).status == "running"  # this process is alive
    for t in full_history_turns(2):
        store.add_turn(episode_id, typed(t))
    result = EpisodeResult(
        episode_id=episode_id,
        task="MiniGrid-Empty-5x5-v0",
        seed=7,
        success=True,
        reward=0.9,
        end_reason=EndReason.GOAL,
        scripts=2,
        turns=2,
        usage=Usage(201, 20, 0.002),
    )
    store.finish_episode(episode_id, result)

    episode = store.get_episode(episode_id)
    assert episode.status == "finished" and episode.success is True and episode.reward == 0.9
    assert episode.end_reason == "goal" and episode.turns == 2 and episode.scripts == 2
    assert (episode.input_tokens, episode.output_tokens, episode.cost_usd) == (201, 20, 0.002)
    assert episode.ended_at is not None and episode.ended_at >= episode.started_at
    assert [e.id for e in store.list_episodes(run_id=run_id, status="finished")] == [episode_id]
    assert store.list_episodes(status="running") == []
    assert store.list_episodes(task="other-task") == []
    assert store.mark_unfinished(episode_id) is False  # a finished episode stays finished
    with pytest.raises(KeyError):
        store.finish_episode("no-such-episode", result)


def test_episode_of_a_running_writer_is_running_with_live_totals(tmp_path: Path) -> None:
    store = TranscriptStore(db_url(tmp_path))
    _, episode_id = new_episode(store)
    for t in full_history_turns(3):
        store.add_turn(episode_id, typed(t))
    episode = store.get_episode(episode_id)
    assert episode.status == "running" and episode.turns == 3 and episode.input_tokens == 100 + 101 + 102
    assert store.close_stale() == []
    assert store.mark_unfinished(episode_id, error="loop crashed") is True
    episode = store.get_episode(episode_id)
    assert episode.status == "unfinished" and episode.error == "loop crashed" and episode.turns == 3


# --- crashes and concurrency -------------------------------------------------------------------------


def test_killed_writer_leaves_a_sound_db_and_an_unfinished_episode(tmp_path: Path) -> None:
    url = db_url(tmp_path)
    child = run_child(
        CHILD_PRELUDE
        + """
    store = TranscriptStore(sys.argv[1])
    run_id = store.create_run("gridworld", ["t"], "m", {}, {})
    episode_id = store.start_episode(run_id, "t", 0)
    for i in range(2):
        store.add_turn(episode_id, turn(i, [Message("user", f"turn {i}")]))
    print(episode_id, flush=True)
    time.sleep(120)
    """,
        url,
    )
    episode_id = child.stdout.readline().strip()
    assert episode_id, child.stderr.read()
    os.kill(child.pid, signal.SIGKILL)
    child.wait()

    db = sqlite3.connect(tmp_path / "t.db")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()

    store = TranscriptStore(url)
    assert [t.index for t in store.get_turns(episode_id)] == [0, 1]
    episode = store.get_episode(episode_id)
    assert episode.status == "unfinished" and episode.turns == 2
    assert [e.id for e in store.list_episodes(status="unfinished")] == [episode_id]
    assert store.list_episodes(status="running") == []
    assert store.get_run(episode.run_id).status == "unfinished"

    assert store.close_stale() == [episode_id]  # rewrite what readers already report
    with store.engine.connect() as conn:
        stored = conn.exec_driver_sql("SELECT status, turns FROM episodes WHERE id = ?", (episode_id,)).one()
    assert tuple(stored) == ("unfinished", 2)
    assert store.close_stale() == []


def test_kill_during_a_stream_of_turns_loses_at_most_the_turn_in_flight(tmp_path: Path) -> None:
    url = db_url(tmp_path)
    child = run_child(
        CHILD_PRELUDE
        + """
    store = TranscriptStore(sys.argv[1])
    run_id = store.create_run("gridworld", ["t"], "m", {}, {})
    episode_id = store.start_episode(run_id, "t", 0)
    print(episode_id, flush=True)
    history = [Message("system", "sys")]
    for i in range(100000):
        history = history + [Message("user", f"turn {i} " * 50)]
        store.add_turn(episode_id, turn(i, history))
        print(i, flush=True)
    """,
        url,
    )
    episode_id = child.stdout.readline().strip()
    assert episode_id, child.stderr.read()
    last = -1
    while last < 30:
        line = child.stdout.readline()
        assert line, child.stderr.read()
        last = int(line)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()

    db = sqlite3.connect(tmp_path / "t.db")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    store = TranscriptStore(url)
    turns = store.get_turns(episode_id)
    indexes = [t.index for t in turns]
    assert indexes == list(range(len(turns))) and len(turns) >= last + 1
    assert all(len(t.messages) == t.index + 2 for t in turns)  # every stored turn is complete
    assert store.get_episode(episode_id).status == "unfinished"


def test_two_processes_write_the_same_file_concurrently(tmp_path: Path) -> None:
    url = db_url(tmp_path)
    TranscriptStore(url).close()  # both writers find the tables
    go = tmp_path / "go"
    code = (
        CHILD_PRELUDE
        + """
    import os
    store = TranscriptStore(sys.argv[1])
    run_id = store.create_run("gridworld", ["t"], "m", {}, {})
    episode_id = store.start_episode(run_id, "t", 0)
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.001)
    shared = Message("system", "the same system prompt in both processes")
    for i in range(150):
        store.add_turn(episode_id, turn(i, [shared, Message("user", f"{episode_id} {i}")]))
    store.finish_episode(episode_id, __import__("agentkit.records").records.EpisodeResult(
        episode_id=episode_id, task="t", seed=0, success=False, reward=0.0,
        end_reason=__import__("agentkit.records").records.EndReason.TIME_LIMIT, scripts=0, turns=150))
    print(episode_id, flush=True)
    """
    )
    children = [run_child(code, url, str(go)) for _ in range(2)]
    time.sleep(0.5)
    go.touch()
    outputs = [c.communicate(timeout=120) for c in children]
    for child, (_out, err) in zip(children, outputs):
        assert child.returncode == 0, err
    store = TranscriptStore(url)
    episodes = store.list_episodes(status="finished")
    assert sorted(e.id for e in episodes) == sorted(out.strip() for out, _ in outputs)
    assert all(len(store.get_turns(e.id, with_messages=False)) == 150 for e in episodes)
    assert count(store, "SELECT count(*) FROM turns") == 300
    assert count(store, "SELECT count(*) FROM blobs") == 1 + 300  # the shared prompt once


# --- secrets -----------------------------------------------------------------------------------------


def test_scrub_secrets_drops_credentials_and_keeps_the_rest() -> None:
    config = {
        "model": "gpt-4o",
        "api_key": "sk-live",
        "OPENAI_API_KEY": "sk-live",
        "apiKey": "x",
        "max_tokens": 512,
        "token_budget": 10000,
        "api_key_env": "OPENAI_API_KEY",
        "client": {
            "headers": {"Authorization": "Bearer abc", "X-Api-Key": "k", "Accept": "application/json"},
            "access_token": "t",
            "client_secret": "s",
            "db_password": "p",
            "extra_args": ["--verbose", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz"],
            "notes": "uses key sk-abcdefghijklmnopqrstuvwxyz123456",
        },
        "seeds": (1, 2),
    }
    original = json.dumps(config, default=list)
    scrubbed = scrub_secrets(config)
    assert scrubbed == {
        "model": "gpt-4o",
        "max_tokens": 512,
        "token_budget": 10000,
        "api_key_env": "OPENAI_API_KEY",
        "client": {
            "headers": {"Accept": "application/json"},
            "extra_args": ["--verbose", "[redacted]"],
            "notes": "[redacted]",
        },
        "seeds": (1, 2),
    }
    assert json.dumps(config, default=list) == original  # the input is untouched


def test_run_config_is_stored_without_secrets(tmp_path: Path) -> None:
    store = TranscriptStore(db_url(tmp_path))
    run_id, _ = new_episode(
        store, config={"temperature": 0.2, "api_key": "sk-secret", "headers": {"authorization": "x"}}
    )
    assert store.get_run(run_id).config == {"temperature": 0.2, "headers": {}}
    raw = (tmp_path / "t.db").read_bytes() + (tmp_path / "t.db-wal").read_bytes()
    assert b"sk-secret" not in raw


def test_templates_hash_ignores_order_and_sees_changes() -> None:
    a = templates_hash({"a.j2": "x", "b.j2": "y"})
    assert a == templates_hash({"b.j2": "y", "a.j2": "x"})
    assert a != templates_hash({"a.j2": "x", "b.j2": "y "})
    assert a != templates_hash({"a.j2x": "", "b.j2": "y"})


# --- export ------------------------------------------------------------------------------------------


def test_export_with_image_files(tmp_path: Path) -> None:
    store = TranscriptStore(db_url(tmp_path))
    run_id, episode_id = new_episode(store)
    turns = full_history_turns(3)
    turns[0].observation["images"] = [{"label": "view", "media_type": "image/png", "sha256": PNG_SHA}]
    for t in turns:
        store.add_turn(episode_id, typed(t))
    out = tmp_path / "exports" / "run.jsonl"

    assert export_jsonl(store, run_id, out) == 3
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["index"] for line in lines] == [0, 1, 2]
    first = lines[0]
    assert first["run_id"] == run_id and first["episode_id"] == episode_id and first["model"] == "fake/model"
    assert (
        first["task"] == "MiniGrid-Empty-5x5-v0"
        and first["seed"] == 7
        and first["episode_status"] == "running"
    )
    part = first["messages"][1]["content"][1]
    assert part["type"] == "image_file" and part["sha256"] == PNG_SHA
    assert not Path(part["path"]).is_absolute()
    assert (out.parent / part["path"]).read_bytes() == PNG
    assert (out.parent / first["observation"]["images"][0]["path"]).read_bytes() == PNG
    assert [p.name for p in (out.parent / "run_images").iterdir()] == [f"{PNG_SHA}.png"]
    assert "base64" not in out.read_text()


def test_export_with_data_urls(tmp_path: Path) -> None:
    store = TranscriptStore(db_url(tmp_path))
    _, episode_id = new_episode(store)
    turns = full_history_turns(2)
    for t in turns:
        store.add_turn(episode_id, typed(t))
    out = tmp_path / "episode.jsonl"

    assert export_jsonl(store, [episode_id], out, images="data_url") == 2
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["messages"] for line in lines] == [t.messages for t in turns]
    assert not (tmp_path / "episode_images").exists()
    assert export_jsonl(store, episode_id, tmp_path / "same.jsonl", images="data_url") == 2
    assert (tmp_path / "same.jsonl").read_text() == out.read_text()
    with pytest.raises(KeyError):
        export_jsonl(store, "no-such-id", tmp_path / "x.jsonl")


def test_images_handed_over_by_the_loop_are_stored_exactly_like_decoded_ones(tmp_path):
    """The loop hands typed messages whose image parts carry the observer's bytes and hashes; the
    store must use them instead of decoding, and the result must be indistinguishable from
    decoding the data URL of the same frame."""
    import numpy as np

    from agentkit.messages import ImagePart, TextPart, message_from_openai
    from agentkit.observers.image_encoding import encode_image

    frame = encode_image(np.random.default_rng(1).integers(0, 255, (64, 64, 3), dtype=np.uint8), "camera")
    url = "data:" + frame.media_type + ";base64," + base64.b64encode(frame.data).decode("ascii")

    def message(handed_over: bool) -> Message:
        if handed_over:
            return Message("user", (TextPart("look"), ImagePart(frame.data, frame.media_type, frame.sha256)))
        return message_from_openai(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            }
        )

    stored = {}
    for handed_over in (True, False):
        with TranscriptStore(f"sqlite:///{tmp_path / f'{handed_over}.db'}") as store:
            run = store.create_run("aai-arena", ["t"], "m", {}, {"system.j2": "x"})
            episode = store.start_episode(run, "t", 0)
            store.add_turn(episode, make_turn(0, [message(handed_over)]))
            (turn,) = store.get_turns(episode)
            blob = store.get_blob(frame.sha256)
            stored[handed_over] = (turn.messages, blob.data, blob.media_type)
    assert stored[True] == stored[False]
    assert stored[True][0][0]["content"][1]["image_url"]["url"] == url and stored[True][1] == frame.data


def test_start_episode_says_which_of_run_or_episode_is_wrong(tmp_path: Path) -> None:
    with TranscriptStore(db_url(tmp_path)) as store:
        run = store.create_run("gridworld", ["t"], "m", {}, {"system.j2": "x"})
        store.start_episode(run, "t", 0, episode_id="e1")
        with pytest.raises(KeyError, match="episode e1 exists already"):
            store.start_episode(run, "t", 0, episode_id="e1")
        with pytest.raises(KeyError, match="no run 'nope'"):
            store.start_episode("nope", "t", 0, episode_id="e2")
