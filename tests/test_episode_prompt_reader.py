"""TranscriptReader.episode_prompt_reader: whole episodes with their prompts as the caller's messages.

Episodes are written through the real store into SQLite; what the reader gives back is compared
with what was sent and with ``get_turns``, and the work it saves is checked as behaviour: one
call of the caller's ``message`` per distinct stored message for all episodes read, and no blob
read again for an episode whose contents an earlier one already loaded.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from sqlalchemy import event
from typed_turns import typed  # tests/support/

from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptStore

SYSTEM = {"role": "system", "content": "You steer a robot."}


def turn(index: int, messages: list[dict[str, Any]], **fields: Any) -> TurnRecord:
    values: dict[str, Any] = {
        "index": index,
        "observation": {"step": index},
        "messages": messages,
        "answer": f"answer {index}",
        "usage": Usage(1, 1, 0.0),
        "latency_s": 0.0,
        "cached": False,
        "script": None,
        "parse_error": None,
        "compile_error": None,
        "actions": [],
        "reward": 0.0,
        "total_reward": 0.0,
        "health": None,
        "done": False,
        "timings": {},
    }
    values.update(fields)
    return TurnRecord(**values)


def prompts() -> list[list[dict[str, Any]]]:
    """Three turns of full history, with a tool result (extra keys) in the second turn's history."""
    user = [{"role": "user", "content": f"step {i}"} for i in range(3)]
    first = [SYSTEM, user[0]]
    second = [
        *first,
        {"role": "assistant", "content": "answer 0"},
        {"role": "tool", "content": "refused", "tool_call_id": "c1"},
        user[1],
    ]
    third = [*second, {"role": "assistant", "content": "answer 1"}, user[2]]
    return [first, second, third]


def record(store: TranscriptStore, run_id: str, seed: int) -> str:
    episode = store.start_episode(run_id, "t", seed=seed)
    sent = prompts()
    store.add_turn(episode, typed(turn(0, sent[0], parse_error={"message": "no script", "kind": "syntax"})))
    store.add_turn(
        episode,
        typed(turn(1, sent[1], tool_calls=[{"id": "c2", "name": "forward", "arguments": "{}"}])),
    )
    store.add_turn(episode, typed(turn(2, sent[2], compile_error="unknown object")))
    return episode


def make(role: str, content: Any, extra: dict[str, Any] | None) -> tuple[str, str, str]:
    return (role, str(content), repr(sorted(extra.items())) if extra else "")


def as_made(message: dict[str, Any]) -> tuple[str, str, str]:
    extra = {k: v for k, v in message.items() if k not in ("role", "content")}
    return make(message["role"], message["content"], extra or None)


def test_episodes_read_back_as_recorded_with_each_message_made_once(tmp_path: Path) -> None:
    store = TranscriptStore(f"sqlite:///{tmp_path / 't.db'}")
    run_id = store.create_run("gridworld", ["t"], "fake/model", {}, {"system.j2": "x"})
    first, second = record(store, run_id, 1), record(store, run_id, 2)

    calls: list[tuple[str, Any, Any]] = []

    def counting(role: str, content: Any, extra: dict[str, Any] | None) -> tuple[str, str, str]:
        calls.append((role, content, extra))
        return make(role, content, extra)

    statements: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    with store.episode_prompt_reader(counting) as reader:
        turns = reader.read(first)
        made_first = len(calls)
        blob_reads = sum("FROM blobs" in s for s in statements)
        again = reader.read(second)
        blob_reads_after = sum("FROM blobs" in s for s in statements)
        assert reader.read("no-such-episode") == []

    sent = prompts()
    assert [t.index for t in turns] == [0, 1, 2]
    assert [t.messages for t in turns] == [[as_made(m) for m in p] for p in sent]
    assert [t.observation for t in turns] == [{"step": 0}, {"step": 1}, {"step": 2}]
    assert [t.answer for t in turns] == ["answer 0", "answer 1", "answer 2"]
    assert turns[0].parse_error == {"message": "no script", "kind": "syntax"}
    assert [t.compile_error for t in turns] == [None, None, "unknown object"]
    assert [t.tool_calls for t in turns] == [None, [{"id": "c2", "name": "forward", "arguments": "{}"}], None]
    assert {"tool_call_id": "c1"} in [c[2] for c in calls]
    # the same messages as the general reader gives, message for message
    assert [t.messages for t in turns] == [
        [as_made(m) for m in t.messages or []] for t in store.get_turns(first)
    ]

    # distinct messages: system, 3 users, 2 answers, 1 tool result; equal messages are one object
    assert made_first == len(calls) == 7
    assert turns[2].messages[0] is turns[0].messages[0]
    # the second episode repeats the first's messages: same objects, and no blob read again
    assert [t.messages for t in again] == [t.messages for t in turns]
    assert again[1].messages[-1] is turns[1].messages[-1]
    assert blob_reads >= 1 and blob_reads_after == blob_reads
    store.close()


def test_a_message_whose_blob_is_gone_reads_as_empty_content(tmp_path: Path) -> None:
    store = TranscriptStore(f"sqlite:///{tmp_path / 't.db'}")
    run_id = store.create_run("gridworld", ["t"], "fake/model", {}, {"system.j2": "x"})
    episode = record(store, run_id, 1)
    with closing(sqlite3.connect(tmp_path / "t.db")) as db, db:  # foreign keys off: a blob lost by hand
        assert db.execute("DELETE FROM blobs WHERE data = ?", (b'"You steer a robot."',)).rowcount == 1
    with store.episode_prompt_reader(make) as reader:
        turns = reader.read(episode)
    assert [t.messages[0] for t in turns] == [("system", "", "")] * 3
    assert turns[0].messages[1] == ("user", "step 0", "")
    store.close()
