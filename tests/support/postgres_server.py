"""A throw-away PostgreSQL server for the tests: ``initdb`` and ``pg_ctl`` on a temporary folder.

Why: the store, eval (with --resume) and the viewer's queries must be seen to work on the server
a lab shares, not only on SQLite, and a test run cannot count on a server being there. So it starts
its own: Debian's ``postgresql`` package (installed by ``./dev setup`` when run as root) provides
the binaries; the cluster lives in a temporary folder, listens on 127.0.0.1 on a free port with
trust authentication, and is stopped and deleted at the end. PostgreSQL refuses to run as root, so
as root the server runs as the ``postgres`` user the package creates.

Each test gets a database of its own (``new_database``), so tests never see each other's rows.

Under load (the suite on 2 busy cores) a start may be slow, or the free port may be taken by another
process between choosing and binding it: ``start`` waits up to ``START_WAIT_S`` for the server and
tries again, on a new port in a new folder, up to ``START_ATTEMPTS`` times; connections retry for a
while too. Every wait is bounded, so a server that cannot start still fails the test in one line.
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
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

# Where Debian's package puts the binaries when they are not on PATH (one folder per major version).
_DEBIAN_BIN_GLOB = "/usr/lib/postgresql/*/bin"
START_WAIT_S = 180  # pg_ctl -w -t: how long one start may take (seconds; a few on an idle machine)
START_ATTEMPTS = 3  # starts tried, each on a new port and folder
COMMAND_TIMEOUT_S = START_WAIT_S + 60  # initdb, pg_ctl: killed past this
CONNECT_WAIT_S = 60  # how long new_database keeps trying to connect


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
        deadline = time.monotonic() + CONNECT_WAIT_S
        while True:
            try:
                conn = psycopg.connect(
                    f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres connect_timeout=20",
                    autocommit=True,
                )
            except psycopg.OperationalError:  # a loaded server may refuse for a moment
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
                continue
            with conn:
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
    done = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-800:]}")


def start() -> PostgresServer:
    """Start a server in a new temporary folder, trying again on a new port and folder when a start
    fails (RuntimeError when none of ``START_ATTEMPTS`` starts succeeds)."""
    bin_dir = find_binaries()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL's initdb/pg_ctl are not installed")
    for attempt in range(1, START_ATTEMPTS + 1):
        try:
            return _start_once(bin_dir)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            if attempt == START_ATTEMPTS:
                raise RuntimeError(f"PostgreSQL did not start in {START_ATTEMPTS} attempts: {exc}") from exc
            log.warning("PostgreSQL start %d of %d failed, trying again: %s", attempt, START_ATTEMPTS, exc)
    raise AssertionError("unreachable")


def _start_once(bin_dir: Path) -> PostgresServer:
    """One start: initdb and pg_ctl on a new folder and free port; the folder is removed on failure."""
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
                str(START_WAIT_S),
                "start",
            ],
        )
    except BaseException:
        server.stop()  # a server that came up late, or half-way, is stopped before its folder goes
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
