"""A turn as the rows the store inserts for it: pure code, no database, no connection, no I/O.

Why: writing a turn is two jobs of different kinds. Deciding what to write (each message's content
hash, which blobs are new, which message rows the episode lacks, the spans of its prompt) depends
only on the turn and on what the store already holds; inserting the rows is SQL, transactions and
retries. ``encode_turn`` does the first job, given what the store knows as plain data
(``KnownToStore``), and returns ``TurnRows``; ``TranscriptStore.add_turn`` reads what it needs,
encodes, then inserts. So the encoding is tested without a database (``tests/test_turn_encoding.py``)
and the store keeps only the database's side.

Messages are typed (``agentkit.messages.Message``): an image comes with its bytes and sha256, so
nothing here decodes or hashes an image. Every message content becomes a JSON blob addressed by its
sha256, each image a blob of its own, and the content refers to it by an ``image_ref`` part.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence, Set
from dataclasses import asdict
from types import MappingProxyType
from typing import Any, NamedTuple, TypedDict

from agentkit.messages import ImagePart, Message, Part
from agentkit.records import TurnRecord
from agentkit.transcripts.db import canonical_json
from agentkit.transcripts.message_tool_calls import tool_extra
from agentkit.transcripts.prompt_reader import message_key
from agentkit.transcripts.prompt_spans import EpisodeMessages, MessageKey, PromptPlan

JSON_MEDIA_TYPE = "application/json"

#: A typed message's content hash and row key, remembered by the store so that a message resent by a
#: full-history prompt is not encoded again.
EncodedMessage = tuple[str, MessageKey]


class BlobRow(TypedDict):
    """A new row of ``blobs``: a message content (JSON) or an image, addressed by its sha256. Where
    its bytes go (the row, or an image pack) is the store's decision, made after encoding."""

    sha256: str
    media_type: str
    data: bytes
    size: int


class MessageRow(TypedDict):
    """A new row of ``episode_messages``: the message at ``seq`` of the episode's list."""

    episode_id: str
    seq: int
    role: str
    content_sha256: str
    extra: dict[str, Any] | None


class TurnRow(TypedDict):
    """The row of ``turns``; ``prompt_spans`` names the episode's message rows it sent.

    Its keys are the columns the reader hands out as ``TurnInfo`` (``agentkit.transcripts.records``)
    and ``prompt_spans``, without the reader's ``messages`` and ``model_call``. It stays a typed dict
    of its own rather than being built from ``TurnInfo``: a dict literal is what the insert takes,
    and making a ``TurnInfo`` first would cost every turn a dataclass and a copy for nothing. A test
    keeps the two lists and the table's columns the same (``tests/test_turn_encoding.py``)."""

    episode_id: str
    index: int
    observation: dict[str, Any]
    answer: str
    script: list[dict[str, Any]] | None
    parse_error: dict[str, Any] | None
    compile_error: str | None
    actions: list[Any]
    reward: float
    total_reward: float
    health: float | None
    done: bool
    timings: dict[str, float]
    input_tokens: int
    output_tokens: int
    cost_usd: float
    latency_s: float
    cached: bool
    created_at: float
    tool_calls: list[dict[str, str]] | None
    prompt_spans: list[list[int]]


class SentPrompt(NamedTuple):
    """A turn's prompt as sent and encoded: the next turn of a full-history episode starts with it,
    so only its new messages need encoding. (Named tuples here: built on every turn, at a third of a
    frozen dataclass's cost.)"""

    messages: list[Message]
    keys: list[MessageKey]
    extras: Mapping[MessageKey, dict[str, Any]]


class KnownToStore(NamedTuple):
    """What the store already holds, as data: the blobs committed, the episode's committed message
    rows, the episode's previous prompt, and typed messages already encoded."""

    blobs: Set[str]
    log: EpisodeMessages  # only read here (``plan``); the store commits the plan once it is stored
    previous: SentPrompt | None = None
    encoded: Mapping[Message, EncodedMessage] = MappingProxyType({})


class UntypedMessageError(TypeError):
    """A prompt message that is not an ``agentkit.messages.Message`` reached the encoder: one line
    naming the turn and the message's place, so an OpenAI-style dict is never stored half right."""


class TurnRows(NamedTuple):
    """Everything one turn writes, in insertion order (blobs, turn, message rows, then the rows of
    an episode's first turn and the model call), and what the store remembers once it committed.
    (A named tuple, as ``SentPrompt``: one is built for every turn, and a frozen dataclass of nine
    fields costs a few microseconds more to build, measurable in ``bench/store_speed.py``.)"""

    turn: TurnRow
    blobs: list[BlobRow]
    messages: list[MessageRow]
    context: dict[str, Any] | None  # the episode_contexts row (first turn only)
    source: dict[str, Any] | None  # the episode_sources row (a task read from a file)
    call: dict[str, Any] | None  # the model_calls row, without its turn_id (known after the insert)
    plan: PromptPlan  # to commit into the episode's log after the transaction
    prompt: SentPrompt  # the store's memory of this prompt, for the next turn
    encoded: dict[Message, EncodedMessage]  # typed messages encoded afresh by this turn


def encode_turn(turn: TurnRecord, known: KnownToStore, *, episode_id: str, created_at: float) -> TurnRows:
    """The rows that store ``turn`` as turn ``turn.index`` of ``episode_id``, given what the store
    holds: blobs it has are not written again, message rows the episode has are named, not added."""
    messages: list[Message] = turn.messages
    new_blobs: dict[str, BlobRow] = {}
    encoded: dict[Message, EncodedMessage] = {}
    try:
        keys, extras = _encode_prompt(messages, known, new_blobs, encoded)
    except UntypedMessageError as exc:  # name the message's place (only the slice's is known there)
        at = next((i for i, m in enumerate(messages) if not isinstance(m, Message)), None)
        raise UntypedMessageError(f"turn {turn.index}, messages[{at}]: {exc}") from None
    plan = known.log.plan(keys)
    usage = turn.usage
    row: TurnRow = {
        "episode_id": episode_id,
        "index": turn.index,
        "observation": turn.observation,
        "answer": turn.answer,
        "script": turn.script,
        "parse_error": turn.parse_error,
        "compile_error": turn.compile_error,
        "actions": turn.actions,
        "reward": turn.reward,
        "total_reward": turn.total_reward,
        "health": turn.health,
        "done": turn.done,
        "timings": turn.timings,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": usage.cost_usd,
        "latency_s": turn.latency_s,
        "cached": turn.cached,
        "created_at": created_at,
        "tool_calls": turn.tool_calls,
        "prompt_spans": plan.spans,
    }
    message_rows: list[MessageRow] = [
        {
            "episode_id": episode_id,
            "seq": seq,
            "role": key[0],
            "content_sha256": key[1],
            "extra": extras.get(key),
        }
        for seq, key in plan.new_rows
    ]
    context = (
        {"episode_id": episode_id, "context": turn.prompt_context, "world_map": turn.world_map}
        if turn.prompt_context is not None
        else None
    )
    source = {"episode_id": episode_id, **turn.task_source} if turn.task_source is not None else None
    call = asdict(turn.model_call) if turn.model_call is not None else None
    # Positional, in the order of TurnRows' fields: a call with keywords costs more, on every turn.
    prompt = SentPrompt(list(messages), keys, extras)
    return TurnRows(row, list(new_blobs.values()), message_rows, context, source, call, plan, prompt, encoded)


def _encode_prompt(
    messages: list[Message],
    known: KnownToStore,
    new_blobs: dict[str, BlobRow],
    encoded: dict[Message, EncodedMessage],
) -> tuple[list[MessageKey], Mapping[MessageKey, dict[str, Any]]]:
    """Each message's key and the extra keys of those that have any, reusing the keys of the
    episode's previous prompt when this one starts with it (full history: only the turn's new
    messages are encoded). Equal messages have equal keys, and the list comparison is by identity
    first, at C speed."""
    last = known.previous
    if last is not None:
        sent, keys, extras = last.messages, last.keys, last.extras
        k = len(sent)
        try:
            continues = 0 < k <= len(messages) and messages[:k] == sent
        except (TypeError, ValueError):  # values without a plain == (an array, say): encode afresh
            continues = False
        if continues:
            new_keys, new_extras = _encode_messages(messages[k:], known, new_blobs, encoded)
            return [*keys, *new_keys], {**extras, **new_extras} if new_extras else extras
        # Not a continuation (a markovian or windowed prompt): the messages it still shares with the
        # previous prompt at its start (the system message, a worked example) keep their keys.
        same = 0
        for now, before in zip(messages, sent):
            if now is not before:
                break
            same += 1
        if same and not extras:
            new_keys, new_extras = _encode_messages(messages[same:], known, new_blobs, encoded)
            return [*keys[:same], *new_keys], new_extras
    return _encode_messages(messages, known, new_blobs, encoded)


def _encode_messages(
    messages: Sequence[Message],
    known: KnownToStore,
    new_blobs: dict[str, BlobRow],
    encoded: dict[Message, EncodedMessage],
) -> tuple[list[MessageKey], dict[MessageKey, dict[str, Any]]]:
    """Each message's key (role, content hash, extra keys) and the extra keys of those that have
    any; blobs not yet stored are added to ``new_blobs``, typed messages encoded to ``encoded``."""
    stored = known.blobs
    memo = known.encoded
    keys: list[MessageKey] = []
    extras: dict[MessageKey, dict[str, Any]] = {}
    for message in messages:
        if isinstance(message, Message):
            done = memo.get(message)
            if done is None or done[0] not in stored:
                content = _stored_content(message.content, new_blobs, stored)
                sha = _add_json_blob(content, new_blobs, stored)
                done = (sha, message_key(message.role, sha, tool_extra(message)))
                encoded[message] = done
            keys.append(done[1])
            if done[1][2] is not None:  # a tool call or result: its keys go to the row's extra
                extras[done[1]] = tool_extra(message) or {}
        else:
            raise UntypedMessageError(
                f"a prompt message must be an agentkit.messages.Message, not {type(message).__name__}"
                " (read OpenAI-style dicts with agentkit.messages.messages_from_openai)"
            )
    return keys, extras


def _stored_content(content: str | tuple[Part, ...], new_blobs: dict[str, BlobRow], stored: Set[str]) -> Any:
    """The stored JSON of a typed message's content: text as it is, text parts as ``text`` parts,
    image parts as ``image_ref`` parts by sha256 (their bytes queued as blobs when new)."""
    if isinstance(content, str):
        return content
    out: list[dict[str, Any]] = []
    for part in content:
        if not isinstance(part, ImagePart):
            out.append({"type": "text", "text": part.text})
            continue
        _add_image_blob(part, new_blobs, stored)
        out.append({"type": "image_ref", "sha256": part.sha256, "media_type": part.media_type})
    return out


def _add_image_blob(image: ImagePart, new_blobs: dict[str, BlobRow], stored: Set[str]) -> None:
    sha = image.sha256
    if sha not in stored and sha not in new_blobs:
        new_blobs[sha] = {
            "sha256": sha,
            "media_type": image.media_type,
            "data": image.data,
            "size": len(image.data),
        }


def _add_json_blob(content: Any, new_blobs: dict[str, BlobRow], stored: Set[str]) -> str:
    """The sha256 of a message content's canonical JSON, queued as a blob when new."""
    data = canonical_json(content)
    sha = hashlib.sha256(data).hexdigest()
    if sha not in stored and sha not in new_blobs:
        new_blobs[sha] = {"sha256": sha, "media_type": JSON_MEDIA_TYPE, "data": data, "size": len(data)}
    return sha
