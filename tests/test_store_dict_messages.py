"""TEMPORARY, with ``agentkit.transcripts.dict_messages``: dict messages reaching ``add_turn`` are
converted once at its edge and stored as before, alone or among typed messages. Delete with it."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from agentkit.messages import ImagePart, Message, TextPart
from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptStore

FRAME = ImagePart.of(b"\x89PNG frame", "image/png")
FRAME_URL = "data:image/png;base64," + base64.b64encode(FRAME.data).decode("ascii")


def turn(index: int, messages: list[Any]) -> TurnRecord:
    return TurnRecord(
        index=index,
        observation={"step": index},
        messages=messages,
        answer="ok",
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


def test_a_dict_among_typed_messages_reads_back_like_its_typed_twin(tmp_path: Path) -> None:
    typed_user = Message("user", (TextPart("look"), FRAME))
    dict_user = {
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": FRAME_URL}},
        ],
    }
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        run = store.create_run("gridworld", ["t"], "m", {}, {})
        episode = store.start_episode(run, "t", 0)
        store.add_turn(episode, turn(0, [Message("system", "s"), dict_user, Message("assistant", "a")]))
        store.add_turn(episode, turn(1, [Message("system", "s"), typed_user]))
        first, second = store.get_turns(episode)
        assert first.messages is not None and second.messages is not None
        assert first.messages[1] == second.messages[1] == dict_user
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM episode_messages").scalar_one() == 3
            assert (
                conn.exec_driver_sql("SELECT count(*) FROM blobs WHERE media_type = 'image/png'").scalar_one()
                == 1
            )
