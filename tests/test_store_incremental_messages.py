"""A turn writes only its new messages (schema 2), and every turn's prompt reads back exactly as sent.

Full history, a sliding window and a markovian prompt are written through the real store into
SQLite files; the rows written per turn are counted; a database in the schema-1 layout (every
turn's messages in ``messages``, written here the way the previous release wrote it) still reads,
also after this release adds turns to it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert
from typed_turns import typed  # tests/support/

from agentkit.offline.rerender import _Messages
from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptReader, TranscriptStore, make_engine
from agentkit.transcripts.db import canonical_json
from agentkit.transcripts.schema import Base, Blob, Episode, Message, Run, Turn
from agentkit.transcripts.schema_version import SCHEMA_VERSION
from agentkit.transcripts.store import templates_hash
from agentkit.viewer.queries import ViewerData

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 2
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode("ascii")
SYSTEM = {"role": "system", "content": "You control an agent in a grid world."}


def user(i: int, image: bool = False, detail: bool = False) -> dict[str, Any]:
    """An observation as it reads back; ``detail``: its image with the ``detail`` option, which only
    the dict messages of earlier releases stored (typed messages carry no such option)."""
    if not image:
        return {"role": "user", "content": f"Step {i}. What do you do?"}
    image_url = {"url": PNG_URL, "detail": "low"} if detail else {"url": PNG_URL}
    return {
        "role": "user",
        "content": [{"type": "text", "text": f"Step {i}."}, {"type": "image_url", "image_url": image_url}],
    }


def answer(i: int) -> dict[str, Any]:
    # Answers repeat ("forward" every other turn): equal rows must still read back in their places.
    return {"role": "assistant", "content": "forward" if i % 2 else f"left {i}"}


def record(index: int, messages: list[dict[str, Any]]) -> TurnRecord:
    return TurnRecord(
        index=index,
        observation={"step": index},
        messages=messages,
        answer=answer(index)["content"],
        usage=Usage(1, 1, 0.0),
        latency_s=0.0,
        cached=False,
        script=None,
        parse_error=None,
        compile_error=None,
        actions=[],
        reward=0.0,
        total_reward=0.0,
        health=None,
        done=False,
        timings={},
    )


def prompts(policy: str, n: int, window: int = 2, detail: bool = False) -> list[list[dict[str, Any]]]:
    """The prompt of each of ``n`` turns under a memory policy: full, window (last ``window``
    exchanges) or markovian (system and the current observation only)."""
    out = []
    for t in range(n):
        history = [m for i in range(t) for m in (user(i, i % 3 == 0, detail), answer(i))]
        if policy == "window":
            history = history[-2 * window :]
        elif policy == "markovian":
            history = []
        out.append([SYSTEM, *history, user(t, t % 3 == 0, detail)])
    return out


def rows(store: TranscriptStore, table: str) -> int:
    with store.engine.connect() as conn:
        return conn.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar_one()


def rerender_reads(store: TranscriptReader, episode: str) -> list[list[Any]]:
    """The recorded prompts as ``agentkit rerender`` reads them (interned message tuples)."""
    msgs = _Messages(None)  # type: ignore[arg-type]  # no token counting
    with store.episode_prompt_reader(msgs.of_content) as reader:
        return [turn.messages for turn in reader.read(episode)]


def rerender_messages(sent: list[list[dict[str, Any]]]) -> list[list[Any]]:
    msgs = _Messages(None)  # type: ignore[arg-type]
    return [[msgs.of_message(m) for m in prompt] for prompt in sent]


def new_episode(store: TranscriptStore) -> str:
    run_id = store.create_run("gridworld", ["t"], "fake/model", {}, {"system.j2": "x"})
    return store.start_episode(run_id, "t", seed=1)


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "core"])
@pytest.mark.parametrize("policy", ["full", "window", "markovian"])
def test_each_turn_reads_back_exactly_the_prompt_it_sent(
    tmp_path: Path, policy: str, fast_path: bool
) -> None:
    sent = prompts(policy, 12)
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}", fast_path=fast_path) as store:
        episode = new_episode(store)
        for i, prompt in enumerate(sent):
            store.add_turn(episode, typed(record(i, prompt)))
        assert [t.messages for t in store.get_turns(episode)] == sent
        queries = ViewerData(store)
        assert [queries.turn(episode, i).messages[-1]["content"] for i in (0, 5, 11)] == [
            json.loads(canonical_json(sent[i][-1]["content"]))
            if i % 3
            else [
                {"type": "text", "text": f"Step {i}."},
                {"type": "image_ref", "sha256": hashlib.sha256(PNG).hexdigest(), "media_type": "image/png"},
            ]
            for i in (0, 5, 11)
        ]
        assert rerender_reads(store, episode) == rerender_messages(sent)
        assert rows(store, "messages") == 0


def test_a_reader_without_the_writer_reads_the_same_prompts(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 't.db'}"
    sent = prompts("window", 5)
    with TranscriptStore(url) as store:
        episode = new_episode(store)
        for i, prompt in enumerate(sent):
            store.add_turn(episode, typed(record(i, prompt)))
    engine = make_engine(url, create_tables=False)
    reader = TranscriptReader(engine)
    assert [t.messages for t in reader.get_turns(episode, images="data_url")] == sent
    assert reader.get_episode(episode).turns == 5 and reader.schema_version() == SCHEMA_VERSION
    assert rerender_reads(reader, episode) == rerender_messages(sent)
    engine.dispose()


def test_full_history_writes_each_message_once(tmp_path: Path) -> None:
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        episode = new_episode(store)
        written = []
        for i, prompt in enumerate(prompts("full", 100)):
            store.add_turn(episode, typed(record(i, prompt)))
            written.append(rows(store, "episode_messages"))
        # The system message and the first observation, then one answer and one observation a turn:
        # 200 rows for 100 turns (schema 1 wrote 2 + 4 + ... + 200 = 10,100).
        assert written[:3] == [2, 4, 6] and written[-1] == 200
        with store.engine.connect() as conn:
            spans = [
                json.loads(s) for (s,) in conn.exec_driver_sql("SELECT prompt_spans FROM turns ORDER BY id")
            ]
        assert spans[0] == [[0, 2]] and spans[99] == [[0, 200]]


def test_a_markovian_prompt_writes_only_its_observation(tmp_path: Path) -> None:
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        episode = new_episode(store)
        for i, prompt in enumerate(prompts("markovian", 6)):
            store.add_turn(episode, typed(record(i, prompt)))
        assert rows(store, "episode_messages") == 7  # the system message once, six observations


def test_another_store_continues_an_episode_it_did_not_start(tmp_path: Path) -> None:
    """A resumed writer (a new process) reads the episode's rows back before writing the next turn."""
    url = f"sqlite:///{tmp_path / 't.db'}"
    sent = prompts("window", 8)
    with TranscriptStore(url) as first:
        episode = new_episode(first)
        for i in range(4):
            first.add_turn(episode, typed(record(i, sent[i])))
    with TranscriptStore(url) as second:
        for i in range(4, 8):
            second.add_turn(episode, typed(record(i, sent[i])))
        assert [t.messages for t in second.get_turns(episode)] == sent


def test_two_stores_taking_turns_on_one_episode_keep_every_prompt(tmp_path: Path) -> None:
    """A store whose remembered rows went stale (another store wrote the episode since) reads them back."""
    url = f"sqlite:///{tmp_path / 't.db'}"
    sent = prompts("full", 6)
    with TranscriptStore(url) as a, TranscriptStore(url) as b:
        episode = new_episode(a)
        for i, prompt in enumerate(sent):
            (a if i % 2 == 0 else b).add_turn(episode, typed(record(i, prompt)))
        assert [t.messages for t in a.get_turns(episode)] == sent
        assert rows(a, "episode_messages") == 2 * 6


def test_a_failed_turn_leaves_no_rows_the_next_turn_relies_on(tmp_path: Path) -> None:
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        episode = new_episode(store)
        sent = prompts("full", 3)
        store.add_turn(episode, typed(record(0, sent[0])))
        with pytest.raises(Exception, match="already has turn 0"):
            store.add_turn(episode, typed(record(0, sent[1])))  # rolled back, rows and all
        store.add_turn(episode, typed(record(1, sent[1])))
        store.add_turn(episode, typed(record(2, sent[2])))
        assert [t.messages for t in store.get_turns(episode)] == sent


# --- a database in the schema-1 layout -------------------------------------------------------------------


def write_schema1(path: Path, sent: list[list[dict[str, Any]]]) -> str:
    """A database as the previous release wrote it: no ``agentkit_schema``, ``episode_messages`` or
    ``turn_prompts`` tables; every message of every turn a ``messages`` row pointing at the canonical
    JSON of its content in ``blobs``, images as ``image_ref`` parts of their own blobs."""
    engine = make_engine(f"sqlite:///{path}", create_tables=False)
    old_tables = [
        t
        for name, t in Base.metadata.tables.items()
        if name not in ("agentkit_schema", "episode_messages", "turn_prompts")
    ]
    blobs: dict[str, dict[str, Any]] = {}

    def blob(data: bytes, media_type: str) -> str:
        sha = hashlib.sha256(data).hexdigest()
        blobs[sha] = {"sha256": sha, "media_type": media_type, "data": data, "size": len(data)}
        return sha

    def stored(content: Any) -> Any:
        if not isinstance(content, list):
            return content
        parts = []
        for part in content:
            if part.get("type") == "image_url":
                header, payload = part["image_url"]["url"][5:].split(",", 1)
                media_type = header.removesuffix(";base64")
                ref = {
                    "type": "image_ref",
                    "sha256": blob(base64.b64decode(payload), media_type),
                    "media_type": media_type,
                }
                options = {k: v for k, v in part["image_url"].items() if k != "url"}  # e.g. "detail"
                parts.append({**ref, "image_url_options": options} if options else ref)
            else:
                parts.append(part)
        return parts

    from datetime import datetime, timezone

    now = datetime.now(timezone.utc)
    with engine.begin() as conn:
        Base.metadata.create_all(conn, tables=old_tables)
        conn.execute(
            insert(Run.__table__),
            {
                "id": "run1",
                "created_at": now,
                "env": "gridworld",
                "tasks": ["t"],
                "model": "fake/model",
                "config": {},
                "templates": {"system.j2": "x"},
                "templates_hash": templates_hash({"system.j2": "x"}),
                "agentkit_version": "0.old",
                "status": "finished",
            },
        )
        conn.execute(
            insert(Episode.__table__),
            {
                "id": "ep1",
                "run_id": "run1",
                "task": "t",
                "seed": 1,
                "trial": 0,
                "attempt": 0,
                "status": "finished",
                "started_at": now,
            },
        )
        message_rows = []
        for i, prompt in enumerate(sent):
            r = record(i, prompt)
            turn_id = conn.execute(
                insert(Turn.__table__),
                {
                    "episode_id": "ep1",
                    "index": i,
                    "observation": r.observation,
                    "answer": r.answer,
                    "script": None,
                    "parse_error": None,
                    "compile_error": None,
                    "actions": [],
                    "reward": 0.0,
                    "total_reward": 0.0,
                    "health": None,
                    "done": False,
                    "timings": {},
                    "input_tokens": 1,
                    "output_tokens": 1,
                    "cost_usd": 0.0,
                    "latency_s": 0.0,
                    "cached": False,
                    "created_at": 0.0,
                },
            ).inserted_primary_key[0]
            for position, m in enumerate(prompt):
                sha = blob(canonical_json(stored(m["content"])), "application/json")
                extra = {k: v for k, v in m.items() if k not in ("role", "content")} or None
                message_rows.append(
                    {
                        "turn_id": turn_id,
                        "position": position,
                        "role": m["role"],
                        "content_sha256": sha,
                        "extra": extra,
                    }
                )
        conn.execute(insert(Blob.__table__), list(blobs.values()))
        conn.execute(insert(Message.__table__), message_rows)
    engine.dispose()
    return "ep1"


def test_a_schema1_database_reads_as_it_was_written(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    sent = prompts("window", 6, detail=True)  # as the dict messages of that release were stored
    episode = write_schema1(path, sent)
    with TranscriptStore(f"sqlite:///{path}") as store:
        assert [t.messages for t in store.get_turns(episode)] == sent
        assert ViewerData(store).turn(episode, 4).messages[0] == SYSTEM
        assert rerender_reads(store, episode) == rerender_messages(sent)


def test_a_schema1_database_takes_new_turns_and_reads_both(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    sent = prompts("full", 7)
    episode = write_schema1(path, sent[:4])
    with TranscriptStore(f"sqlite:///{path}") as store:
        for i in range(4, 7):
            store.add_turn(episode, typed(record(i, sent[i])))
        assert [t.messages for t in store.get_turns(episode)] == sent
        assert rows(store, "messages") == 2 + 4 + 6 + 8  # the old turns' rows, untouched


@pytest.mark.parametrize("policy", ["full", "markovian"])
def test_turns_with_spans_in_turn_prompts_and_in_their_rows_read_alike(tmp_path: Path, policy: str) -> None:
    """Schema 2-4 kept a turn's spans in ``turn_prompts``; schema 5 keeps them in ``turns.prompt_spans``.
    An episode continued across the upgrade has both; every reader gives back each turn's prompt."""
    sent = prompts(policy, 8)
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        episode = new_episode(store)
        for i, prompt in enumerate(sent):
            store.add_turn(episode, typed(record(i, prompt)))
        with store.engine.begin() as conn:  # the first five turns as schema 4 wrote them
            conn.exec_driver_sql(
                'INSERT INTO turn_prompts (turn_id, spans) SELECT id, prompt_spans FROM turns WHERE "index" < 5'
            )
            conn.exec_driver_sql('UPDATE turns SET prompt_spans = NULL WHERE "index" < 5')
        assert rows(store, "turn_prompts") == 5
    engine = make_engine(f"sqlite:///{tmp_path / 't.db'}")
    reader = TranscriptReader(engine)
    assert [t.messages for t in reader.get_turns(episode, images="data_url")] == sent
    assert [reader.get_turn(episode, i, images="data_url").messages for i in (0, 4, 5, 7)] == [
        sent[i] for i in (0, 4, 5, 7)
    ]  # type: ignore[union-attr]
    assert rerender_reads(reader, episode) == rerender_messages(sent)
    engine.dispose()
