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
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from agentkit.testing.cli_runner import cli_env, run_cli, run_json

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
    with closing(sqlite3.connect(db)) as con, con:
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
    with closing(sqlite3.connect(db)) as con, con:
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
    with closing(sqlite3.connect(db)) as con, con:  # nothing written, nothing rewritten
        assert con.execute("SELECT id, reward, success FROM episodes ORDER BY id").fetchall() == before
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    # The readers fire nothing and still read it.
    run, episode = _ids(db)
    assert _read("show", db, run, episode)[0] == 0
    # Cleaned as the line says, the same run stores what it prints.
    with closing(sqlite3.connect(db)) as con, con:
        con.executescript('DROP TRIGGER "zero_reward"; DROP VIEW "recent";')
    data = run_json(args, tmp_path)
    with closing(sqlite3.connect(db)) as con, con:
        stored = con.execute("SELECT success FROM episodes WHERE run_id = ?", (data["run_id"],)).fetchall()
    assert stored == [(1,)]


# --- row 4: a view named like a table -------------------------------------------------------------


@pytest.mark.parametrize("command", sorted(READERS))
def test_readers_never_run_a_view_named_like_a_table(recorded: Path, tmp_path: Path, command: str) -> None:
    db = _copy(recorded, tmp_path)
    run, episode = _ids(db)
    with closing(sqlite3.connect(db)) as con, con:
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
    with closing(sqlite3.connect(db)) as con, con:
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
    with closing(sqlite3.connect(db)) as con, con:
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
    with closing(sqlite3.connect(db)) as con, con:
        con.execute("UPDATE blobs SET data = ? WHERE sha256 = ?", (DEEP.encode(), sha))
    code, stderr = _read("show", db, run, other)
    assert f"table blobs, row {sha}, column data: stored JSON is nested too deep" in _one_error_line(stderr)


def test_a_corrupted_page_says_how_to_recover_the_file(recorded: Path, tmp_path: Path) -> None:
    db = _copy(recorded, tmp_path)
    run, episode = _ids(db)
    with closing(sqlite3.connect(db)) as con, con:
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


# --- row 7: a -wal file of another database beside the file ---------------------------------------

# A writer that starts episodes in a database and is killed (SIGKILL) before it closes, leaving its
# -wal (and -shm) beside the file; halfway, a checkpoint may copy the log so far into the database.
KILLED_WRITER = """
import os, signal, sqlite3, sys
from agentkit.transcripts import TranscriptStore
store = TranscriptStore("sqlite:///" + sys.argv[1], background_checkpoints=False)
run = store.create_run(env="gridworld", tasks=["t"], model="m", config={}, templates={})
for i in range(int(sys.argv[2])):
    print(store.start_episode(run, "t", seed=i), flush=True)
    if i == int(sys.argv[2]) // 2 and sys.argv[3] == "checkpoint":
        # a reader's snapshot keeps the log from being restarted after the checkpoint
        reader = sqlite3.connect(sys.argv[1], isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM episodes").fetchall()
        with sqlite3.connect(sys.argv[1]) as con:
            con.execute("PRAGMA wal_checkpoint(PASSIVE)")
os.kill(os.getpid(), signal.SIGKILL)
"""


def _killed_writer(db: Path, episodes: int, checkpoint: bool = False) -> list[str]:
    """The ids of the episodes a writer killed by SIGKILL started in ``db``."""
    args = [sys.executable, "-c", KILLED_WRITER, str(db), str(episodes), "checkpoint" if checkpoint else "-"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120, env=cli_env())
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert Path(f"{db}-wal").stat().st_size > 0
    return proc.stdout.split()


@pytest.mark.parametrize("with_index", [False, True], ids=["log alone", "log and its -shm"])
def test_a_wal_of_another_database_is_refused_before_sqlite_applies_it(
    recorded: Path, tmp_path: Path, with_index: bool
) -> None:
    db = _copy(recorded, tmp_path)
    run, episode = _ids(db)
    other = tmp_path / "other" / "other.db"
    other.parent.mkdir()
    _killed_writer(other, 40)
    shutil.copy(f"{other}-wal", f"{db}-wal")
    if with_index:
        shutil.copy(f"{other}-shm", f"{db}-shm")
    stored = db.read_bytes()
    for command in ("list", "show", "export", "replay"):
        code, stderr = _read(command, db, run, episode)
        assert code == 2
        line = _one_error_line(stderr)
        assert f"{db}-wal: " in line and f"move it aside (mv {db}-wal {db}-wal.aside)" in line, line
    args = ["run", "--env", "gridworld", "--task", TASK, "--db", f"sqlite:///{db}"]
    proc = run_cli(args, tmp_path, check=False)
    assert proc.returncode == 2 and "-wal: " in _one_error_line(proc.stderr)
    assert db.read_bytes() == stored  # never checkpointed into the database
    Path(f"{db}-wal").rename(f"{db}-wal.aside")  # as the line says: the database reads as before
    Path(f"{db}-shm").unlink(missing_ok=True)
    assert _read("show", db, run, episode)[0] == 0


def test_a_wal_whose_page_size_differs_is_refused(recorded: Path, tmp_path: Path) -> None:
    db = _copy(recorded, tmp_path)
    run, episode = _ids(db)
    other = tmp_path / "small-pages.db"
    con = sqlite3.connect(other)
    con.execute("PRAGMA page_size = 1024")
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA wal_autocheckpoint = 0")
    con.execute("CREATE TABLE t (x)")
    con.commit()
    shutil.copy(f"{other}-wal", f"{db}-wal")
    con.close()
    line = _one_error_line(_read("show", db, run, episode)[1])
    assert f"{db}-wal: its pages are 1024 bytes, the database's 4096" in line, line


@pytest.mark.parametrize("checkpoint", [False, True], ids=["nothing copied", "half copied"])
def test_the_genuine_wal_of_a_killed_writer_is_still_applied(
    recorded: Path, tmp_path: Path, checkpoint: bool
) -> None:
    db = _copy(recorded, tmp_path)
    run, episode = _ids(db)
    started = _killed_writer(db, 30, checkpoint)
    assert len(started) == 30
    listing = run_json(["transcripts", "list", "--db", f"sqlite:///{db}"], tmp_path)
    listed = {e["id"] for r in listing for e in r["episodes"]}
    assert set(started) | {episode} <= listed
    assert _read("show", db, run, started[-1])[0] == 0
    # A writer opens it too, and folds the log in.
    run_cli(["run", "--env", "gridworld", "--task", TASK, "--db", f"sqlite:///{db}"], tmp_path)
    with closing(sqlite3.connect(db)) as con, con:
        assert con.execute("SELECT count(*) FROM episodes").fetchone() == (len(listed) + 1,)


# --- rows 2 and 4 on both backends, through the Python API ----------------------------------------

TRIGGERS = {
    "sqlite": [
        "CREATE TRIGGER zero_reward AFTER UPDATE OF reward ON episodes "
        "BEGIN UPDATE episodes SET reward = 0, success = 0; END"
    ],
    "postgresql": [
        "CREATE FUNCTION zero() RETURNS trigger AS $$ BEGIN NEW.reward := 0; RETURN NEW; END $$ LANGUAGE plpgsql",
        "CREATE TRIGGER zero_reward BEFORE UPDATE OF reward ON episodes FOR EACH ROW EXECUTE FUNCTION zero()",
    ],
}


def test_a_trigger_or_a_view_named_like_a_table_is_refused_on_either_backend(any_db: str) -> None:
    from sqlalchemy import create_engine

    from agentkit.transcripts import TranscriptStore
    from agentkit.transcripts.foreign_objects import ForeignObjectError
    from agentkit.viewer.readonly import open_readonly

    TranscriptStore(any_db).close()
    engine = create_engine(any_db.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        for statement in TRIGGERS[conn.dialect.name]:
            conn.exec_driver_sql(statement)
    with pytest.raises(ForeignObjectError, match=r"\(trigger zero_reward on episodes\).*DROP TRIGGER"):
        TranscriptStore(any_db)
    open_readonly(any_db).close()  # a reader fires nothing, and reads it
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE runs RENAME TO runs_kept")
        conn.exec_driver_sql("CREATE VIEW runs AS SELECT * FROM runs_kept")
    engine.dispose()
    with pytest.raises(ForeignObjectError, match=r"view runs is not agentkit's table.*DROP VIEW \"runs\";"):
        open_readonly(any_db)
