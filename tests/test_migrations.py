"""Migrations: databases made by the first release (schema 1) and by the release before this one
(schema 2), built from their committed DDL (tests/data/transcripts_schema/), are upgraded in place
by `agentkit db upgrade` and by any writer (SQLite files backed up first), on SQLite and on a real
PostgreSQL; a column dropped or renamed by hand is one line, and `run` writes nothing then."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from agentkit.messages import Message
from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptStore
from agentkit.transcripts.db import resolve_url, upgrade_database
from agentkit.transcripts.schema_check import SchemaMismatchError
from agentkit.transcripts.schema_version import SCHEMA_VERSION
from agentkit.viewer.readonly import open_readonly

DDL = Path(__file__).parent / "data" / "transcripts_schema"
CONTENT = b'"Step 0. What do you do?"'  # a message content as the blobs hold it (canonical JSON)
CONTENT_SHA = "5b1a2e1b3b2a0c6f5d3e4f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e"  # a made-up key: only a link


def build(url: str, version: int) -> None:
    """A database in schema ``version``'s layout holding one run, episode, turn and message."""
    engine = create_engine(resolve_url(url))
    dialect = "sqlite" if url.startswith("sqlite") else "postgresql"
    script = "\n".join(
        line
        for line in (DDL / f"schema{version}_{dialect}.sql").read_text().splitlines()
        if not line.startswith("--")
    )
    with engine.begin() as conn:
        for statement in filter(str.strip, script.split(";")):
            conn.exec_driver_sql(statement)
        if version >= 2:  # that release recorded its version when it made the tables
            conn.execute(text("INSERT INTO agentkit_schema VALUES (1, :v)"), {"v": version})
        conn.execute(
            text("INSERT INTO blobs VALUES (:sha, 'application/json', :data, :size)"),
            {"sha": CONTENT_SHA, "data": CONTENT, "size": len(CONTENT)},
        )
        conn.execute(
            text(
                "INSERT INTO runs (id, created_at, env, tasks, model, config, templates, templates_hash, agentkit_version,"
                " status) VALUES ('run1', '2025-01-02 03:04:05+00:00', 'gridworld', '[\"t\"]', 'fake/model', '{}', '{}',"
                " :hash, '0.1.0', 'finished')"
            ),
            {"hash": "0" * 64},
        )
        extra = ", attempt, metrics" if version >= 2 else ""
        values = ", 0, '{\"level\": 3}'" if version >= 2 else ""
        conn.execute(
            text(
                f"INSERT INTO episodes (id, run_id, task, seed, trial, status, success, reward, turns, started_at{extra})"
                f" VALUES ('ep1', 'run1', 't', 7, 0, 'finished', :yes, 1.0, 1, '2025-01-02 03:04:06+00:00'{values})"
            ),
            {"yes": True},
        )
        conn.execute(
            text(
                "INSERT INTO turns (episode_id, index, observation, answer, actions, reward, total_reward, done, timings,"
                " input_tokens, output_tokens, cost_usd, latency_s, cached, created_at) VALUES ('ep1', 0, '{}',"
                " 'Go(1);', '[]', 1.0, 1.0, :yes, '{}', 10, 2, 0.0, 0.1, :no, 0.0)".replace(
                    " index,", ' "index",'
                )
            ),
            {"yes": True, "no": False},
        )
        turn_id = conn.execute(text("SELECT id FROM turns")).scalar_one()
        conn.execute(
            text("INSERT INTO messages VALUES (:turn, 0, 'user', :sha, NULL)"),
            {"turn": turn_id, "sha": CONTENT_SHA},
        )
    engine.dispose()


def agentkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentkit.cli", *args], capture_output=True, text=True, timeout=120
    )


def new_turn(answer: str = "Go(2);") -> TurnRecord:
    return TurnRecord(
        index=0,
        observation={},
        messages=[Message("user", "go")],
        answer=answer,
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


def assert_old_rows_and_new_writes(url: str) -> None:
    with TranscriptStore(url) as store:
        assert store.schema_version() == SCHEMA_VERSION
        episode = store.get_episode("ep1")
        assert (episode.seed, episode.attempt, episode.status, episode.success) == (7, 0, "finished", True)
        (old,) = store.get_turns("ep1")
        assert old.answer == "Go(1);" and old.messages == [
            {"role": "user", "content": "Step 0. What do you do?"}
        ]
        episode_id = store.start_episode("run1", "t", seed=3_000_000_000)
        store.add_turn(episode_id, new_turn())
        assert store.get_episode(episode_id).seed == 3_000_000_000
        assert store.get_turns(episode_id)[0].answer == "Go(2);"


@pytest.mark.parametrize("version", [1, 2])
def test_db_upgrade_brings_an_older_database_up_to_date(any_db: str, version: int) -> None:
    build(any_db, version)
    done = agentkit("db", "upgrade", "--db", any_db, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["found"], report["version"], report["steps"]) == (
        version,
        SCHEMA_VERSION,
        list(range(version + 1, SCHEMA_VERSION + 1)),
    )
    if any_db.startswith("sqlite"):
        backup = Path(report["backup"])  # the file as it was, beside it
        assert backup.parent == Path(any_db.removeprefix("sqlite:///")).parent
        with sqlite3.connect(backup) as old:
            assert old.execute("SELECT seed FROM episodes").fetchall() == [(7,)]
            assert ("attempt" in {r[1] for r in old.execute("PRAGMA table_info(episodes)")}) == (version >= 2)
    else:
        assert report["backup"] is None  # PostgreSQL's DDL is transactional: a failed upgrade changes nothing
        engine = create_engine(resolve_url(any_db))
        with engine.connect() as conn:
            types = dict(
                conn.execute(
                    text(
                        "SELECT column_name, data_type FROM information_schema.columns "
                        "WHERE table_name = 'episodes'"
                    )
                ).all()
            )
            sequence = conn.execute(
                text(
                    "SELECT data_type FROM information_schema.sequences WHERE sequence_name = 'turns_id_seq'"
                )
            ).scalar_one()
        engine.dispose()
        assert types["seed"] == "bigint" and types["trial"] == "integer" and sequence == "bigint"
    assert_old_rows_and_new_writes(any_db)
    again = upgrade_database(any_db)  # a second upgrade finds nothing to do
    assert (again.found, again.steps, again.backup, again.changed) == (SCHEMA_VERSION, [], None, False)


def test_a_writer_upgrades_a_first_release_file_after_backing_it_up(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    build(url, 1)
    reader = None
    with pytest.raises(
        SchemaMismatchError,
        match=r"made by an older agentkit \(schema 1; table episodes has no "
        r"column 'attempt'\): upgrade it with `agentkit db upgrade",
    ):
        reader = open_readonly(url)  # a reader never changes the file: it says how to upgrade it
    assert reader is None
    assert_old_rows_and_new_writes(url)
    backups = sorted(tmp_path.glob("old.db.schema1-*.bak"))
    assert len(backups) == 1
    open_readonly(url).close()  # readable now


@pytest.mark.parametrize(
    "change, words",
    [
        ("DROP COLUMN seed", "table episodes has no column 'seed' (dropped or renamed by hand?)"),
        (
            "RENAME COLUMN seed TO seed_old",
            "table episodes has no column 'seed' (dropped or renamed by hand?; it has "
            "'seed_old', which agentkit does not know)",
        ),
    ],
)
def test_a_column_changed_by_hand_is_one_line_and_run_writes_nothing(
    tmp_path: Path, change: str, words: str
) -> None:
    url = f"sqlite:///{tmp_path / 't.db'}"
    TranscriptStore(url).close()
    with sqlite3.connect(tmp_path / "t.db") as conn:
        conn.execute(f"ALTER TABLE episodes {change}")
    done = agentkit(
        "run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--episodes", "1", "--db", url
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert (
        done.stderr.strip()
        == f"error: --db {url}: {words}; agentkit needs it: restore it, or write to a new database"
    )
    with sqlite3.connect(tmp_path / "t.db") as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone() == (0,)  # no run row was created
    listing = agentkit("transcripts", "list", "--db", url)  # readers say the same
    assert listing.returncode != 0 and listing.stderr.strip() == done.stderr.strip()
