"""Message rows that earlier releases stored from OpenAI-style dicts still read back as those dicts.

Why: ``add_turn`` now takes typed messages only, but a database written before kept what a dict
could say and a typed message cannot: an image's ``detail`` option (``image_url_options`` beside
an ``image_ref``), an image by web address or a data URL that is not base64 (kept inline), keys
beside role and content (the row's ``extra``), and a message without content. The rows are
written here as that path wrote them, over an episode stored through the real store.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

from agentkit.messages import ImagePart, Message, TextPart
from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptReader, TranscriptStore, make_engine
from agentkit.transcripts.db import canonical_json

FRAME = ImagePart.of(b"\x89PNG a frame stored by an earlier release", "image/png")
FRAME_URL = "data:image/png;base64," + base64.b64encode(FRAME.data).decode("ascii")
WEB_IMAGE = {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}}
NOT_BASE64 = {"type": "image_url", "image_url": {"url": "data:image/png;base64,not base64!"}}


def turn(index: int, messages: list[Message]) -> TurnRecord:
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


def rewrite_row(store: TranscriptStore, episode: str, seq: int, content: Any, extra: dict[str, Any]) -> None:
    """Point message row ``seq`` at ``content`` (stored JSON) with ``extra``, as the dict path wrote it."""
    data = canonical_json(content)
    sha = hashlib.sha256(data).hexdigest()
    with store.engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO blobs (sha256, media_type, data, size) VALUES (?, 'application/json', ?, ?)",
            (sha, data, len(data)),
        )
        conn.exec_driver_sql(
            "UPDATE episode_messages SET content_sha256 = ?, extra = ? WHERE episode_id = ? AND seq = ?",
            (sha, canonical_json(extra).decode("utf-8"), episode, seq),
        )


def test_rows_stored_from_dicts_read_back_as_the_dicts_sent(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    system = Message("system", "s")
    with TranscriptStore(url) as store:
        run = store.create_run("gridworld", ["t"], "m", {}, {"system.j2": "x"})
        episode = store.start_episode(run, "t", 0)
        looked = Message("user", (TextPart("look"), FRAME))
        store.add_turn(episode, turn(0, [system, looked]))
        store.add_turn(episode, turn(1, [system, looked, Message("assistant", "a"), Message("user", "u")]))
        stored_user = [
            {"type": "text", "text": "look"},
            {
                "type": "image_ref",
                "sha256": FRAME.sha256,
                "media_type": "image/png",
                "image_url_options": {"detail": "low"},
            },
            WEB_IMAGE,
            NOT_BASE64,
        ]
        rewrite_row(store, episode, 1, stored_user, {"name": "agent"})
        rewrite_row(store, episode, 2, None, {"name": "agent"})

    sent_user = {
        "role": "user",
        "name": "agent",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": FRAME_URL, "detail": "low"}},
            WEB_IMAGE,
            NOT_BASE64,
        ],
    }
    sent_answer = {"role": "assistant", "content": None, "name": "agent"}
    engine = make_engine(url, create_tables=False)
    reader = TranscriptReader(engine)
    first, second = reader.get_turns(episode)
    assert first.messages == [{"role": "system", "content": "s"}, sent_user]
    assert second.messages == [
        {"role": "system", "content": "s"},
        sent_user,
        sent_answer,
        {"role": "user", "content": "u"},
    ]
    one = reader.get_turn(episode, 1, images="ref")
    assert one is not None and one.messages is not None and one.messages[1]["content"][1] == stored_user[1]
    engine.dispose()
