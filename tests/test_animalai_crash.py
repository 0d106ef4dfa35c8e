"""A simulator process that dies mid-episode: the turn in flight is kept, the episode is marked, the
environment is started again and the trial relaunched.

The simulator is the ``agentkit-arena`` stand-in launched by ``UnityEnvironment`` (as a Unity build
would be), the model an OpenAI-compatible server over real HTTP. On the model's second call the
server kills the build process, as an out-of-memory killer or a crash of the Unity player would.
"""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agentkit.config import RunConfig
from agentkit.records import EndReason
from agentkit.runs.runner import execute_run
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore


def _arena_children() -> list[int]:
    """This process's children that run agentkit-arena (the launched 'builds')."""
    me = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = stat.rsplit(")", 1)[1].split()[1]
        if ppid == me and "agentkit-arena" in cmdline:
            found.append(int(entry.name))
    return found


def test_a_killed_build_ends_its_episode_with_env_error_and_the_trial_is_played_again(tmp_path):
    calls = {"n": 0, "killed": []}

    def responder(_body: dict) -> str:
        calls["n"] += 1
        if calls["n"] == 2:
            for pid in _arena_children():
                os.kill(pid, signal.SIGKILL)
                calls["killed"].append(pid)
        return 'Think("forward"); Go(3);'

    db = tmp_path / "crash.db"
    with FakeOpenAIServer(responder) as server:
        config = RunConfig(
            env="animalai",
            tasks=["03-09-01"],
            model="openai/fake-model",
            api_base=server.base_url,
            episodes=1,
            max_scripts=4,
            max_attempts=2,
            max_concurrency=1,
            include_images=False,
            retry_base_s=0.01,
            backend_options={"aai_build": "builtin", "timeout_s": 20},
        )
        with TranscriptStore(f"sqlite:///{db}") as store:
            summary = execute_run(config, store, show_progress=False)
            rows = sorted(store.list_episodes(run_id=summary.run_id), key=lambda r: r.attempt)
            crashed_turns = store.get_turns(rows[0].id)
    assert len(calls["killed"]) == 1  # the build was really there, and really killed
    assert [r.attempt for r in rows] == [0, 1]
    assert rows[0].end_reason == EndReason.ENV_ERROR.value and rows[0].status == "finished"
    assert len(crashed_turns) == 2  # the answer paid for when the build died is kept
    assert crashed_turns[-1].compile_error.startswith("environment error:")
    assert rows[1].end_reason != EndReason.ENV_ERROR.value and rows[1].turns and rows[1].turns > 0
    assert [e.end_reason for e in summary.episodes] == [EndReason(rows[1].end_reason)]
    assert not _arena_children()  # the relaunched build was shut down with the run
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
