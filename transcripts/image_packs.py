"""Image bytes of a SQLite transcript database, kept in append-only pack files in a folder beside it.

Why: a turn of an Animal-AI episode carries a fresh 30-40 KB camera frame. Inside the database those
bytes are ten overflow pages that the turn's transaction writes to the write-ahead log, one frame
(and system call) each, and that a checkpoint later copies again: they were two thirds of the time
``add_turn`` took (``bench/store_speed.py``: about 3,000 turns/s with the frames in the database).
Appended to a file of their own they cost one ``write`` and the database keeps only the image's
row (hash, media type, size) with where its bytes are, so the same turn takes a fraction of the time.

Layout: beside ``runs.db`` (and its ``-wal``/``-shm``) a folder ``runs.db-images/`` holds files
``<16 hex digits>.pack``. Each store (one process) appends to a pack of its own, so writers never
contend; a blob row names its pack (``blobs.pack``), the offset (``blobs.pack_offset``) and the
length (``blobs.size``), and its ``data`` is empty. Bytes are written before the turn's transaction
commits: a committed row never names bytes that were not handed to the operating system, and a
transaction that rolls back leaves only unreferenced bytes at a pack's end. Before the store's
background checkpoint makes committed rows durable, the packs are ``fsync``-ed first
(``agentkit.transcripts.wal_checkpointer``), so after a power cut a row does not outlive its bytes.

Only SQLite files use packs; PostgreSQL and in-memory databases keep images in ``data``, and so does
a store opened with ``image_files=False``. Readers take either form. A database copied without its
folder still lists, replays and scores; its images are reported missing, one line each, naming the
folder to copy (``agentkit db inline-images`` moves them into the database for a single-file copy).

Everything in a shared database is untrusted: a pack name must be 16 hex digits (never a path), the
offset and size must lie inside the file and under ``MAX_IMAGE_BYTES``, the pack must be a regular
file (a FIFO would block its reader, and every export and viewer with it, forever), and the bytes read
must hash to the row's sha256; anything else is a missing image with one warning, never a read
elsewhere. Writes never follow a symbolic link out of the database's folder: an ``-images`` folder
that is one is refused, naming the fix.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import re
import stat
import threading
import uuid
import weakref
from pathlib import Path

from sqlalchemy import Engine

log = logging.getLogger(__name__)

#: The folder beside ``<database>`` that holds its packs: ``<database file name>-images``.
FOLDER_SUFFIX = "-images"
PACK_SUFFIX = ".pack"
PACK_ID = re.compile(r"[0-9a-f]{16}")
#: The largest image a row may claim (a camera frame is 30-200 KB): bounds what a crafted row reads.
MAX_IMAGE_BYTES = 64 * 1024 * 1024

_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)

# Engines whose database file is not where their URL says (a read-only private copy): their folder.
_FOLDERS: weakref.WeakKeyDictionary[Engine, Path] = weakref.WeakKeyDictionary()


class PackWriteError(OSError):
    """Image bytes could not be appended to a pack (disk full, folder not writable)."""


def folder_beside(database: Path) -> Path:
    """The pack folder of the database file ``database``."""
    return database.with_name(database.name + FOLDER_SUFFIX)


def register_folder(engine: Engine, folder: Path) -> None:
    """Name the pack folder of ``engine``'s database when its connection does not open the original
    file (a read-only private copy, ``agentkit.viewer.readonly``)."""
    _FOLDERS[engine] = folder


def folder_of(engine: Engine) -> Path | None:
    """The pack folder of a SQLite file database; None for other backends and in-memory databases.

    The file is asked of SQLite itself (``PRAGMA database_list``), which resolves relative paths
    and ``file:`` URIs alike; a registered folder comes first."""
    known = _FOLDERS.get(engine)
    if known is not None:
        return known
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return None
    with engine.connect() as conn:
        rows = conn.exec_driver_sql("PRAGMA database_list").all()
    path = next((row[2] for row in rows if row[1] == "main"), "")
    return folder_beside(Path(path)) if path else None


def is_pack_id(value: object) -> bool:
    return isinstance(value, str) and PACK_ID.fullmatch(value) is not None


class PackWriter:
    """Appends image bytes to this process's pack in ``folder``; thread-safe.

    The pack is created on the first image (so a text-only run makes no folder), and a forked
    child starts a pack of its own rather than interleaving with its parent's.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._pid = 0
        self._id = ""
        self._end = 0

    def append(self, data: bytes) -> tuple[str, int]:
        """Write ``data`` at the end of this process's pack; (pack id, offset). Raises
        ``PackWriteError`` (and starts a new pack next time) when the bytes cannot all be written."""
        with self._lock:
            if self._fd is None or self._pid != os.getpid():
                self._open()
            fd = self._fd
            assert fd is not None
            offset = self._end
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            except OSError as exc:
                self._close_locked()  # the pack's end is unknown now: the next image starts a new one
                raise PackWriteError(
                    exc.errno, f"cannot write image bytes to {self.folder}: {exc.strerror}"
                ) from exc
            self._end = offset + len(data)
            return self._id, offset

    def sync(self) -> None:
        """Flush this process's pack to disk (``fsync``): called before a checkpoint makes the rows
        that refer to it durable."""
        with self._lock:
            fd = self._fd if self._pid == os.getpid() else None
        if fd is not None:
            try:
                os.fsync(fd)
            except OSError as exc:  # a closed descriptor (raced with close) or an I/O error
                log.warning("could not flush image pack in %s: %s", self.folder, exc)

    def close(self) -> None:
        with self._lock:
            self._close_locked()

    def _open(self) -> None:
        """Create a new pack inside the folder itself: a folder that is a symbolic link (to anywhere,
        perhaps another user's folder) is refused, and the pack is created relative to the folder
        opened without following a link, so swapping one in meanwhile does not redirect the write."""
        self._refuse_link()
        try:
            self.folder.mkdir(exist_ok=True)
            folder_fd = os.open(self.folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
        except OSError as exc:
            self._refuse_link()
            raise PackWriteError(
                exc.errno, f"cannot create an image pack in {self.folder}: {exc.strerror}"
            ) from exc
        try:
            pack_id = uuid.uuid4().hex[:16]
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | _NOFOLLOW | _CLOEXEC
            fd = os.open(f"{pack_id}{PACK_SUFFIX}", flags, 0o644, dir_fd=folder_fd)
        except OSError as exc:
            raise PackWriteError(
                exc.errno, f"cannot create an image pack in {self.folder}: {exc.strerror}"
            ) from exc
        finally:
            os.close(folder_fd)
        self._fd, self._pid, self._id, self._end = fd, os.getpid(), pack_id, 0

    def _refuse_link(self) -> None:
        if self.folder.is_symlink():
            raise PackWriteError(
                errno.ELOOP,
                f"the image folder {self.folder} is a symbolic link (to {os.readlink(self.folder)}): "
                "images are written only inside the database's own folder; replace the link with a "
                f"folder (e.g. `rm {self.folder.name}` and move what it pointed to in its place)",
            )

    def _close_locked(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None and self._pid == os.getpid():
            try:
                os.fsync(fd)
            except OSError:
                pass
            os.close(fd)


class PackReader:
    """Reads images back from the packs of one database, checking every value it is given."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._warned: set[str] = set()  # one warning per missing pack, not one per image

    def read(self, sha256: str, pack: object, offset: object, size: object) -> bytes | None:
        """The image's bytes, or None after a warning when they cannot be found or do not match."""
        if not is_pack_id(pack):
            return self._missing(sha256, f"its pack name {str(pack)[:40]!r} is not 16 hex digits")
        if (
            not isinstance(offset, int)
            or not isinstance(size, int)
            or offset < 0
            or not 0 <= size <= MAX_IMAGE_BYTES
        ):
            return self._missing(sha256, f"offset {offset!r} / size {size!r} out of range")
        if self.folder is None:
            return self._missing(sha256, "this database has no image folder (not a SQLite file)")
        path = self.folder / f"{pack}{PACK_SUFFIX}"
        try:
            # Non-blocking: opening a FIFO for reading would otherwise wait for a writer forever.
            fd = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC)
            with open(fd, "rb") as f:
                kind = _not_regular(os.fstat(fd).st_mode)
                if kind:
                    self._refuse_pack(path, kind)
                    return None
                f.seek(offset)
                data = f.read(size)
        except FileNotFoundError:
            if str(path) not in self._warned:
                self._warned.add(str(path))
                log.warning(
                    "image pack %s is missing: copy the folder %s along with the database "
                    "(or run `agentkit db inline-images` where both are)",
                    path.name,
                    self.folder,
                )
            return None
        except OSError as exc:
            return self._missing(sha256, f"{path.name}: {exc.strerror}")
        if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
            return self._missing(sha256, f"the bytes in {path.name} at {offset} do not match its hash")
        return data

    def _refuse_pack(self, path: Path, kind: str) -> None:
        """One warning per pack that is not a regular file; its images are missing."""
        if str(path) not in self._warned:
            self._warned.add(str(path))
            log.warning("image pack %s is %s, not a regular file: its images are refused", path, kind)

    @staticmethod
    def _missing(sha256: str, why: str) -> None:
        log.warning("image %s unavailable: %s", str(sha256)[:64], why)
        return None


def _not_regular(mode: int) -> str:
    """What a file that is not a regular file is ("a FIFO", "a character device"...), else ""."""
    if stat.S_ISREG(mode):
        return ""
    for test, kind in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return kind
    return "not a regular file"
