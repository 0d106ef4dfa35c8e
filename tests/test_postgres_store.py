"""PostgreSQL as a store: large seeds, text PostgreSQL refuses (NUL) read back identical, and one
line (no traceback, no password) when the driver is missing or the server is unreachable."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from agentkit.messages import Message
from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptStore
from agentkit.transcripts.server_text import MARKER, from_stored, to_stored

BIG_SEED = 3_000_000_000  # past 2**31: the 32-bit columns of schema 2 overflowed on PostgreSQL


def turn(index: int, answer: str) -> TurnRecord:
    return TurnRecord(
        index=index,
        observation={"step": index},
        messages=[Message("user", "go")],
        answer=answer,
        usage=Usage(3_000_000_000, 1, 0.0),
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


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def agentkit(*args: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    code = f"import sys\n{prelude}\nfrom agentkit.cli import main\nsys.argv = ['agentkit', *sys.argv[1:]]\nmain()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)


def test_the_escape_is_reversible_and_leaves_ordinary_text_alone() -> None:
    for original in [
        "plain",
        "",
        "a\x00b",
        "\x00",
        "\x1b\x00\x1be0",
        MARKER,
        MARKER + "x\x00",
        "\x1b0",
        "ü\x00✓",
    ]:
        stored = to_stored(original)
        assert "\x00" not in stored and from_stored(stored) == original
    assert to_stored("plain \x1b text") == "plain \x1b text"


def test_a_large_seed_and_token_count_and_a_nul_answer_round_trip(any_db: str) -> None:
    answer = "Go(1);\x00 then \x1b[agentkit-escaped] Turn(90);"
    with TranscriptStore(any_db) as store:
        run_id = store.create_run(env="gridworld", tasks=["t"], model="m", config={}, templates={})
        episode_id = store.start_episode(run_id, "t", seed=BIG_SEED)
        store.add_turn(episode_id, turn(0, answer))
        store.cache_put("k" * 64, "m", "cached\x00answer", 1, 1, 0.0)
    with TranscriptStore(any_db) as store:  # a fresh process's view: read from the database
        assert store.get_episode(episode_id).seed == BIG_SEED
        read = store.get_turns(episode_id)[0]
        assert read.answer == answer and read.input_tokens == 3_000_000_000


def test_nul_is_stored_escaped_on_postgres(postgres_url: str) -> None:
    with TranscriptStore(postgres_url) as store:
        run_id = store.create_run(env="gridworld", tasks=["t"], model="m", config={}, templates={})
        episode_id = store.start_episode(run_id, "t", seed=1)
        store.add_turn(episode_id, turn(0, "a\x00b"))
        with store.engine.connect() as conn:
            raw = conn.execute(text("SELECT answer FROM turns")).scalar_one()
    assert raw == MARKER + "a\x1b0b"


def test_a_missing_driver_is_one_line_naming_the_extra(tmp_path: Path) -> None:
    url = "postgresql://agent:s3cret@127.0.0.1:5432/runs"
    done = agentkit("transcripts", "list", "--db", url, prelude="sys.modules['psycopg'] = None")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        "error: --db postgresql://agent:***@127.0.0.1:5432/runs: the PostgreSQL driver "
        "(psycopg 3) is not installed: pip install 'agentkit-embodied[postgres]'"
    )


@pytest.mark.parametrize(
    "command",
    [
        ["transcripts", "list"],
        ["db", "upgrade"],
        ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--episodes", "1"],
    ],
)
def test_an_unreachable_server_is_one_line_without_the_password(command: list[str]) -> None:
    url = f"postgresql://agent:s3cret@127.0.0.1:{closed_port()}/runs"
    done = agentkit(*command, "--db", url)
    lines = done.stderr.strip().splitlines()
    assert (
        done.returncode != 0 and "Traceback" not in done.stderr and "s3cret" not in done.stderr + done.stdout
    )
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: --db {url.replace('s3cret', '***')}: cannot open the database (")


def test_a_run_with_a_seed_past_2_31_is_stored_on_postgres(postgres_url: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentkit.cli",
            "run",
            "--env",
            "gridworld",
            "--task",
            "BabyAI-GoToLocal-v0",
            "--episodes",
            "1",
            "--seed",
            str(BIG_SEED),
            "--db",
            postgres_url,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    with TranscriptStore(postgres_url) as store:
        (episode,) = store.list_episodes()
        assert episode.seed == BIG_SEED and episode.status == "finished" and store.get_turns(episode.id)


def test_writers_opening_a_new_database_at_once_all_succeed(postgres_url: str) -> None:
    """Tables are made under a lock: workers of a sweep may open a fresh store together."""
    code = (
        "import sys; from agentkit.transcripts import TranscriptStore; TranscriptStore(sys.argv[1]).close()"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, postgres_url], stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
