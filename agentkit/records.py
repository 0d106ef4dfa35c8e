"""Shared record types of an episode: end reasons, model replies, turns and episode results.

Why a leaf: every part (the store, the models, the backends, the loop) speaks of these records, so
this module imports nothing of agentkit's, and nothing it holds drags a layer up with it
(``tests/test_layers.py`` checks it). agentkit's version lives here for the same reason: the store
stamps it on every run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

# agentkit's version (pyproject.toml's [project] version); ``agentkit.__version__`` is this.
VERSION = "0.1.0"


def templates_hash(templates: dict[str, str]) -> str:
    """The one hash of a template set, stored with each run: SHA-256 of the (name, source) pairs sorted
    by name, written as compact JSON (sorted keys, no spaces, UTF-8, the store's canonical form);
    equal sets hash equal. Here, below both, so the renderer and the store cannot disagree."""
    pairs = sorted([name, source] for name, source in templates.items())
    text = json.dumps(pairs, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EndReason(str, Enum):
    """Why an episode stopped. Stored as the string value."""

    GOAL = "goal"  # the task was solved
    FAILED = "failed"  # the environment ended the episode without success (e.g. wrong object)
    DIED = "died"  # death zone, lava, health exhausted
    TIME_LIMIT = "time_limit"  # the environment's own step limit
    SCRIPT_LIMIT = "script_limit"  # max scripts per episode reached
    PARSE_FAILURE_LIMIT = "parse_failure_limit"  # too many unparseable answers in a row
    BUDGET = "budget"  # token or cost budget spent (episode's or run's)
    WALL_TIME = "wall_time"  # the episode's or run's wall-clock limit
    MODEL_ERROR = "model_error"  # the model could not be reached after retries
    ENV_ERROR = "env_error"  # the backend raised
    CANCELLED = "cancelled"  # interrupted by the user
    STORAGE_ERROR = "storage_error"  # the transcript store could not write (full disk...): the run stops


class StorageError(Exception):
    """A sink (the transcript store) could not write: a full disk, a read-only or lost database.

    Not the episode's doing, nor the environment's: the run stops, what was written stays, and
    ``--resume`` plays the rest once the store can be written again.
    """


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


@dataclass
class ModelCall:
    """How one model call went, as the provider told it: why the answer ended (``finish_reason``,
    "length" when ``max_tokens`` cut it), how many retries the client made, the provider's own token
    counts beside ours (``our_input_tokens``, agentkit.models.token_count), and a warning when they disagree
    so much that the server must have dropped part of the prompt. Stored per turn (``model_calls``)."""

    finish_reason: str | None = None
    retries: int = 0
    provider_input_tokens: int | None = None
    provider_output_tokens: int | None = None
    provider_cached_tokens: int | None = None
    our_input_tokens: int | None = None
    warning: str | None = None

    @property
    def cut_by_max_tokens(self) -> bool:
        return self.finish_reason == "length"


@dataclass
class ModelCallTotals:
    """An episode's model calls summed: retries, answers cut by max tokens, dropped-prompt warnings."""

    retries: int = 0
    cut_by_max_tokens: int = 0
    dropped_prompt: int = 0

    def add(self, call: ModelCall | None) -> None:
        if call is None:
            return
        self.retries += call.retries
        self.cut_by_max_tokens += call.cut_by_max_tokens
        self.dropped_prompt += call.warning is not None


@dataclass
class ModelReply:
    """One answer of a model, with what it cost."""

    text: str
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    model: str = ""
    cached: bool = False
    raw: dict[str, Any] | None = None  # provider response metadata (no auth data)
    call: ModelCall | None = None  # what the provider said about the call (API models only)
    # An answer of tool calls (--action-format tools): agentkit.messages.ToolCall values, in order
    # (typed ``Any``: this module is a leaf). ``text`` is then the free text beside them.
    tool_calls: tuple[Any, ...] = ()


@dataclass
class TurnRecord:
    """One turn: what the model saw and said, what was parsed, compiled and executed, what followed."""

    index: int
    observation: dict[str, Any]  # Observation.to_json() of what the model saw
    # The chat messages sent, typed (agentkit.messages.Message, images by sha256): the store refuses
    # anything else (a caller's OpenAI-style dicts are read with messages_from_openai first). ``Any``:
    # this module is a leaf and imports nothing of ours.
    messages: list[Any]
    answer: str
    usage: Usage
    latency_s: float
    cached: bool
    script: list[dict[str, Any]] | None  # Script.to_json() when the answer parsed
    parse_error: dict[str, Any] | None
    compile_error: str | None
    actions: list[Any]  # low-level actions executed, JSON-able
    reward: float
    total_reward: float
    health: float | None
    done: bool
    timings: dict[str, float]  # seconds per phase: render, model, parse, compile, env, observe
    # On an episode's first turn only: the variables its prompt templates were rendered with (the
    # vocabulary, limits, and the backend's facts of this episode, such as an arena's time limit).
    # Stored once per episode, so a re-render meets the same facts without rebuilding the world.
    prompt_context: dict[str, Any] | None = None
    # Also on the first turn only: the backend's top-down drawing of the world (Backend.world_map),
    # as its stored JSON (agentkit.observers.WorldMap.to_json(); this module is a leaf).
    world_map: dict[str, Any] | None = None
    # Also on the first turn only: the text of the file the task was read from (Backend.task_source),
    # ``{"name", "text", "sha256"}``, for tasks named by a path; replay plays it instead of the file.
    task_source: dict[str, str] | None = None
    # How the model call went (finish reason, retries, the provider's token counts): API models only.
    model_call: ModelCall | None = None
    # An answer of tool calls (--action-format tools): ``[{"id", "name", "arguments"}]`` in order,
    # so replay gives the very calls back; None for an answer of text.
    tool_calls: list[dict[str, str]] | None = None


@dataclass
class EpisodeResult:
    episode_id: str
    task: str
    seed: int
    success: bool
    reward: float
    end_reason: EndReason
    scripts: int
    turns: int
    usage: Usage = field(default_factory=Usage)
    actions: list[Any] = field(default_factory=list)
    trial: int = 0
    # Backend-specific outcome measures, e.g. {"pass": True, "level": 1} for Animal-AI.
    metrics: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # what broke: a storage error (not stored) or the model's error (stored)
    relaunchable: bool = True  # False when the model's error would recur (context window, bad request, key)
    model_calls: ModelCallTotals = field(default_factory=ModelCallTotals)  # retries, answers cut, ...

    def to_json(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "task": self.task,
            "seed": self.seed,
            "success": self.success,
            "reward": self.reward,
            "end_reason": self.end_reason.value,
            "scripts": self.scripts,
            "turns": self.turns,
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "cost_usd": self.usage.cost_usd,
            "trial": self.trial,
            **self.metrics,
        }
