"""Reading commands work on a database copy on read-only media (issue 15, item 6).

Why: a WAL database's readers need its ``-shm`` file, which SQLite cannot create on read-only
media, so ``transcripts list``, ``show``, ``export``, ``replay`` and ``view`` failed on exactly the
shared copy the viewer is meant for. The copies here lie on a read-only bind mount in a private
mount namespace (``unshare -m``): read-only for root too, unlike file permissions.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from agentkit.testing.cli_runner import AGENTKIT, cli_env, run_json

# Mount each folder named in $RO_DIRS read-only over itself, then run the command.
_READ_ONLY = (
    'for d in $RO_DIRS; do mount --bind "$d" "$d" && mount -o remount,bind,ro "$d" || exit 97; done; '
    'exec "$@"'
)


def _on_read_only(dirs: list[Path], args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = cli_env(RO_DIRS=" ".join(str(d) for d in dirs))
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", _READ_ONLY, "sh", *AGENTKIT, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def read_only_mounts(tmp_path_factory):
    probe = tmp_path_factory.mktemp("probe")
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", _READ_ONLY + "; true", "sh", "touch", str(probe / "x")],
        env={**os.environ, "RO_DIRS": str(probe)},
        capture_output=True,
        text=True,
    )
    if done.returncode == 97 or done.returncode == 0 and (probe / "x").exists():
        pytest.skip(f"cannot make a read-only bind mount here: {done.stderr.strip()}")
    return True


def test_reading_commands_open_copies_on_read_only_media(tmp_path: Path, read_only_mounts: bool) -> None:
    work = tmp_path / "work"
    work.mkdir()
    data = run_json(
        [
            "run",
            "--env",
            "gridworld",
            "--task",
            "BabyAI-GoToLocal-v0",
            "--db",
            f"sqlite:///{work / 'agentkit.db'}",
        ],
        tmp_path,
    )
    run_id, episode_id = data["run_id"], data["episodes"][0]["episode_id"]

    clean = tmp_path / "clean"  # a copy of the database file alone
    clean.mkdir()
    shutil.copyfile(work / "agentkit.db", clean / "agentkit.db")
    # A copy taken while a writer held changes in its -wal file (not yet in the database file).
    live = tmp_path / "live"
    live.mkdir()
    writer = sqlite3.connect(work / "agentkit.db")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("UPDATE runs SET model = 'model-changed-in-the-wal'")
    writer.commit()
    shutil.copyfile(work / "agentkit.db", live / "agentkit.db")
    shutil.copyfile(work / "agentkit.db-wal", live / "agentkit.db-wal")
    writer.close()
    out = tmp_path / "out"
    before = {d: sorted(p.name for p in d.iterdir()) for d in (clean, live)}

    db = f"sqlite:///{clean / 'agentkit.db'}"
    listed = _on_read_only([clean, live], ["transcripts", "list", "--db", db, "--json"], tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)[0]["run"]["id"] == run_id
    shown = _on_read_only([clean, live], ["transcripts", "show", episode_id, "--db", db, "--json"], tmp_path)
    assert shown.returncode == 0 and json.loads(shown.stdout)["turns"], shown.stderr
    replayed = _on_read_only([clean, live], ["replay", episode_id, "--db", db, "--json"], tmp_path)
    assert replayed.returncode == 0 and json.loads(replayed.stdout)["matches"] is True, replayed.stderr
    exported = _on_read_only(
        [clean, live], ["transcripts", "export", run_id, "--out", str(out / "t.jsonl"), "--db", db], tmp_path
    )
    assert exported.returncode == 0 and (out / "t.jsonl").stat().st_size > 0, exported.stderr
    viewed = _on_read_only(
        [clean, live], ["view", "--db", db, "--export", str(out / "bundle"), "--run", run_id], tmp_path
    )
    assert viewed.returncode == 0 and (out / "bundle" / "index.html").is_file(), viewed.stderr

    # the copy with a -wal file: its last changes are read, not silently dropped
    live_db = f"sqlite:///{live / 'agentkit.db'}"
    listed = _on_read_only([clean, live], ["transcripts", "list", "--db", live_db, "--json"], tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)[0]["run"]["model"] == "model-changed-in-the-wal"
    assert {d: sorted(p.name for p in d.iterdir()) for d in (clean, live)} == before


def test_reading_commands_name_a_missing_database_in_one_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*AGENTKIT, "transcripts", "list", "--db", f"sqlite:///{tmp_path / 'none.db'}"],
        cwd=tmp_path,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        proc.returncode != 0 and "no transcript database at" in proc.stderr and "Traceback" not in proc.stderr
    )
    assert not (tmp_path / "none.db").exists()
