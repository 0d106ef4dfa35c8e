"""Image folders and packs that are not what they seem (issue 29, rows 5, 6 and 13).

Before: a pack that is a FIFO hung `transcripts export` and `view --export` for ever, leaving
``.partial`` files; an ``-images`` folder that is a symbolic link had `eval` write its pack wherever it
pointed; a read-only ``-images`` folder stopped the run with "make room". Now a pack that is not a
regular file is refused in one warning (its images missing, the export finished), a linked folder
is refused in one line saying how to fix it, and a read-only one is named as such.

All real: a gridworld run over HTTP from the local OpenAI-compatible server, a real FIFO, a real
symbolic link, a folder the `agentkit` process may not write to (as root, the process is started
without the capabilities that override file permissions).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agentkit.testing.cli_runner import AGENTKIT, cli_env, run_cli
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts.image_packs import folder_beside

TASK = "BabyAI-GoToLocal-v0"


def _eval(folder: Path, db: Path, **run: object) -> tuple[int, str]:
    """`agentkit eval` of one short gridworld episode with images into ``db``: (exit code, stderr)."""
    with FakeOpenAIServer(responder=lambda _body: "Turn(90);") as server:
        exp = folder / "exp.yaml"
        exp.write_text(
            f"env: gridworld\ntasks: [{TASK}]\ntrials: 1\nmodel: openai/fake-model\n"
            f"api_base: {server.base_url}\nmax_scripts: 2\n"
        )
        proc = run_cli(["eval", str(exp), "--db", f"sqlite:///{db}"], folder, check=False, **run)  # type: ignore[arg-type]
    return proc.returncode, proc.stderr


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with one episode whose frames are in one pack (recorded once for the module)."""
    folder = tmp_path_factory.mktemp("recorded")
    code, stderr = _eval(folder, folder / "runs.db")
    assert code == 0, stderr
    assert len(list(folder_beside(folder / "runs.db").glob("*.pack"))) == 1
    return folder / "runs.db"


def _copy(recorded: Path, tmp_path: Path) -> tuple[Path, str]:
    db = tmp_path / "runs.db"
    shutil.copy(recorded, db)
    shutil.copytree(folder_beside(recorded), folder_beside(db))
    with sqlite3.connect(db) as con:
        (episode,) = con.execute("SELECT id FROM episodes").fetchone()
    return db, episode


def test_a_pack_that_is_a_fifo_is_refused_and_both_exports_finish(recorded: Path, tmp_path: Path) -> None:
    db, episode = _copy(recorded, tmp_path)
    (pack,) = folder_beside(db).glob("*.pack")
    pack.unlink()
    os.mkfifo(pack)
    out = tmp_path / "out"
    out.mkdir()
    commands = {
        "export": ["transcripts", "export", episode, "--out", str(out / "turns.jsonl")],
        "view": ["view", "--export", str(out / "bundle"), "--episode", episode],
    }
    for name, args in commands.items():
        wide = cli_env(COLUMNS="1000")  # the log line unwrapped
        proc = run_cli([*args, "--db", f"sqlite:///{db}"], tmp_path, wide, check=False, timeout=120)
        assert proc.returncode == 0, f"{name}: {proc.stderr}"
        warning = f"image pack {pack} is a FIFO, not a regular file: its images are refused"
        assert proc.stderr.count(warning) == 1, f"{name}: {proc.stderr}"
        assert "Traceback" not in proc.stderr
    assert (out / "turns.jsonl").stat().st_size > 0 and (out / "bundle" / "index.html").is_file()
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".partial")]


def test_an_images_folder_that_is_a_symlink_is_refused_and_nothing_is_written_there(tmp_path: Path) -> None:
    elsewhere = tmp_path / "someone-elses-folder"
    elsewhere.mkdir()
    db = tmp_path / "runs.db"
    folder_beside(db).symlink_to(elsewhere, target_is_directory=True)
    code, stderr = _eval(tmp_path, db)
    assert code == 1 and list(elsewhere.iterdir()) == []
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert (
        f"the image folder {folder_beside(db)} is a symbolic link (to {elsewhere}): images are written "
        "only inside the database's own folder; replace the link with a folder (e.g. `rm runs.db-images` "
        "and move what it pointed to in its place)" in lines[0]
    )
    assert "make room" not in stderr and "fix what it names, then `agentkit eval --resume" in lines[0]


#: Run as root, the child drops the capabilities that ignore file permissions (CAP_DAC_OVERRIDE,
#: CAP_DAC_READ_SEARCH, CAP_FOWNER: prctl PR_CAPBSET_DROP, 24) in a fresh interpreter, then execs
#: agentkit. Not a ``preexec_fn``: that runs Python in a fork of the test worker, which Python's
#: documentation calls unsafe with threads; once, under load, the child aborted in gRPC's epoll
#: ("epoll_wait error: Bad file descriptor") in a worker that had run the Ray tests.
_DROP_THEN_EXEC = (
    "import ctypes, os, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "for cap in (1, 2, 3):\n"
    "    if libc.prctl(24, cap, 0, 0, 0) != 0:\n"
    "        raise OSError(ctypes.get_errno(), 'prctl(PR_CAPBSET_DROP)')\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)


def _without_permission_overrides(command: list[str]) -> list[str]:
    """``command`` run without the permission-ignoring capabilities when the tests run as root."""
    if os.geteuid() != 0:
        return command
    return [sys.executable, "-c", _DROP_THEN_EXEC, *command]


def test_a_read_only_images_folder_is_named_as_such_not_as_a_full_disk(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    folder_beside(db).mkdir(mode=0o555)
    try:
        with FakeOpenAIServer(responder=lambda _body: "Turn(90);") as server:
            exp = tmp_path / "exp.yaml"
            exp.write_text(
                f"env: gridworld\ntasks: [{TASK}]\ntrials: 1\nmodel: openai/fake-model\n"
                f"api_base: {server.base_url}\nmax_scripts: 2\n"
            )
            proc = subprocess.run(
                _without_permission_overrides([*AGENTKIT, "eval", str(exp), "--db", f"sqlite:///{db}"]),
                cwd=tmp_path,
                env=cli_env(),
                capture_output=True,
                text=True,
                timeout=300,
            )
    finally:
        folder_beside(db).chmod(0o755)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert (
        f"the transcript store cannot write: cannot create an image pack in {folder_beside(db)}: "
        "Permission denied" in lines[0]
    )
    assert (
        "make room" not in lines[0]
        and "make what it names writable, then `agentkit eval --resume" in lines[0]
    )
