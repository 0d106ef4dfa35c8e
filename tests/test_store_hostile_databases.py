"""Shared SQLite databases that fight back (issue 29, rows 2, 4, 7 and 9).

Before: a trigger in a shared file made `agentkit run` print a success and store a failure; a VIEW
named like a table made the readers hang or take gigabytes; a -wal file of another database was
applied silently; JSON nested 200,000 deep, JSON that does not parse and a corrupted page met the
readers as tracebacks. Now each is one line naming the file, table, row or object, in bounded time,
and nothing is written, lost or falsified.

All real: databases recorded by the `agentkit` command (the gridworld reference agent), changed with
sqlite3 as a person sharing the file would, and read back by the `agentkit` command.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from agentkit.testing.cli_runner import run_cli, run_json

TASK = "MiniGrid-Empty-5x5-v0"
# Each reading command, as the user types it (RUN and EPISODE filled in per database).
READERS = {
    "list": ["transcripts", "list"],
    "show": ["transcripts", "show", "EPISODE", "--messages"],
    "export": ["transcripts", "export", "RUN", "--out", "out.jsonl"],
    "view": ["view", "--export", "bundle", "--run", "RUN"],
    "replay": ["replay", "EPISODE"],
    "report": ["report", "aai", "--runs", "RUN", "--no-figure", "--json"],
}


def _record(folder: Path, name: str = "runs.db", episodes: int = 2) -> Path:
    """A database with one run of ``episodes`` reference-agent episodes, written by `agentkit run`."""
    db = folder / name
    args = [
        "run",
        "--env",
        "gridworld",
        "--task",
        TASK,
        "--episodes",
        str(episodes),
        "--db",
        f"sqlite:///{db}",
    ]
    run_cli(args, folder)
    return db


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _record(tmp_path_factory.mktemp("recorded"))


def _copy(recorded: Path, tmp_path: Path) -> Path:
    db = tmp_path / "runs.db"
    shutil.copy(recorded, db)
    return db


def _ids(db: Path) -> tuple[str, str]:
    with sqlite3.connect(db) as con:
        run, episode = con.execute("SELECT run_id, id FROM episodes ORDER BY started_at LIMIT 1").fetchone()
    return run, episode


def _read(command: str, db: Path, run: str, episode: str, timeout: float = 120) -> tuple[int, str]:
    """One reading command on ``db``: (exit code, stderr)."""
    args = [{"RUN": run, "EPISODE": episode}.get(a, a) for a in READERS[command]]
    proc = run_cli([*args, "--db", f"sqlite:///{db}"], db.parent, check=False, timeout=timeout)
    return proc.returncode, proc.stderr


def _one_error_line(stderr: str) -> str:
    """The single ``error:`` line of a refused command (and no traceback)."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, stderr
    return lines[0]


# --- row 2: a trigger (or any object agentkit did not create) in the file a run writes to ----------


def test_a_writer_refuses_a_database_with_a_trigger_and_names_the_drop(
    recorded: Path, tmp_path: Path
) -> None:
    db = _copy(recorded, tmp_path)
    with sqlite3.connect(db) as con:
        con.execute(
            "CREATE TRIGGER zero_reward AFTER UPDATE OF reward ON episodes "
            "BEGIN UPDATE episodes SET reward = 0, success = 0; END"
        )
        con.execute("CREATE VIEW recent AS SELECT id FROM episodes")
        before = con.execute("SELECT id, reward, success FROM episodes ORDER BY id").fetchall()
    args = ["run", "--env", "gridworld", "--task", TASK, "--db", f"sqlite:///{db}"]
    proc = run_cli(args, tmp_path, check=False)
    assert proc.returncode == 2
    line = _one_error_line(proc.stderr)
    assert "trigger zero_reward on episodes" in line and "view recent" in line
    assert 'DROP TRIGGER "zero_reward"; DROP VIEW "recent";' in line
    with sqlite3.connect(db) as con:  # nothing written, nothing rewritten
        assert con.execute("SELECT id, reward, success FROM episodes ORDER BY id").fetchall() == before
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    # The readers fire nothing and still read it.
    run, episode = _ids(db)
    assert _read("show", db, run, episode)[0] == 0
    # Cleaned as the line says, the same run stores what it prints.
    with sqlite3.connect(db) as con:
        con.executescript('DROP TRIGGER "zero_reward"; DROP VIEW "recent";')
    data = run_json(args, tmp_path)
    with sqlite3.connect(db) as con:
        stored = con.execute("SELECT success FROM episodes WHERE run_id = ?", (data["run_id"],)).fetchall()
    assert stored == [(1,)]


# --- row 4: a view named like a table -------------------------------------------------------------


@pytest.mark.parametrize("command", sorted(READERS))
def test_readers_never_run_a_view_named_like_a_table(recorded: Path, tmp_path: Path, command: str) -> None:
    db = _copy(recorded, tmp_path)
    run, episode = _ids(db)
    with sqlite3.connect(db) as con:
        con.executescript(
            "ALTER TABLE runs RENAME TO runs_kept;"
            # endless: every reader that ran it would hang
            "CREATE VIEW runs AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
            "SELECT r.* FROM runs_kept r, n;"
        )
    code, stderr = _read(command, db, run, episode, timeout=60)
    assert code != 0
    line = _one_error_line(stderr)
    assert "view runs is not agentkit's table" in line and 'DROP VIEW "runs";' in line, line


# --- row 9: JSON nested 200,000 deep, JSON that does not parse, a corrupted page ------------------

DEEP = "[" * 200_000 + "]" * 200_000


@pytest.mark.parametrize("command", sorted(READERS))
def test_json_nested_200000_deep_is_one_line_naming_its_row(
    recorded: Path, tmp_path: Path, command: str
) -> None:
    db = _copy(recorded, tmp_path)
    run, episode = _ids(db)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE episodes SET metrics = ? WHERE id = ?", (DEEP, episode))
    code, stderr = _read(command, db, run, episode)
    assert code == 2
    line = _one_error_line(stderr)
    assert f"table episodes, row {episode}, column metrics: stored JSON is nested too deep" in line, line


def test_json_that_does_not_parse_names_its_row_and_the_other_episode_still_reads(
    recorded: Path, tmp_path: Path
) -> None:
    db = _copy(recorded, tmp_path)
    run, episode = _ids(db)
    with sqlite3.connect(db) as con:
        (turn,) = con.execute("SELECT min(id) FROM turns WHERE episode_id = ?", (episode,)).fetchone()
        con.execute("UPDATE turns SET observation = '{\"grid\": nope' WHERE id = ?", (turn,))
        (other,) = con.execute("SELECT id FROM episodes WHERE id != ?", (episode,)).fetchone()
        (sha,) = con.execute(
            "SELECT content_sha256 FROM episode_messages WHERE episode_id = ? LIMIT 1", (other,)
        ).fetchone()
    for command in ("show", "export", "view", "replay"):
        code, stderr = _read(command, db, run, episode)
        assert code == 2
        line = _one_error_line(stderr)
        assert f"table turns, row {turn}, column observation: stored JSON does not parse" in line, line
    assert _read("list", db, run, episode)[0] == 0  # the rows that parse still read
    assert _read("show", db, run, other)[0] == 0
    # A message's content (a JSON blob) that does not parse is named by its hash.
    with sqlite3.connect(db) as con:
        con.execute("UPDATE blobs SET data = ? WHERE sha256 = ?", (DEEP.encode(), sha))
    code, stderr = _read("show", db, run, other)
    assert f"table blobs, row {sha}, column data: stored JSON is nested too deep" in _one_error_line(stderr)


def test_a_corrupted_page_says_how_to_recover_the_file(recorded: Path, tmp_path: Path) -> None:
    db = _copy(recorded, tmp_path)
    run, episode = _ids(db)
    with sqlite3.connect(db) as con:
        (root,) = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'turns'").fetchone()
        (page_size,) = con.execute("PRAGMA page_size").fetchone()
    with db.open("r+b") as handle:  # the turns table's page overwritten, as a bad disk would
        handle.seek((root - 1) * page_size)
        handle.write(b"\xff" * page_size)
    for command in ("show", "export", "view", "replay"):
        code, stderr = _read(command, db, run, episode)
        assert code == 2
        line = _one_error_line(stderr)
        assert (
            f"database disk image is malformed: {db}; recover what it holds with `sqlite3 {db} .recover"
            in line
        )
    assert _read("list", db, run, episode)[0] == 0  # runs and episodes are on pages still whole
