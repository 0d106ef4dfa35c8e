"""Refuse a ``-wal`` file that does not belong to the SQLite database beside it, before opening it.

Why: SQLite applies whatever write-ahead log lies beside a database, looking only at the log's own
salts and checksums: nothing in it names its database. A ``runs.db-wal`` left from another file
(a database copied over ``runs.db``, a log copied in by hand) was applied silently: ``show`` said
an existing episode did not exist and ``list`` died with a "malformed" traceback, and the first
writer's checkpoint would have made that permanent. Before any connection opens the file, the log
is read as SQLite would read it (https://sqlite.org/fileformat.html, "The Write-Ahead Log") and
refused in one line, naming it and saying to move it aside, when:

- it is not a write-ahead log (magic number, version or header checksum wrong);
- its page size is not the database's;
- its committed frames would shrink the database below the pages the file already has (agentkit
  never vacuums, so its own log never does);
- pages it says were already copied into the database (the ``-shm`` index's backfill count) differ
  from the database's, or an index of another log lies beside it and the log's pages are not the
  database's.

A genuine log, such as the one a writer killed by SIGKILL leaves, passes all of these and is applied
as before: nothing of it is lost. The cost is one read of the log (and of the database pages it
claims were copied), bounded by the log's size.
"""

from __future__ import annotations

import logging
import mmap
import os
import sqlite3
import struct
import sys
import time
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from agentkit.records import StorageError

log = logging.getLogger(__name__)

_WAL_MAGIC = (0x377F0682, 0x377F0683)  # checksums little- or big-endian
_WAL_VERSION = 3007000
_WAL_HEADER = 32
_FRAME_HEADER = 24
_SHM_HEADER = 48  # one copy of the wal-index header; two copies, then the checkpoint info
_SAMPLE = 500  # ids per table compared with and without the log (bounded, and under SQLite's 999 parameters)
_MAX_STEPS = 50_000_000  # SQLite steps the comparison may take (about a second); then it is skipped
_STEPS_PER_TICK = 10_000
_AGENTKIT_ROWS = ("runs", "episodes")  # tables whose rows agentkit never deletes
_MOVE_ASIDE = "move it aside (mv {wal} {wal}.aside) and open the database again"


class ForeignWalError(StorageError):
    """The -wal file beside a database is not that database's; the message is one line naming it."""


@dataclass
class WalLog:
    """What SQLite would apply from a log: the frames of its current run (those carrying the
    header's salts), the offsets of each page's versions, and the database size at each commit.

    Frame checksums are not recomputed (pure Python takes seconds for a 50 MB log): a torn last
    frame is only ever a writer's own, and is judged by its header like the others.
    """

    page_size: int
    salts: bytes
    frames: int = 0  # frames up to the last commit frame
    seen: int = 0  # frames carrying the salts
    pages: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # page -> [(frame, offset)]
    commit_sizes: list[int] = field(default_factory=list)


def _ids(con: sqlite3.Connection, table: str, sample: Sequence[str] | None) -> list[str]:
    """Up to ``_SAMPLE`` ids of ``table`` (the first in id order), or those of ``sample`` it holds."""
    if sample is None:
        rows = con.execute(f"SELECT id FROM {table} ORDER BY id LIMIT {_SAMPLE}").fetchall()
    else:
        marks = ",".join("?" * len(sample))
        rows = con.execute(f"SELECT id FROM {table} WHERE id IN ({marks})", tuple(sample)).fetchall()
    return [str(r[0]) for r in rows]


def _rows_lost(db: Path) -> str | None:
    """A run or episode the database file holds without the log that is gone with the log applied
    (agentkit never deletes either, so its own log only adds), or None.

    The file alone is read ``immutable`` (the log ignored), then with the log, both read-only; a
    sample of ids keeps it bounded. Not checked where SQLite could not make the ``-shm`` index.
    """
    if not os.access(db.parent, os.W_OK):
        return None
    alone = f"{db.resolve().as_uri()}?mode=ro&immutable=1"
    applied = f"{db.resolve().as_uri()}?mode=ro"
    try:
        with closing(_bounded(sqlite3.connect(alone, uri=True))) as before:
            kept = {t: _ids(before, t, None) for t in _AGENTKIT_ROWS if _has_table(before, t)}
    except sqlite3.Error:
        return None  # the file alone is not readable as a store: nothing to compare
    try:
        with closing(_bounded(sqlite3.connect(applied, uri=True))) as after:
            for table, ids in kept.items():
                if not _has_table(after, table):  # a view in its place: the readers refuse it by name
                    continue
                present = set(_ids(after, table, ids)) if ids else set()
                for lost in (i for i in ids if i not in present):
                    return f"{table[:-1]} {lost}"
    except sqlite3.OperationalError as exc:  # interrupted (too long), busy: the log is let be
        log.debug("%s: not compared with its log (%s)", db, exc)
        return None
    except sqlite3.DatabaseError as exc:
        return f"the database (it reads as damaged: {exc})"
    return None


def _bounded(con: sqlite3.Connection) -> sqlite3.Connection:
    """``con`` with its statements interrupted after ``_MAX_STEPS`` virtual-machine steps each."""
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 1 if steps[0] * _STEPS_PER_TICK > _MAX_STEPS else 0

    con.set_progress_handler(tick, _STEPS_PER_TICK)
    return con


def _has_table(con: sqlite3.Connection, name: str) -> bool:
    row = con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
    return row is not None


def _checksum(data: bytes, s0: int, s1: int, big_endian: bool) -> tuple[int, int]:
    words = struct.unpack((">" if big_endian else "<") + f"{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def _page_size(raw: int) -> int:
    return 65536 if raw == 1 else raw


def _refuse(wal: Path, why: str) -> ForeignWalError:
    return ForeignWalError(
        f"{wal}: {why}; SQLite would apply it to {wal.name[: -len('-wal')]}: " + _MOVE_ASIDE.format(wal=wal)
    )


def read_wal(wal: Path, data: bytes | mmap.mmap) -> WalLog:
    """The committed frames of a log, as SQLite's recovery finds them (checksums aside)."""
    magic, version, page_size, _seq, _s1, _s2, c1, c2 = struct.unpack(">8I", data[:_WAL_HEADER])
    if magic not in _WAL_MAGIC or version != _WAL_VERSION:
        raise _refuse(wal, "it is not a SQLite write-ahead log")
    if _checksum(bytes(data[:24]), 0, 0, bool(magic & 1)) != (c1, c2) or _page_size(page_size) < 512:
        raise _refuse(wal, "its header is damaged (checksum)")
    result = WalLog(_page_size(page_size), bytes(data[16:24]))
    offset, frame, pending = _WAL_HEADER, 0, []
    step = _FRAME_HEADER + result.page_size
    while offset + step <= len(data):
        page, commit_size = struct.unpack(">2I", data[offset : offset + 8])
        if data[offset + 8 : offset + 16] != result.salts or page == 0:
            break
        frame += 1
        pending.append((page, frame, offset + _FRAME_HEADER))
        if commit_size:  # a commit frame: its transaction's frames count
            for p, f, o in pending:
                result.pages.setdefault(p, []).append((f, o))
            pending = []
            result.frames = frame
            result.commit_sizes.append(commit_size)
        offset += step
    result.seen = frame
    return result


@dataclass(frozen=True)
class WalIndex:
    """The ``-shm`` index header SQLite keeps beside a log (native byte order)."""

    salts: bytes
    max_frame: int
    backfilled: int


def read_index(shm: Path) -> WalIndex | None:
    """The wal-index header of ``shm``, or None if absent, short or not initialised."""
    try:
        with shm.open("rb") as handle:
            head = handle.read(2 * _SHM_HEADER + 8)
    except OSError:
        return None
    if len(head) < 2 * _SHM_HEADER + 8 or head[:_SHM_HEADER] != head[_SHM_HEADER : 2 * _SHM_HEADER]:
        return None
    order = "<" if sys.byteorder == "little" else ">"
    version, _, _, is_init = struct.unpack(order + "3IB", head[:13])
    if version != _WAL_VERSION or not is_init:
        return None
    max_frame = struct.unpack(order + "I", head[16:20])[0]
    backfilled = struct.unpack(order + "I", head[2 * _SHM_HEADER : 2 * _SHM_HEADER + 4])[0]
    return WalIndex(head[32:40], max_frame, backfilled)


def _differing_page(db: Path, data: bytes | mmap.mmap, log_: WalLog, up_to: int) -> int | None:
    """The first page written in frames 1..``up_to`` whose content in the database is none of the
    versions the log holds of it (a checkpoint copying later frames may be under way: any counts)."""
    with db.open("rb") as handle:
        for page, versions in sorted(log_.pages.items()):
            if versions[0][0] > up_to:
                continue
            handle.seek((page - 1) * log_.page_size)
            stored = handle.read(log_.page_size)
            if all(stored != data[o : o + log_.page_size] for _f, o in versions):
                return page
    return None


def check_wal(db: Path, attempts: int = 3) -> None:
    """Raise ForeignWalError when the ``-wal`` beside ``db`` does not belong to it (see the module).

    A log that a live writer is appending to or checkpointing can be read between two of its steps;
    a refusal is therefore made only when ``attempts`` readings a moment apart all agree.
    """
    for attempt in range(attempts):
        try:
            _check_once(db)
            return
        except ForeignWalError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.1)


def _open_in_this_process(db: Path) -> bool:
    """Whether a file descriptor of this process already points at ``db`` or its -wal or -shm (Linux's
    /proc; False where there is none to look at).

    Why: closing any descriptor of a file drops every POSIX lock this process holds on it, those of
    its open SQLite connections included (sqlite.org/howtocorrupt.html, 2.2). Reading the files with
    Python here, while such a connection is open (a second store on the same file, a notebook's own
    sqlite3 connection), would leave that connection unprotected: another process's checkpoint could
    then truncate the log under it, and the file was found "malformed" afterwards. A log this process
    is already using is the database's own, so the check is skipped then, touching nothing.
    """
    fds = Path("/proc/self/fd")
    try:
        entries = list(fds.iterdir())
    except OSError:
        return False
    names = {str(db.resolve()), f"{db.resolve()}-wal", f"{db.resolve()}-shm"}
    for entry in entries:
        try:
            if os.readlink(entry) in names:
                return True
        except OSError:  # closed meanwhile
            continue
    return False


def _check_once(db: Path) -> None:
    wal = db.with_name(db.name + "-wal")
    try:
        if not wal.is_file() or wal.stat().st_size < _WAL_HEADER or db.stat().st_size < 100:
            return  # no log, an empty one (SQLite ignores it), or a database not written yet
        if _open_in_this_process(db):
            log.debug("%s: already open in this process; its log is not read again", db)
            return
        with wal.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            _check_log(db, wal, data)
    except (OSError, ValueError):  # ValueError: mmap of a log emptied meanwhile
        return  # what cannot be read here is reported by SQLite when it opens the file


def _check_log(db: Path, wal: Path, data: mmap.mmap) -> None:
    with db.open("rb") as handle:
        header = handle.read(100)
    log_ = read_wal(wal, data)
    db_page_size = _page_size(struct.unpack(">H", header[16:18])[0])
    if log_.page_size != db_page_size:
        raise _refuse(wal, f"its pages are {log_.page_size} bytes, the database's {db_page_size}")
    if not log_.frames:
        return  # no committed frame: SQLite applies nothing
    pages_now = db.stat().st_size // db_page_size
    if max(log_.commit_sizes) < pages_now:
        raise _refuse(
            wal,
            f"it would cut the database from {pages_now} pages to {max(log_.commit_sizes)} (another database's log?)",
        )
    index = read_index(db.with_name(db.name + "-shm"))
    if index is not None:
        _check_index(db, wal, data, log_, index)
    missing = _rows_lost(db)
    if missing:
        raise _refuse(
            wal, f"applied, it would hide {missing}, which the database holds (another database's log?)"
        )


def _check_index(db: Path, wal: Path, data: mmap.mmap, log_: WalLog, index: WalIndex) -> None:
    """Refuse a log whose pages its ``-shm`` index says are copied, or which another log's index
    accompanies, unless the database holds those pages."""
    own = index.salts == log_.salts and 0 < index.max_frame <= log_.seen
    if own and index.backfilled:
        page = _differing_page(db, data, log_, min(index.backfilled, log_.frames))
        if page is not None:
            raise _refuse(
                wal, f"page {page}, which its index says was copied into the database, differs from it"
            )
    elif not own and _differing_page(db, data, log_, log_.frames) is not None:
        raise _refuse(
            wal, "the -shm index beside it belongs to another log, and its pages are not the database's"
        )
