"""The value types the transcript store hands out, and the error ``add_turn`` raises.

``RunInfo``, ``EpisodeInfo``, ``TurnInfo`` and ``BlobInfo`` are what readers (viewer, reports,
export) get back from ``TranscriptStore``. They live apart from the store so that code which only
consumes stored transcripts can import them without the database machinery.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from agentkit.records import ModelCall, TurnRecord, Usage


class TurnExistsError(ValueError):
    """``add_turn`` was given an index the episode already has."""


@dataclass
class RunInfo:
    id: str
    created_at: datetime
    env: str
    tasks: list[Any]
    model: str
    config: dict[str, Any]
    templates: dict[str, str]
    templates_hash: str
    agentkit_version: str
    status: str  # effective status (see the module docstring of agentkit.transcripts.store)
    episodes: int = 0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["created_at"] = self.created_at.isoformat()
        return data


@dataclass
class EpisodeInfo:
    id: str
    run_id: str
    task: str
    seed: int
    trial: int
    status: str  # effective status: "running" | "finished" | "unfinished"
    success: bool | None
    reward: float | None
    end_reason: str | None
    scripts: int | None
    turns: int | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    started_at: datetime
    ended_at: datetime | None
    error: str | None
    metrics: dict[str, Any] = field(default_factory=dict)
    attempt: int = 0
    writer_host: str | None = None
    writer_pid: int | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["started_at"] = self.started_at.isoformat()
        data["ended_at"] = self.ended_at.isoformat() if self.ended_at else None
        return data


@dataclass
class TurnInfo:
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
    messages: list[dict[str, Any]] | None = None  # None when read with with_messages=False
    model_call: ModelCall | None = None  # finish reason, retries, provider's token counts (API models)
    tool_calls: list[dict[str, str]] | None = None  # an answer of tool calls: [{"id", "name", "arguments"}]

    def to_record(self) -> TurnRecord:
        """The turn as the loop produced it (messages empty if they were not read)."""
        return TurnRecord(
            index=self.index,
            observation=self.observation,
            messages=self.messages or [],
            answer=self.answer,
            usage=Usage(self.input_tokens, self.output_tokens, self.cost_usd),
            latency_s=self.latency_s,
            cached=self.cached,
            script=self.script,
            parse_error=self.parse_error,
            compile_error=self.compile_error,
            actions=self.actions,
            reward=self.reward,
            total_reward=self.total_reward,
            health=self.health,
            done=self.done,
            timings=self.timings,
            model_call=self.model_call,
            tool_calls=self.tool_calls,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class BlobInfo:
    sha256: str
    media_type: str
    data: bytes = field(repr=False)
