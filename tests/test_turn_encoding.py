"""``encode_turn``: a turn and what the store knows in, the rows to insert out; no database here."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any, get_type_hints

import pytest

from agentkit.messages import ImagePart, Message, TextPart, ToolCall
from agentkit.records import ModelCall, TurnRecord, Usage
from agentkit.transcripts.prompt_spans import EpisodeMessages
from agentkit.transcripts.records import TurnInfo
from agentkit.transcripts.schema import Turn
from agentkit.transcripts.turn_encoding import (
    JSON_MEDIA_TYPE,
    KnownToStore,
    TurnRow,
    TurnRows,
    UntypedMessageError,
    encode_turn,
)

SYSTEM = Message("system", "You are an agent.")
FRAME = ImagePart.of(b"\x89PNG frame bytes", "image/png")
OTHER_FRAME = ImagePart.of(b"\x89PNG another frame", "image/png")


def turn(index: int, messages: list[Any], **overrides: Any) -> TurnRecord:
    values: dict[str, Any] = dict(
        index=index,
        observation={"step": index},
        messages=messages,
        answer=f"forward {index}",
        usage=Usage(100, 10, 0.001),
        latency_s=0.5,
        cached=False,
        script=[{"name": "forward", "args": []}],
        parse_error=None,
        compile_error=None,
        actions=[2],
        reward=0.0,
        total_reward=0.0,
        health=None,
        done=False,
        timings={"model": 0.5},
    )
    values.update(overrides)
    return TurnRecord(**values)


def encode(record: TurnRecord, known: KnownToStore | None = None) -> TurnRows:
    return encode_turn(
        record, known or KnownToStore(set(), EpisodeMessages()), episode_id="ep", created_at=1000.0
    )


def json_sha(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def committed(rows: TurnRows, log: EpisodeMessages, blobs: set[str]) -> KnownToStore:
    """What the store knows after committing ``rows`` (as ``TranscriptStore._add_turn`` records it)."""
    log.commit(rows.plan)
    blobs.update(b["sha256"] for b in rows.blobs)
    return KnownToStore(blobs, log, rows.prompt, dict(rows.encoded))


def test_a_text_turn_is_a_turn_row_two_content_blobs_and_two_message_rows() -> None:
    user = Message("user", "You see a wall.")
    rows = encode(turn(0, [SYSTEM, user]))

    assert rows.turn["episode_id"] == "ep" and rows.turn["index"] == 0
    assert rows.turn["created_at"] == 1000.0
    assert (rows.turn["input_tokens"], rows.turn["output_tokens"], rows.turn["cost_usd"]) == (100, 10, 0.001)
    assert rows.turn["answer"] == "forward 0" and rows.turn["actions"] == [2]
    assert rows.turn["prompt_spans"] == [[0, 2]]
    assert [(b["sha256"], b["media_type"]) for b in rows.blobs] == [
        (json_sha(SYSTEM.content), JSON_MEDIA_TYPE),
        (json_sha(user.content), JSON_MEDIA_TYPE),
    ]
    assert rows.blobs[0]["data"] == b'"You are an agent."' and rows.blobs[0]["size"] == 19
    assert [(m["seq"], m["role"], m["content_sha256"], m["extra"]) for m in rows.messages] == [
        (0, "system", json_sha(SYSTEM.content), None),
        (1, "user", json_sha(user.content), None),
    ]
    assert rows.context is None and rows.source is None and rows.call is None


def test_an_image_becomes_a_blob_and_an_image_ref_unless_already_stored() -> None:
    user = Message("user", (TextPart("Step 0."), ImagePart(FRAME.data, FRAME.media_type, FRAME.sha256)))
    stored_content = [
        {"type": "text", "text": "Step 0."},
        {"type": "image_ref", "sha256": FRAME.sha256, "media_type": "image/png"},
    ]

    fresh = encode(turn(0, [SYSTEM, user]))
    images = [b for b in fresh.blobs if b["media_type"] == "image/png"]
    assert images == [
        {"sha256": FRAME.sha256, "media_type": "image/png", "data": FRAME.data, "size": len(FRAME.data)}
    ]
    assert fresh.messages[1]["content_sha256"] == json_sha(stored_content)

    already = encode(turn(0, [SYSTEM, user]), KnownToStore({FRAME.sha256}, EpisodeMessages()))
    assert [b["media_type"] for b in already.blobs] == [JSON_MEDIA_TYPE, JSON_MEDIA_TYPE]
    assert already.messages[1]["content_sha256"] == json_sha(stored_content)


def test_a_message_sent_twice_in_one_prompt_is_one_blob() -> None:
    frame = Message("user", (TextPart("look"), FRAME))
    rows = encode(turn(0, [SYSTEM, frame, Message("assistant", "ok"), frame]))
    shas = [b["sha256"] for b in rows.blobs]
    assert len(shas) == len(set(shas)) == 4  # system, the frame's bytes, its content, the answer
    assert [m["content_sha256"] for m in rows.messages][1] == rows.messages[3]["content_sha256"]


def test_a_full_history_prompt_adds_only_its_new_messages() -> None:
    log, blobs = EpisodeMessages(), set[str]()
    first_user = Message("user", (TextPart("Step 0."), FRAME))
    first = encode(turn(0, [SYSTEM, first_user]))
    known = committed(first, log, blobs)

    answer = Message("assistant", "forward 0")
    second_user = Message("user", (TextPart("Step 1."), OTHER_FRAME))
    second = encode(turn(1, [SYSTEM, first_user, answer, second_user]), known)

    assert second.turn["prompt_spans"] == [[0, 4]]
    assert [(m["seq"], m["role"]) for m in second.messages] == [(2, "assistant"), (3, "user")]
    assert {b["sha256"] for b in second.blobs} == {
        json_sha("forward 0"),
        OTHER_FRAME.sha256,
        json_sha(
            [
                {"type": "text", "text": "Step 1."},
                {"type": "image_ref", "sha256": OTHER_FRAME.sha256, "media_type": "image/png"},
            ]
        ),
    }
    assert set(second.encoded) == {answer, second_user}  # the earlier messages were not encoded again


def test_a_windowed_prompt_names_earlier_rows_instead_of_adding_them() -> None:
    log, blobs = EpisodeMessages(), set[str]()
    steps = [Message("user", f"Step {i}.") for i in range(3)]
    known = committed(encode(turn(0, [SYSTEM, steps[0]])), log, blobs)
    known = committed(encode(turn(1, [SYSTEM, steps[0], steps[1]]), known), log, blobs)

    window = encode(turn(2, [SYSTEM, steps[1], steps[2]]), known)  # steps[0] fell out of the window
    assert window.turn["prompt_spans"] == [[0, 1], [2, 4]]
    assert [(m["seq"], m["content_sha256"]) for m in window.messages] == [(3, json_sha("Step 2."))]


def test_an_already_encoded_message_is_not_encoded_again() -> None:
    user = Message("user", (TextPart("look"), FRAME))
    first = encode(turn(0, [user]))
    known = KnownToStore({b["sha256"] for b in first.blobs}, EpisodeMessages(), encoded=dict(first.encoded))
    again = encode(turn(0, [user]), known)
    assert again.encoded == {} and again.blobs == []
    assert again.messages == first.messages


def test_tool_calls_and_results_keep_their_keys_in_the_row_extra() -> None:
    call = ToolCall("forward", '{"steps": 2}', "call_1")
    asked = Message("assistant", "", tool_calls=(call,))
    answered = Message("tool", "moved", tool_call_id="call_1")
    rows = encode(turn(0, [SYSTEM, asked, answered], tool_calls=[call.to_json()]))

    extras = [m["extra"] for m in rows.messages]
    assert extras == [
        None,
        {
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "forward", "arguments": '{"steps": 2}'},
                }
            ]
        },
        {"tool_call_id": "call_1"},
    ]
    assert rows.turn["tool_calls"] == [{"id": "call_1", "name": "forward", "arguments": '{"steps": 2}'}]
    assert rows.prompt.extras  # remembered, so the next turn's keys carry them too


def test_a_first_turn_carries_its_context_source_and_model_call_rows() -> None:
    rows = encode(
        turn(
            0,
            [SYSTEM],
            prompt_context={"limit": 30},
            world_map={"width": 5},
            task_source={"name": "task.yaml", "text": "arena: {}", "sha256": "ab" * 32},
            model_call=ModelCall(finish_reason="stop", retries=1),
        )
    )
    assert rows.context == {"episode_id": "ep", "context": {"limit": 30}, "world_map": {"width": 5}}
    assert rows.source == {"episode_id": "ep", "name": "task.yaml", "text": "arena: {}", "sha256": "ab" * 32}
    assert rows.call is not None and rows.call["finish_reason"] == "stop" and rows.call["retries"] == 1
    assert "turn_id" not in rows.call  # known only once the turn row is inserted


def test_an_untyped_message_is_refused() -> None:
    with pytest.raises(UntypedMessageError, match="agentkit.messages.Message, not dict"):
        encode(turn(0, [{"role": "user", "content": "hi"}]))


def test_the_turn_row_the_turn_info_and_the_turns_table_name_the_same_columns() -> None:
    """Three lists of one turn's columns (written, read back, in the schema) cannot drift apart."""
    table = {c.key for c in Turn.__table__.columns} - {"id"}
    row = set(get_type_hints(TurnRow))
    info = {f.name for f in dataclasses.fields(TurnInfo)}
    assert row == table
    assert info - {"messages", "model_call"} == table - {"prompt_spans"}
