"""A throw-away PostgreSQL server for the tests: ``initdb`` and ``pg_ctl`` on a temporary folder.

Why: the store, eval (with --resume) and the viewer's queries must be seen to work on the server
a lab shares, not only on SQLite, and a test run cannot count on a server being there. So it starts
its own: Debian's ``postgresql`` package (installed by ``./dev setup`` when run as root) provides
the binaries; the cluster lives in a temporary folder, listens on 127.0.0.1 on a free port with
trust authentication, and is stopped and deleted at the end. PostgreSQL refuses to run as root, so
as root the server runs as the ``postgres`` user the package creates.

Each test gets a database of its own (``new_database``), so tests never see each other's rows.
"""

from __future__ import annotations

import glob
import logging
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

# Where Debian's package puts the binaries when they are not on PATH (one folder per major version).
_DEBIAN_BIN_GLOB = "/usr/lib/postgresql/*/bin"


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (PATH first, then Debian's place), or None."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).resolve().parent
    for folder in sorted(glob.glob(_DEBIAN_BIN_GLOB), reverse=True):
        if (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresServer:
    """A running server: ``url(database)`` names one of its databases."""

    folder: Path
    port: int
    bin_dir: Path
    run_as: str | None  # the user the server runs as when we are root

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """Create an empty database and return its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        _run(
            self,
            [str(self.bin_dir / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop"],
            check=False,
        )
        shutil.rmtree(self.folder, ignore_errors=True)


def _run(server_or_user: PostgresServer | str | None, argv: list[str], check: bool = True) -> None:
    user = server_or_user.run_as if isinstance(server_or_user, PostgresServer) else server_or_user
    if user is not None:
        argv = ["runuser", "-u", user, "--", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-800:]}")


def start() -> PostgresServer:
    """Start a server in a new temporary folder (RuntimeError when it cannot start)."""
    bin_dir = find_binaries()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL's initdb/pg_ctl are not installed")
    run_as = None
    folder = Path(tempfile.mkdtemp(prefix="agentkit-pg-"))
    if os.geteuid() == 0:
        run_as = "postgres"
        user = pwd.getpwnam(run_as)  # KeyError when the package's user is missing
        os.chown(folder, user.pw_uid, user.pw_gid)
    folder.chmod(0o700)
    data = folder / "data"
    port = _free_port()
    server = PostgresServer(folder=folder, port=port, bin_dir=bin_dir, run_as=run_as)
    try:
        _run(
            run_as,
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
                "--no-instructions",
            ],
        )
        # fsync off and small buffers: a test server, thrown away at the end.
        options = (
            f"-p {port} -c listen_addresses=127.0.0.1 -k {folder} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c shared_buffers=32MB -c max_connections=60"
        )
        _run(
            run_as,
            [
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(folder / "log"),
                "-w",
                "-t",
                "60",
                "start",
            ],
        )
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    log.info("PostgreSQL test server on 127.0.0.1:%d (%s)", port, folder)
    return server


def copy_database(source_url: str, target_url: str) -> None:
    """Copy every transcript row of one store into a new, empty one (e.g. a recorded SQLite sample
    into a PostgreSQL database), so read tests see the same data on both without playing it again."""
    from sqlalchemy import create_engine, select

    from agentkit.transcripts import TranscriptStore
    from agentkit.transcripts.db import resolve_url
    from agentkit.transcripts.schema import Base

    TranscriptStore(target_url).close()  # tables made and the version stamped
    source = create_engine(resolve_url(source_url))
    target = create_engine(resolve_url(target_url))
    try:
        with source.connect() as read, target.begin() as write:
            for table in Base.metadata.sorted_tables:
                if table.name == "agentkit_schema":
                    continue
                rows = [dict(r._mapping) for r in read.execute(select(table))]
                if rows:
                    write.execute(table.insert(), rows)
    finally:
        source.dispose()
        target.dispose()
