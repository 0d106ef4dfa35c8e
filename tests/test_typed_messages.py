"""Typed prompt messages (``agentkit.messages``) go into the store by their images' sha256.

A prompt of typed messages is written through the real store into a SQLite file and read back as
the very OpenAI-style dicts an equal prompt of data-URL dicts (read with ``messages_from_openai``)
reads back as; the image is stored once, from the part's own bytes, under its sha256; full-history
prompts of typed messages write only each turn's new rows. A dict handed to ``add_turn`` as it is
is refused with one line naming its place.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import pytest

from agentkit.messages import ImagePart, Message, TextPart, messages_from_openai
from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptStore

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 3
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode("ascii")


def record(index: int, messages: list[Any]) -> TurnRecord:
    return TurnRecord(
        index=index,
        observation={"step": index},
        messages=messages,
        answer=f"answer {index}",
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


def typed_prompt(turns: int) -> list[Message]:
    out = [Message("system", "You control an agent.")]
    for i in range(turns):
        out.append(Message("user", (TextPart(f"Step {i}."), ImagePart.of(PNG, "image/png"))))
        out.append(Message("assistant", f"answer {i}"))
    return out


def dict_prompt(turns: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": "You control an agent."}]
    for i in range(turns):
        out.append(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"Step {i}."},
                    {"type": "image_url", "image_url": {"url": PNG_URL}},
                ],
            }
        )
        out.append({"role": "assistant", "content": f"answer {i}"})
    return out


def _episode(store: TranscriptStore, prompts: list[list[Any]]) -> str:
    run = store.create_run("gridworld", ["t"], "m", {}, {"system.j2": "x"})
    episode = store.start_episode(run, "t", 0)
    for index, prompt in enumerate(prompts):
        store.add_turn(episode, record(index, prompt))
    return episode


def test_typed_prompt_reads_back_as_the_equal_data_url_prompt(tmp_path: Path) -> None:
    with (
        TranscriptStore(f"sqlite:///{tmp_path / 'typed.db'}") as typed,
        TranscriptStore(f"sqlite:///{tmp_path / 'dicts.db'}") as dicts,
    ):
        a = _episode(typed, [typed_prompt(t)[:-1] for t in range(1, 4)])
        b = _episode(dicts, [messages_from_openai(dict_prompt(t)[:-1]) for t in range(1, 4)])
        got = [t.messages for t in typed.get_turns(a)]
        assert got == [t.messages for t in dicts.get_turns(b)]
        assert got[-1][-1]["content"][1] == {"type": "image_url", "image_url": {"url": PNG_URL}}
        refs = [t.messages for t in typed.get_turns(a, images="ref")]
        assert refs[0][1]["content"][1]["sha256"] == hashlib.sha256(PNG).hexdigest()


def test_image_is_stored_once_under_its_sha_and_only_new_rows_are_written(tmp_path: Path) -> None:
    with TranscriptStore(f"sqlite:///{tmp_path / 'typed.db'}") as store:
        full = typed_prompt(5)
        _episode(store, [full[: 2 * t + 2] for t in range(5)])  # turn t: system, history, its user message
        with store.engine.connect() as conn:
            shas = [
                r[0] for r in conn.exec_driver_sql("SELECT sha256 FROM blobs WHERE media_type = 'image/png'")
            ]
            rows = conn.exec_driver_sql("SELECT count(*) FROM episode_messages").scalar_one()
    assert shas == [hashlib.sha256(PNG).hexdigest()]
    assert rows == 10  # system + 5 users + 4 answers: every message row written once


def test_a_dict_message_is_refused_by_add_turn_naming_its_place_and_nothing_is_stored(tmp_path: Path) -> None:
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        run = store.create_run("gridworld", ["t"], "m", {}, {"system.j2": "x"})
        episode = store.start_episode(run, "t", 0)
        prompt: list[Any] = [Message("system", "s"), {"role": "user", "content": "hi"}]
        with pytest.raises(TypeError, match=r"^turn 0, messages\[1\]: .*Message, not dict") as refused:
            store.add_turn(episode, record(0, prompt))
        assert "\n" not in str(refused.value)  # one line
        assert store.get_turns(episode) == []


def test_image_parts_are_equal_by_their_sha256_and_messages_by_value() -> None:
    a = ImagePart.of(PNG, "image/png")
    same = ImagePart(bytes(PNG), "image/png", a.sha256)  # other bytes object, same image
    other = ImagePart.of(PNG + b"\0", "image/png")
    assert a == same and hash(a) == hash(same) and a != other
    assert Message("user", (TextPart("x"), a)) == Message("user", (TextPart("x"), same))
    assert Message("user", (TextPart("x"), a)) != Message("user", (TextPart("y"), a))
    assert Message("user", (TextPart("x"), a)).images == (a,)
    assert Message("user", (TextPart("x"), a, TextPart("y"))).text == "x\ny"
