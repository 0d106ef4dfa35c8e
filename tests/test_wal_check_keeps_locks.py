"""The foreign-log check (agentkit.transcripts.wal_check) never costs this process's open SQLite
connections their locks.

Closing any descriptor of a file drops every POSIX lock the process holds on it. When the check read
the database and its log with Python while a connection of the same process had them open, that
connection's read lock went with it: another process could then truncate the log under it, and a
killed-then-resumed run's database was found "malformed" (seen when a test's own polling connection
was still open). The check now leaves a database this process already has open alone.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from agentkit.transcripts.wal_check import check_wal

_TRUNCATE = """
import sqlite3, sys
with __import__("contextlib").closing(sqlite3.connect(sys.argv[1], timeout=0)) as con:
    print(con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0])
"""


def _busy_truncating(db: Path) -> int:
    """1 when another process cannot truncate the log (a reader still holds it), else 0."""
    done = subprocess.run(
        [sys.executable, "-c", _TRUNCATE, str(db)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def test_an_open_reader_keeps_its_lock_through_the_check(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    with closing(sqlite3.connect(db, isolation_level=None)) as writer, closing(sqlite3.connect(db)) as reader:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("CREATE TABLE t (x)")
        writer.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(1000)])
        assert (tmp_path / "runs.db-wal").stat().st_size > 32
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM t").fetchone()[0] == 1000  # a read snapshot, held
        assert _busy_truncating(db) == 1  # the reader's lock stops another process's truncation

        check_wal(db)  # reads nothing of a database this process has open, so drops no lock

        assert _busy_truncating(db) == 1, "the check dropped this process's read lock"
        assert reader.execute("SELECT count(*) FROM t").fetchone()[0] == 1000
        reader.execute("COMMIT")
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
