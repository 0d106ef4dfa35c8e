"""`agentkit transcripts export --format parquet|csv|jsonl` and `agentkit.load_runs`: one row per episode
(with `pass`, `level`, `category`) and one per turn (no history; images by sha256), read back by pandas."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typed_turns import typed_messages  # tests/support/

from agentkit.dataframes import load_runs
from agentkit.records import EndReason, EpisodeResult, TurnRecord, Usage
from agentkit.testing.cli_runner import cli_env, run_cli
from agentkit.transcripts import TranscriptStore, export_jsonl

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 2
PNG_SHA = hashlib.sha256(PNG).hexdigest()
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode("ascii")
SYSTEM = {"role": "system", "content": "You control an agent in the arena. Answer with a script."}


def _turn(index: int, messages: list[dict[str, Any]]) -> TurnRecord:
    return TurnRecord(
        index=index,
        observation={"step": index, "images": []},
        messages=typed_messages(messages),
        answer=f"Forward({index})",
        usage=Usage(input_tokens=100, output_tokens=10, cost_usd=0.0),
        latency_s=0.1,
        cached=False,
        script=[{"op": "forward"}],
        parse_error=None,
        compile_error=None,
        actions=[1],
        reward=0.0,
        total_reward=0.0,
        health=None,
        done=False,
        timings={},
    )


def _user(step: int, image: bool) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": f"turn {step}: what next?"}]
    if image:
        parts.append({"type": "image_url", "image_url": {"url": PNG_URL}})
    return {"role": "user", "content": parts}


@pytest.fixture()
def store_with_run(tmp_path: Path) -> tuple[str, str]:
    """An Animal-AI run: a level-1 pass and a level-9 failure whose reward the success flag disagrees with."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    store = TranscriptStore(db)
    run_id = store.create_run("aai-arena", ["01-04-03", "09-03-01"], "reference", {}, {})
    for task, level, passed in (("01-04-03", 1, True), ("09-03-01", 9, False)):
        episode_id = store.start_episode(run_id, task, seed=0, trial=0)
        first = [SYSTEM, _user(0, image=False)]
        store.add_turn(episode_id, _turn(0, first))
        store.add_turn(
            episode_id, _turn(1, [*first, {"role": "assistant", "content": "Forward(0)"}, _user(1, True)])
        )
        # success (the goal was reached) and pass (the pass mark) differ: the export must carry the pass
        store.finish_episode(
            episode_id,
            EpisodeResult(
                episode_id=episode_id,
                task=task,
                seed=0,
                success=True,
                reward=0.5,
                end_reason=EndReason.GOAL,
                scripts=2,
                turns=2,
                trial=0,
                metrics={"pass": passed, "level": level, "pass_mark": 1.0},
            ),
        )
    store.close()
    return db, run_id


def _check(episodes: pd.DataFrame, turns: pd.DataFrame) -> None:
    by_task = episodes.set_index("task")
    assert by_task.loc["01-04-03", "level"] == 1 and bool(by_task.loc["01-04-03", "pass"]) is True
    assert by_task.loc["09-03-01", "level"] == 9 and bool(by_task.loc["09-03-01", "pass"]) is False
    assert {"category", "success", "reward", "end_reason", "run_id", "episode_id"} <= set(episodes.columns)
    assert len(turns) == 4 and set(turns["episode_id"]) == set(episodes["episode_id"])
    second = turns[turns["turn"] == 1].iloc[0]
    assert second["prompt"] == "turn 1: what next?"  # only the new message, not the history
    images = second["image_sha256"]
    images = json.loads(images) if isinstance(images, str) else list(images)
    assert images == [PNG_SHA]
    assert not any("You control an agent" in str(v) for v in turns.astype(str).to_numpy().ravel())


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_export_tables_read_back_by_pandas(store_with_run, tmp_path, fmt):
    db, run_id = store_with_run
    out = tmp_path / f"out-{fmt}"
    proc = run_cli(
        ["transcripts", "export", run_id, "--format", fmt, "--out", str(out), "--db", db], tmp_path
    )
    assert "Traceback" not in proc.stderr
    read = {"parquet": pd.read_parquet, "csv": pd.read_csv, "jsonl": lambda p: pd.read_json(p, lines=True)}[
        fmt
    ]
    _check(read(out / f"episodes.{fmt}"), read(out / f"turns.{fmt}"))

    bad = run_cli(
        ["transcripts", "export", run_id, "--format", "xlsx", "--out", str(out), "--db", db],
        tmp_path,
        check=False,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "--format" in bad.stderr


def test_load_runs_returns_episode_and_turn_frames(store_with_run, tmp_path):
    db, run_id = store_with_run
    frames = load_runs(db, [run_id])
    _check(frames.episodes, frames.turns)
    assert str(frames.episodes["started_at"].dtype).startswith("datetime64")
    every = load_runs(db.removeprefix("sqlite:///"))  # a plain path, every run
    assert len(every.episodes) == 2
    with pytest.raises(KeyError, match="nope"):
        load_runs(db, ["nope"])


def test_turn_lines_carry_pass_and_level(store_with_run, tmp_path):
    db, run_id = store_with_run
    store = TranscriptStore(db)
    export_jsonl(store, run_id, tmp_path / "turns.jsonl")
    lines = [json.loads(line) for line in (tmp_path / "turns.jsonl").read_text().splitlines()]
    level_nine = [line for line in lines if line["task"] == "09-03-01"]
    assert level_nine and all(
        line["level"] == 9 and line["pass"] is False and line["episode_success"] for line in level_nine
    )


def test_parquet_without_the_data_extra_says_which_extra_to_install(store_with_run, tmp_path):
    db, run_id = store_with_run
    blocker = tmp_path / "no-pandas"
    (blocker / "pandas").mkdir(parents=True)
    (blocker / "pandas" / "__init__.py").write_text("raise ImportError('pandas is not installed')\n")
    proc = run_cli(
        ["transcripts", "export", run_id, "--format", "parquet", "--out", str(tmp_path / "o"), "--db", db],
        tmp_path,
        env=cli_env(PYTHONPATH=str(blocker)),
        check=False,
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "agentkit-embodied[data]" in proc.stderr


def test_import_agentkit_exposes_load_runs():
    import agentkit
    import agentkit.dataframes

    assert agentkit.load_runs is agentkit.dataframes.load_runs and "load_runs" in dir(agentkit)
