"""Concurrent runs under injected API faults, relaunches, resume and run-wide limits.

Everything goes over real HTTP to the local OpenAI-compatible server (through litellm and the
openai SDK), and into a real SQLite file, so the failure paths are the ones a paid API produces.
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agentkit.config import RunConfig
from agentkit.records import EndReason
from agentkit.runs.runner import execute_run
from agentkit.runs.worker import episode_id_for
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore

TASK = "BabyAI-GoToLocal-v0"
SPIN = 'Think("looking around"); Turn(90);'  # never reaches the goal: every episode uses all its scripts


def _spin(_body: dict) -> str:
    return SPIN


def _config(server: FakeOpenAIServer, **kw) -> RunConfig:
    base = dict(
        env="gridworld",
        tasks=[TASK],
        model="openai/fake-model",
        api_base=server.base_url,
        episodes=6,
        max_scripts=4,
        max_concurrency=4,
        retry_base_s=0.01,
        timeout_s=0.5,
        max_retries=6,
        include_images=False,
        observer={"views": ["ascii"]},
    )
    base.update(kw)
    return RunConfig(**base)


def _turn_rows(db: str) -> list[tuple[str, int]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT episode_id, [index] FROM turns").fetchall()


def test_run_under_twenty_percent_faults_finishes_every_episode_without_lost_or_duplicated_turns(tmp_path):
    db = tmp_path / "faults.db"
    with FakeOpenAIServer(_spin, fault_rate=0.2, fault_seed=7, timeout_fault_s=0.8) as server:
        with TranscriptStore(f"sqlite:///{db}") as store:
            summary = execute_run(_config(server, episodes=8), store, show_progress=False)
            episodes = store.list_episodes(run_id=summary.run_id)
        faults = server.fault_counts
    assert sum(v for k, v in faults.items() if k != "ok") >= 5, faults  # the faults really happened
    assert len(summary.episodes) == 8 and {e.trial for e in summary.episodes} == set(range(8))
    assert all(e.end_reason is EndReason.SCRIPT_LIMIT for e in summary.episodes), [
        e.end_reason for e in summary.episodes
    ]
    assert all(e.status == "finished" for e in episodes)
    # A call can still fail every retry (a dropped connection fails the next request on it too):
    # that attempt is recorded as a model error and the trial relaunched, as it should be.
    final = [e for e in episodes if e.end_reason == EndReason.SCRIPT_LIMIT.value]
    assert len(final) == 8 and {e.trial for e in final} == set(range(8))
    assert all(e.end_reason == EndReason.MODEL_ERROR.value for e in episodes if e not in final)
    rows = _turn_rows(str(db))
    assert len(rows) == len(set(rows))  # no turn twice
    per_episode = Counter(episode for episode, _ in rows)
    assert [per_episode[e.id] for e in final] == [4] * 8  # and none lost
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_model_errors_are_recorded_and_the_trial_relaunched(tmp_path):
    db = tmp_path / "relaunch.db"
    with FakeOpenAIServer(_spin) as server:
        server.fail_next(*([500] * 3))  # more than one episode's retries (max_retries=2 -> 3 tries)
        with TranscriptStore(f"sqlite:///{db}") as store:
            summary = execute_run(
                _config(server, episodes=1, max_concurrency=1, max_retries=2, max_attempts=2),
                store,
                show_progress=False,
            )
            rows = store.list_episodes(run_id=summary.run_id)
    assert [(r.attempt, r.end_reason) for r in rows] == [(0, "model_error"), (1, "script_limit")]
    assert rows[0].id == episode_id_for(summary.run_id, TASK, 0, 0, 0)
    assert [e.end_reason for e in summary.episodes] == [EndReason.SCRIPT_LIMIT]


def test_resume_plays_only_what_is_missing_or_failed(tmp_path):
    db = tmp_path / "resume.db"
    with FakeOpenAIServer(_spin) as server:
        with TranscriptStore(f"sqlite:///{db}") as store:
            # No retries here, so a generous timeout: a loaded machine must not turn a slow answer into a failure.
            config = _config(
                server, episodes=4, max_concurrency=2, max_attempts=1, max_retries=0, timeout_s=10.0
            )
            server.fail_next(500)  # the first request fails for good: that trial ends in model_error
            first = execute_run(config, store, show_progress=False)
            failed = [e for e in first.episodes if e.end_reason is EndReason.MODEL_ERROR]
            assert len(failed) == 1
            calls_before = len(server.requests)
            again = execute_run(config, store, show_progress=False, resume_run_id=first.run_id)
            rows = store.list_episodes(run_id=first.run_id)
    assert again.run_id == first.run_id and len(again.episodes) == 4
    assert all(e.end_reason is EndReason.SCRIPT_LIMIT for e in again.episodes)
    assert len(server.requests) - calls_before == 4  # one episode of 4 scripts replayed, nothing else
    assert Counter(r.attempt for r in rows) == {0: 4, 1: 1}
    keys = [(e.task, e.trial, e.seed) for e in again.episodes]
    assert len(keys) == len(set(keys))


def test_run_cost_budget_stops_new_episodes_and_ends_running_ones_cleanly(tmp_path):
    db = tmp_path / "budget.db"
    with FakeOpenAIServer(_spin) as server:
        with TranscriptStore(f"sqlite:///{db}") as store:
            # Each answer costs ~100 prompt tokens at $1000 per million: a $0.5 budget lasts a few turns.
            config = _config(
                server, episodes=10, max_concurrency=2, price_per_mtok=(1000.0, 1000.0), run_max_cost_usd=0.5
            )
            summary = execute_run(config, store, show_progress=False)
            turn_costs = [
                t.cost_usd
                for e in summary.episodes
                for t in store.get_turns(e.episode_id, with_messages=False)
            ]
    assert summary.stopped is EndReason.BUDGET
    assert len(summary.episodes) < 10
    assert any(e.end_reason is EndReason.BUDGET for e in summary.episodes)
    spent = sum(e.usage.cost_usd for e in summary.episodes)
    assert spent == pytest.approx(sum(turn_costs))
    assert 0.5 <= spent < 0.5 + 2 * max(turn_costs)  # at most the two turns in flight beyond the budget


def test_cached_answers_are_reused_and_marked(tmp_path):
    db = tmp_path / "cache.db"
    with FakeOpenAIServer(_spin) as server:
        with TranscriptStore(f"sqlite:///{db}") as store:
            config = _config(server, episodes=1, max_concurrency=1, cache=True)
            execute_run(config, store, show_progress=False)
            paid = len(server.requests)
            second = execute_run(config, store, show_progress=False)
            turns = store.get_turns(second.episodes[0].episode_id)
    assert paid == 4 and len(server.requests) == paid  # the identical second run cost no request
    assert all(t.cached for t in turns) and second.episodes[0].usage.cost_usd == 0.0


@pytest.mark.parametrize("workers", ["threads", "processes"])
def test_reference_runs_concurrently_in_threads_or_processes(tmp_path, workers):
    db = tmp_path / f"{workers}.db"
    config = RunConfig(
        env="gridworld",
        tasks=[TASK],
        episodes=4,
        max_concurrency=2,
        workers=workers,
        include_images=False,
        observer={"views": ["ascii"]},
    )
    with TranscriptStore(f"sqlite:///{db}") as store:
        summary = execute_run(config, store, show_progress=False)
        rows = store.list_episodes(run_id=summary.run_id)
    assert [e.trial for e in summary.episodes] == [0, 1, 2, 3]
    assert all(e.success for e in summary.episodes) and len(rows) == 4
    assert {r.id for r in rows} == {episode_id_for(summary.run_id, TASK, t, t, 0) for t in range(4)}


def test_env_crash_restarts_the_environment_and_relaunches_the_episode(tmp_path, monkeypatch):
    import flaky_backend  # tests/support/

    from agentkit.envs import registry

    monkeypatch.setitem(registry._BACKENDS, "flaky-gridworld", "flaky_backend:FlakyGridworld")
    monkeypatch.setattr(flaky_backend, "crashes_left", 1)
    monkeypatch.setattr(flaky_backend, "instances", 0)
    config = RunConfig(
        env="flaky-gridworld",
        tasks=[TASK],
        episodes=2,
        max_concurrency=1,
        max_attempts=2,
        include_images=False,
        observer={"views": ["ascii"]},
    )
    with TranscriptStore(f"sqlite:///{tmp_path / 'crash.db'}") as store:
        summary = execute_run(config, store, show_progress=False)
        rows = store.list_episodes(run_id=summary.run_id)
        crashed = [r for r in rows if r.end_reason == "env_error"]
        assert len(crashed) == 1 and crashed[0].attempt == 0 and crashed[0].status == "finished"
        (turn,) = store.get_turns(crashed[0].id)  # the paid-for answer of the crashed turn is kept
        assert turn.compile_error.startswith("environment error: RuntimeError") and len(turn.actions) == 1
    assert [e.end_reason for e in summary.episodes] == [EndReason.GOAL, EndReason.GOAL]
    assert len(rows) == 3
    # One backend to check the task, one that crashed, one fresh after the restart.
    assert flaky_backend.instances == 3


def test_per_provider_rate_limit_spaces_requests(tmp_path):
    import time

    with FakeOpenAIServer(_spin) as server:
        with TranscriptStore(f"sqlite:///{tmp_path / 'rate.db'}") as store:
            config = _config(
                server, episodes=2, max_scripts=4, max_concurrency=2, rate_limit_rpm=600
            )  # 0.1 s apart
            start = time.perf_counter()
            execute_run(config, store, show_progress=False)
            wall = time.perf_counter() - start
    assert len(server.requests) == 8 and wall >= 0.7  # 8 starts at least 0.1 s apart, shared by both episodes


def test_the_fake_providers_latency_runs_from_the_request_not_after_its_own_work():
    import json
    import time
    import urllib.request

    def slow_responder(_body):
        time.sleep(0.3)  # the server's own work, inside the latency
        return "Go(1);"

    with FakeOpenAIServer(slow_responder, latency_s=0.4) as server:
        request = urllib.request.Request(
            f"{server.base_url}/chat/completions",
            method="POST",
            data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        start = time.monotonic()
        with urllib.request.urlopen(request, timeout=5) as response:
            body = json.loads(response.read())
        elapsed = time.monotonic() - start
    assert body["choices"][0]["message"]["content"] == "Go(1);"
    assert 0.4 <= elapsed < 0.4 + 0.25, elapsed  # not 0.4 + 0.3: the work overlapped the wait
