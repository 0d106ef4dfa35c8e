"""Copies a SQLite store's write-ahead log back into the database file on a thread of its own.

Why: in WAL mode every commit appends to the ``-wal`` file, and SQLite copies that log back into
the database (a checkpoint: read the log, write the pages, two fsyncs) inside whichever commit
crosses ``wal_autocheckpoint``. Turns carry 30-40 KB images, so that commit came every few
hundred turns and took 50-200 ms: a third to a half of all the time ``add_turn`` spent. Here the
store's writer connection has the automatic checkpoint pushed far out (a back-stop only), the
store reports how many bytes each commit added, and once enough has gathered this thread runs a
PASSIVE checkpoint on a connection of its own. A passive checkpoint never blocks the writer (it
copies what no reader still needs and stops), and a killed process leaves the log as any
interrupted checkpoint does: SQLite replays it on the next open. Durability is unchanged.

SQLite starts the log over from its beginning only when a write begins with every frame copied
back; a writer that never pauses (a sweep, the bench) always has frames the thread has not reached,
and the log would grow without end. So the thread repeats its pass until one finds little new
(each pass copies what was written during the one before), and then the writer itself, between two
transactions, copies the few frames left: its next commit restarts the log.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Callable

from sqlalchemy import Engine

from agentkit.transcripts.sqlite_driver import sqlite_connection

log = logging.getLogger(__name__)

#: Bytes committed to the log between checkpoints (the 8192 pages of 4 KB that db.py's pragma named).
CHECKPOINT_EVERY_BYTES = 32 * 1024 * 1024
#: Log bytes a commit adds besides its blobs: the few table and index pages it rewrites.
BYTES_PER_COMMIT = 6 * 4096
#: Frames written during a pass small enough for the writer to copy back itself (4 MB of pages).
CATCH_UP_FRAMES = 1024
#: Passes of the thread in one round, at most (each copies what arrived during the one before); a
#: writer faster than the copying never lets them converge, and then the writer copies what the
#: last pass left, so the log stays bounded all the same.
MAX_PASSES = 4
#: The writer connection's own automatic checkpoint, in pages: only if this thread falls far behind.
BACKSTOP_PAGES = 65536


class WalCheckpointer:
    """Runs ``PRAGMA wal_checkpoint(PASSIVE)`` on its own thread after every ``every_bytes`` written.

    The writer calls ``wrote(n)`` with the blob bytes of a transaction and ``committed(driver)``
    after each commit (holding its connection); both cost an addition and a comparison unless
    there is work. The thread starts on the first checkpoint it is asked for, lives until ``close()``.
    """

    def __init__(
        self,
        engine: Engine,
        every_bytes: int | None = None,
        before_checkpoint: Callable[[], None] | None = None,
    ) -> None:
        self._engine = engine
        # Flushes what committed rows refer to outside the database (image packs) before a
        # checkpoint makes those rows durable (agentkit.transcripts.image_packs).
        self._before_checkpoint = before_checkpoint
        self._every = CHECKPOINT_EVERY_BYTES if every_bytes is None else every_bytes
        self._pending = 0
        self._wake = threading.Event()
        self._stop = False
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()
        self._lock = threading.Lock()  # guards starting and stopping the thread
        self._catch_up_due = False  # the thread's passes converged: the writer copies the rest
        # For tests and logs: checkpoint passes run (thread and writer), the writer's catch-ups,
        # and the times a pass found a shorter log than the one before (it had started over).
        self.checkpoints = 0
        self.catch_ups = 0
        self.log_restarts = 0
        self._last_frames = 0

    def wrote(self, n_bytes: int) -> None:
        """The transaction being written adds ``n_bytes`` of blobs to the log."""
        self._pending += n_bytes

    def committed(self, driver: sqlite3.Connection) -> None:
        """A commit of the writer's ``driver`` connection is done (no transaction open): copy back
        the frames left by the thread's passes, or wake the thread once enough has gathered."""
        if self._catch_up_due:
            self._catch_up_due = False
            self.catch_ups += 1
            try:
                self._passive(driver)
            except sqlite3.Error as exc:  # the next round tries again; the back-stop still holds
                log.warning("WAL checkpoint by the writer failed: %s", exc)
        self._pending += BYTES_PER_COMMIT
        if self._pending < self._every:
            return
        self._pending = 0
        if self._thread is None or self._pid != os.getpid():
            self._start()
        self._wake.set()

    def close(self) -> None:
        """Stop the thread (after the checkpoint it may be running); the last connection's close
        checkpoints whatever is left, as SQLite always does."""
        with self._lock:
            thread, self._thread = self._thread, None
            self._stop = True
            self._wake.set()
        if thread is not None and self._pid == os.getpid():
            thread.join()

    def _start(self) -> None:
        with self._lock:
            if self._stop:
                return
            if self._pid != os.getpid():  # forked: the parent's thread does not exist here
                self._pid, self._thread = os.getpid(), None
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="agentkit-wal-checkpoint", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stop:
                return
            if self._catch_up_due:  # the writer has not copied back the last round's rest yet:
                continue  # a pass now would hold the checkpoint lock it needs
            try:
                self.round()
            except Exception as exc:  # the writer's back-stop checkpoint still runs
                log.warning("background WAL checkpoint failed: %s", exc)

    def round(self) -> None:
        """Passes until one finds at most ``CATCH_UP_FRAMES`` new frames (or ``MAX_PASSES`` ran);
        then the writer copies the rest back at its next commit."""
        with self._engine.connect() as conn:
            driver = sqlite_connection(conn)
            before = -1
            for _ in range(MAX_PASSES):
                busy, frames, _copied = self._passive(driver)
                if busy or frames < 0 or self._stop:  # another checkpointer, or not in WAL mode
                    return
                if before >= 0 and frames - before <= CATCH_UP_FRAMES:
                    break
                before = frames
        self._catch_up_due = True

    def _passive(self, driver: sqlite3.Connection) -> tuple[int, int, int]:
        """One passive checkpoint: (busy flag, frames in the log, frames copied back)."""
        if self._before_checkpoint is not None:
            self._before_checkpoint()
        row = driver.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.checkpoints += 1
        busy, frames, copied = (int(v) for v in row)
        if 0 <= frames < self._last_frames:
            self.log_restarts += 1
        if frames >= 0:
            self._last_frames = frames
        log.debug("WAL checkpoint: %d of %d frames copied back (busy=%d)", copied, frames, busy)
        return busy, frames, copied
