"""A bad ``--db`` is one line on stderr, exit status 2, no traceback, for every command that opens a store.

Bad here: a folder, a place nothing can be written (under /proc), a file that is not a database,
a URL of no known kind of database, a path given without ``sqlite:///``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentkit.store_access.db_argument import DatabaseArgumentError, check_db, opening
from agentkit.transcripts import TranscriptStore

UNWRITABLE = "sqlite:////proc/agentkit-no-such-folder/runs.db"  # /proc takes no new folders, even from root


@pytest.fixture
def places(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "folder").mkdir()
    (tmp_path / "notes.txt").write_text("these are my notes, not a database\n")
    return {
        "folder": f"sqlite:///{tmp_path / 'folder'}",
        "text file": f"sqlite:///{tmp_path / 'notes.txt'}",
        "unknown scheme": "foo://somewhere/runs",
        "bare path": str(tmp_path / "runs.db"),
        "unwritable": UNWRITABLE,
    }


COMMANDS = [
    # (command line before --db, which bad db, words the one line must hold)
    (
        ["run", "--env", "aai-arena", "--task", "01-04-03", "--max-scripts", "1"],
        "folder",
        "is a folder; name a file in it",
    ),
    (["run", "--env", "aai-arena", "--task", "01-04-03", "--max-scripts", "1"], "unwritable", "cannot open"),
    (["eval", "llm-aai-exp1", "--limit", "1"], "unknown scheme", "unknown kind of database 'foo'"),
    (["eval", "llm-aai-exp1", "--limit", "1"], "text file", "is not a SQLite database"),
    (["transcripts", "list"], "text file", "is not a SQLite database"),
    (["transcripts", "show", "abc"], "bare path", "not a database URL; a SQLite file is written sqlite:///"),
    (["view"], "folder", "is a folder"),
    (["report", "aai", "--runs", "abc"], "unknown scheme", "unknown kind of database"),
    (["report", "aai", "--runs", "abc"], "text file", "is not a SQLite database"),
]


# One real process plays every command line in turn (as `agentkit` would, through cli.main), so
# the command modules are imported once; each command's stderr, stdout and exit status come back.
PLAY_COMMANDS = """
import contextlib, io, json, sys
from agentkit import cli
results = []
for argv in json.loads(sys.argv[1]):
    err, out = io.StringIO(), io.StringIO()
    sys.argv = ["agentkit", *argv]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            cli.main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    results.append([code, err.getvalue(), out.getvalue()])
sys.__stdout__.write(json.dumps(results))
"""


def test_every_command_says_what_is_wrong_with_its_db_in_one_line(
    places: dict[str, str], tmp_path: Path
) -> None:
    argvs = [[*cmd, "--db", places[kind]] for cmd, kind, _ in COMMANDS]
    done = subprocess.run(
        [sys.executable, "-c", PLAY_COMMANDS, json.dumps(argvs)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "300"},
    )
    assert done.returncode == 0, done.stderr
    for (cmd, kind, words), (code, err, out) in zip(COMMANDS, json.loads(done.stdout), strict=True):
        where = f"agentkit {' '.join(cmd)} --db <{kind}>"
        assert code == 2, (where, err)
        assert err.startswith("error: --db ") and err.count("\n") == 1, (where, err)
        assert words in err and "Traceback" not in err, (where, err)
        assert out == "", (where, out)
    assert not (tmp_path / "runs.db").exists() and not (tmp_path / "agentkit.db").exists()  # nothing created


def test_check_db_refuses_each_kind_of_bad_place(places: dict[str, str]) -> None:
    for kind in ("folder", "text file", "unknown scheme", "bare path"):
        for writing in (True, False):
            with pytest.raises(DatabaseArgumentError, match=r"^--db "):
                check_db(places[kind], writing=writing)


def test_a_place_that_cannot_be_written_fails_on_opening_in_one_line() -> None:
    url = check_db(UNWRITABLE, writing=True)  # nothing about the URL itself is wrong
    with pytest.raises(
        DatabaseArgumentError, match=r"^--db sqlite:////proc/agentkit-no-such-folder/runs.db: cannot"
    ):
        with opening(url):
            TranscriptStore(url)


def test_good_places_pass(tmp_path: Path) -> None:
    fresh = f"sqlite:///{tmp_path / 'new' / 'runs.db'}"
    assert check_db(fresh, writing=True) == fresh and check_db("sqlite://", writing=True) == "sqlite://"
    store = TranscriptStore(fresh)
    store.close()
    assert check_db(fresh, writing=False) == fresh  # an existing store
    (tmp_path / "empty.db").write_bytes(b"")  # an empty file is a database SQLite will fill
    assert check_db(f"sqlite:///{tmp_path / 'empty.db'}", writing=True)


def test_a_password_is_never_shown() -> None:
    with pytest.raises(DatabaseArgumentError) as caught:
        check_db("nosuchdb://user:hunter2@host/db", writing=True)
    assert "hunter2" not in str(caught.value) and "***" in str(caught.value)
