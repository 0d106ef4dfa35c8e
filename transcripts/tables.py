"""Runs as two flat tables, one row per episode and one per turn, for data frames and files.

Why: the turn-lines export (``export.py``) repeats the episode's fields and the whole prompt history
on every line and had no ``pass`` or ``level``, so a per-level rate computed from it disagreed with
the report. Here an episode row carries the verdict every agentkit command uses (``pass``: the
backend's pass metric, or its success where it has none, as ``agentkit eval`` counts) and the
``level`` / ``category`` the backend reports; a turn row carries only what is new at that turn (the
last user message's text and images, referenced by sha256, never the history).

``write_tables`` writes ``episodes.<fmt>`` and ``turns.<fmt>`` for parquet, csv or jsonl; parquet
and ``agentkit.load_runs`` need the ``data`` extra (pandas, pyarrow), csv and jsonl do not.
"""

from __future__ import annotations

import csv
import json
import logging
import os
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from agentkit.transcripts.db import json_default
from agentkit.transcripts.reader import TranscriptReader
from agentkit.transcripts.records import EpisodeInfo, RunInfo, TurnInfo

log = logging.getLogger(__name__)

TableFormat = Literal["parquet", "csv", "jsonl"]
FORMATS: tuple[str, ...] = ("parquet", "csv", "jsonl")
DATA_EXTRA_HINT = "parquet and data frames need pandas and pyarrow: pip install 'agentkit-embodied[data]'"

#: Metrics given columns of their own; any other metric stays in the ``metrics`` JSON column.
_NAMED_METRICS = ("pass", "level", "category")


class MissingDataExtra(RuntimeError):
    """pandas or pyarrow is not installed (the ``data`` extra)."""


def episode_row(run: RunInfo, episode: EpisodeInfo) -> dict[str, Any]:
    metrics = dict(episode.metrics or {})
    verdict = metrics.get("pass", episode.success)
    return {
        "run_id": run.id,
        "env": run.env,
        "model": run.model,
        "episode_id": episode.id,
        "task": episode.task,
        "level": metrics.get("level"),
        "category": metrics.get("category"),
        "seed": episode.seed,
        "trial": episode.trial,
        "attempt": episode.attempt,
        "status": episode.status,
        "pass": None if verdict is None else bool(verdict),
        "success": episode.success,
        "reward": episode.reward,
        "end_reason": episode.end_reason,
        "scripts": episode.scripts,
        "turns": episode.turns,
        "input_tokens": episode.input_tokens,
        "output_tokens": episode.output_tokens,
        "cost_usd": episode.cost_usd,
        "started_at": episode.started_at,
        "ended_at": episode.ended_at,
        "error": episode.error,
        "metrics": _json({k: v for k, v in metrics.items() if k not in _NAMED_METRICS}),
        "agentkit_version": run.agentkit_version,
        "templates_hash": run.templates_hash,
    }


def turn_row(episode: EpisodeInfo, turn: TurnInfo) -> dict[str, Any]:
    """Only what this turn added: the last user message (text, image hashes), the answer, the outcome."""
    messages = turn.messages or []
    last_user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    text, images = _content(last_user.get("content") if last_user else None)
    for entry in (turn.observation or {}).get("images") or []:
        sha = entry.get("sha256") if isinstance(entry, dict) else None
        if isinstance(sha, str) and sha not in images:
            images.append(sha)
    return {
        "run_id": episode.run_id,
        "episode_id": episode.id,
        "turn": turn.index,
        "prompt": text,
        "image_sha256": images,
        "answer": turn.answer,
        "tool_calls": _json(turn.tool_calls),  # --action-format tools: [{"id", "name", "arguments"}]
        "script": _json(turn.script),
        "parse_error": _json(turn.parse_error),
        "compile_error": turn.compile_error,
        "actions": _json(turn.actions),
        "reward": turn.reward,
        "total_reward": turn.total_reward,
        "health": turn.health,
        "done": turn.done,
        "input_tokens": turn.input_tokens,
        "output_tokens": turn.output_tokens,
        "cost_usd": turn.cost_usd,
        "latency_s": turn.latency_s,
        "cached": turn.cached,
        "messages_sent": len(messages),
        **_call_columns(turn.model_call),
    }


def _call_columns(call: Any) -> dict[str, Any]:
    """How the turn's model call went (None for turns no API model answered)."""
    return {name: getattr(call, attr, None) if call is not None else None for name, attr in _CALL_COLUMNS}


def run_tables(
    store: TranscriptReader, run_ids: str | Iterable[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Episode rows and turn rows of the given runs (a run id, an episode id, or a list of run ids)."""
    episodes: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for run, episode in _episodes(store, run_ids):
        episodes.append(episode_row(run, episode))
        turns.extend(turn_row(episode, t) for t in store.get_turns(episode.id, images="ref"))
    return episodes, turns


def write_tables(
    store: TranscriptReader, target: str | Iterable[str], out_dir: str | os.PathLike[str], fmt: TableFormat
) -> dict[str, Path]:
    """Write ``episodes.<fmt>`` and ``turns.<fmt>`` into ``out_dir``; returns their paths."""
    if fmt not in FORMATS:
        raise ValueError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "parquet":
        require_data_extra()
    episodes, turns = run_tables(store, target)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, rows, columns in (("episodes", episodes, EPISODE_COLUMNS), ("turns", turns, TURN_COLUMNS)):
        path = out / f"{name}.{fmt}"
        tmp = path.with_name(path.name + ".partial")
        {"parquet": _write_parquet, "csv": _write_csv, "jsonl": _write_jsonl}[fmt](rows, columns, tmp)
        os.replace(tmp, path)  # readers never see a half-written table
        paths[name] = path
    log.info("exported %d episodes and %d turns to %s", len(episodes), len(turns), out)
    return paths


def require_data_extra() -> None:
    try:
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise MissingDataExtra(DATA_EXTRA_HINT) from exc


# --- internals ---------------------------------------------------------------------------------------


def _episodes(store: TranscriptReader, ids: str | Iterable[str]) -> Iterator[tuple[RunInfo, EpisodeInfo]]:
    runs: dict[str, RunInfo] = {}
    for one in [ids] if isinstance(ids, str) else list(ids):
        try:
            run = store.get_run(one)
            episodes = store.list_episodes(run_id=one)
        except KeyError:
            episodes = [store.get_episode(one)]  # KeyError naming the id if it is neither
        for e in episodes:
            run = runs.get(e.run_id) or runs.setdefault(e.run_id, store.get_run(e.run_id))
            yield run, e


def _content(content: Any) -> tuple[str | None, list[str]]:
    if content is None:
        return None, []
    if isinstance(content, str):
        return content, []
    texts, images = [], []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part.get("sha256"), str):
            images.append(part["sha256"])
    return "\n".join(texts), images


def _json(value: Any) -> str | None:
    return (
        None if value is None else json.dumps(value, ensure_ascii=False, default=json_default, sort_keys=True)
    )


#: Column order of the tables (the keys of ``episode_row`` and ``turn_row``), kept when there is no row.
EPISODE_COLUMNS = [
    "run_id",
    "env",
    "model",
    "episode_id",
    "task",
    "level",
    "category",
    "seed",
    "trial",
    "attempt",
    "status",
    "pass",
    "success",
    "reward",
    "end_reason",
    "scripts",
    "turns",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "started_at",
    "ended_at",
    "error",
    "metrics",
    "agentkit_version",
    "templates_hash",
]
TURN_COLUMNS = [
    "run_id",
    "episode_id",
    "turn",
    "prompt",
    "image_sha256",
    "answer",
    "tool_calls",
    "script",
    "parse_error",
    "compile_error",
    "actions",
    "reward",
    "total_reward",
    "health",
    "done",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "latency_s",
    "cached",
    "messages_sent",
    "finish_reason",
    "retries",
    "provider_input_tokens",
    "provider_output_tokens",
    "provider_cached_tokens",
    "our_input_tokens",
    "model_warning",
]
#: (column, ModelCall attribute): the finish reason ("length": cut by max tokens), retries, the
#: provider's counts beside ours, the dropped-prompt warning.
_CALL_COLUMNS = (
    ("finish_reason", "finish_reason"),
    ("retries", "retries"),
    ("provider_input_tokens", "provider_input_tokens"),
    ("provider_output_tokens", "provider_output_tokens"),
    ("provider_cached_tokens", "provider_cached_tokens"),
    ("our_input_tokens", "our_input_tokens"),
    ("model_warning", "warning"),
)


def _write_jsonl(rows: list[dict[str, Any]], columns: list[str], path: Path) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(
                json.dumps({k: _iso(v) for k, v in row.items()}, ensure_ascii=False, default=json_default)
            )
            f.write("\n")


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def _write_csv(rows: list[dict[str, Any]], columns: list[str], path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_cell(v) for k, v in row.items()})


def _csv_cell(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, datetime):
        return value.isoformat()
    return "" if value is None else value


def _write_parquet(rows: list[dict[str, Any]], columns: list[str], path: Path) -> None:
    frame = to_frame(rows, columns)
    frame.to_parquet(path, index=False, engine="pyarrow")


def to_frame(rows: list[dict[str, Any]], columns: list[str]) -> Any:
    """A pandas DataFrame of the rows, with the columns (and their order) even when there is no row."""
    require_data_extra()
    import pandas as pd

    frame = pd.DataFrame.from_records(rows, columns=columns)
    for name in ("started_at", "ended_at"):
        if name in frame.columns:
            frame[name] = pd.to_datetime(frame[name], utc=True)
    return frame
