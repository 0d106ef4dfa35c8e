"""The schema version stored in a transcript database: written on creation, read on open, a newer
one refused in one line (by the library and by the CLI), an older one read and upgraded on write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentkit.transcripts import TranscriptStore, make_engine
from agentkit.transcripts.schema import Base
from agentkit.transcripts.schema_version import SCHEMA_VERSION, SchemaVersionError
from agentkit.viewer.readonly import open_readonly

NEWER = "this transcript database was made by a newer agentkit (schema 9); this one reads up to 5"


def tables(url: str) -> set[str]:
    engine = make_engine(url, create_tables=False)
    with engine.connect() as conn:
        names = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")}
    engine.dispose()
    return names


def newer_database(tmp_path: Path) -> str:
    """A database stamped by a future agentkit (schema 9) that has only a runs table."""
    url = f"sqlite:///{tmp_path / 'newer.db'}"
    engine = make_engine(url, create_tables=False)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE runs (id TEXT PRIMARY KEY)")
        conn.exec_driver_sql("CREATE TABLE agentkit_schema (id INTEGER PRIMARY KEY, version INTEGER)")
        conn.exec_driver_sql("INSERT INTO agentkit_schema VALUES (1, 9)")
    engine.dispose()
    return url


def test_a_new_database_records_the_current_version(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 't.db'}"
    with TranscriptStore(url) as store:
        assert store.schema_version() == SCHEMA_VERSION == 5
    with TranscriptStore(url) as store:  # reopened: still one row
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT id, version FROM agentkit_schema").all() == [(1, 5)]


def test_a_database_from_before_versions_reads_as_1_and_becomes_2_when_written(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = make_engine(url, create_tables=False)
    old = [
        t
        for name, t in Base.metadata.tables.items()
        if name not in ("agentkit_schema", "episode_messages", "turn_prompts")
    ]
    with engine.begin() as conn:
        Base.metadata.create_all(conn, tables=old)
    engine.dispose()
    reader = open_readonly(url)
    assert reader.schema_version() == 1 and reader.list_runs() == []
    reader.close()
    assert "agentkit_schema" not in tables(url)  # reading changed nothing
    with TranscriptStore(url) as store:
        assert store.schema_version() == 5


def test_a_newer_database_is_refused_in_one_line_before_anything_is_added(tmp_path: Path) -> None:
    url = newer_database(tmp_path)
    with pytest.raises(SchemaVersionError) as refused:
        TranscriptStore(url)
    assert str(refused.value) == NEWER
    assert tables(url) == {"runs", "agentkit_schema"}
    with pytest.raises(SchemaVersionError, match="newer agentkit"):
        open_readonly(url)


def test_the_cli_refuses_a_newer_database_in_one_line(tmp_path: Path) -> None:
    url = newer_database(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "agentkit.cli", "transcripts", "list", "--db", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert done.stderr.strip() == f"error: --db {url}: {NEWER}"
    assert "Traceback" not in done.stderr + done.stdout
