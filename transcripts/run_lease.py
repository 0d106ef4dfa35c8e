"""One live writer per run: a lease on the run that its writer renews while it writes, and that expires.

Two processes writing the same run (a second ``agentkit eval --resume`` while the first still
runs) play the same trials twice and collide on the episodes' stable ids. So a writer takes the
run's lease before writing: the run's ``writer_host``/``writer_pid``/``writer_start`` columns name
the holder, the ``run_leases`` row holds its token and last heartbeat. A lease is held while the
run is "running", its holder is not known dead (on this host its process is checked, as readers
do), and its heartbeat is younger than ``LEASE_TTL_S``; a dead or silent holder's lease is taken
over. A holder that finds its token replaced has lost the run and must stop writing.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from agentkit.transcripts.liveness import _HOST, _process_alive, _writer_identity
from agentkit.transcripts.schema import Run, RunLease, table_of

log = logging.getLogger(__name__)

RUNS = table_of(Run)
LEASES = table_of(RunLease)

LEASE_TTL_S = 60.0  # a holder silent this long has lost the run (a hung or unreachable process)
RENEW_EVERY_S = 10.0  # heartbeat period, well inside the TTL (a busy database may delay one)


class RunBusyError(RuntimeError):
    """The run has another live writer; the message is one line naming it."""


def take(conn: Connection, run_id: str, now: float | None = None) -> str:
    """Make this process the run's writer (status "running") and return its lease token.

    Call inside a write transaction that took the write lock before reading. Raises KeyError for
    an unknown run, ``RunBusyError`` when another live process holds the run.
    """
    now = time.time() if now is None else now
    run = conn.execute(
        select(RUNS.c.status, RUNS.c.writer_host, RUNS.c.writer_pid, RUNS.c.writer_start).where(
            RUNS.c.id == run_id
        )
    ).first()
    if run is None:
        raise KeyError(f"no run {run_id!r}")
    lease = conn.execute(select(LEASES.c.renewed_at).where(LEASES.c.run_id == run_id)).first()
    me = _writer_identity()
    if run.status == "running" and (run.writer_host, run.writer_pid, run.writer_start) != me:
        renewed = lease.renewed_at if lease is not None else None
        if _holder_live(run.writer_host, run.writer_pid, run.writer_start, renewed, now):
            age = f"heartbeat {max(0.0, now - renewed):.0f} s ago" if renewed is not None else "no heartbeat"
            raise RunBusyError(
                f"run {run_id} is being written by pid {run.writer_pid} on {run.writer_host} ({age}); "
                f"one writer per run: wait until it ends (its lease expires {LEASE_TTL_S:.0f} s after its "
                f"last heartbeat)"
            )
        log.info("run %s: taking over from writer pid %s on %s", run_id, run.writer_pid, run.writer_host)
    host, pid, start = me
    conn.execute(
        update(RUNS)
        .where(RUNS.c.id == run_id)
        .values(status="running", writer_host=host, writer_pid=pid, writer_start=start)
    )
    token = uuid.uuid4().hex
    conn.execute(delete(LEASES).where(LEASES.c.run_id == run_id))
    conn.execute(insert(LEASES), {"run_id": run_id, "token": token, "renewed_at": now})
    return token


def _holder_live(
    host: str | None, pid: int | None, start: str | None, renewed_at: float | None, now: float
) -> bool:
    """Whether a "running" run's recorded writer still holds it."""
    if host == _HOST and pid is not None and not _process_alive(pid, start):
        return False  # its process is gone: no need to wait for the lease to expire
    if renewed_at is None:  # written before leases: only a live process on this host holds it
        return host == _HOST and pid is not None
    return now - renewed_at < LEASE_TTL_S


def renew(conn: Connection, run_id: str, token: str, now: float | None = None) -> bool:
    """Renew the lease; False if ``token`` no longer holds it (another writer took the run over)."""
    now = time.time() if now is None else now
    return bool(
        conn.execute(
            update(LEASES).where(LEASES.c.run_id == run_id, LEASES.c.token == token).values(renewed_at=now)
        ).rowcount
    )


def release(conn: Connection, run_id: str, token: str) -> None:
    """Give the lease up (the run ended, or stopped): the next ``--resume`` need not wait."""
    conn.execute(delete(LEASES).where(LEASES.c.run_id == run_id, LEASES.c.token == token))


class LeaseKeeper:
    """A daemon thread renewing a run's lease every ``RENEW_EVERY_S`` while the run is written.

    ``renew`` returns False when the lease was lost; ``on_lost`` is then called once (the runner
    stops the run). A renewal that fails (a busy or full database) is logged and tried again.
    """

    def __init__(
        self, renew: Callable[[], bool], on_lost: Callable[[], None], every_s: float = RENEW_EVERY_S
    ) -> None:
        self._renew, self._on_lost, self._every = renew, on_lost, every_s
        self._stop = threading.Event()
        self.lost = False  # the run was taken over: this process must not close it either
        self._thread = threading.Thread(target=self._run, name="run-lease", daemon=True)

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            try:
                held = self._renew()
            except Exception as exc:  # a heartbeat must never kill the run by itself
                log.warning("could not renew the run's lease: %s", exc)
                continue
            if not held:
                log.error("another process took this run over: stopping")
                self.lost = True
                self._on_lost()
                return
