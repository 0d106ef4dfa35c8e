"""``agentkit db inline-images``: move a SQLite store's image bytes from its packs into the database.

Why: packs (``agentkit.transcripts.image_packs``) make ``add_turn`` several times faster, but a
database with packs is two things to copy: the file and its ``-images`` folder. A researcher who
shares one file (attached to a paper, mailed to a colleague) runs this first; afterwards every image
is in the ``data`` column, as PostgreSQL stores keep them, and the folder is no longer read. The
folder is left in place: a run still writing to the database may be appending to it; remove it
once none is. Rows move in batches of their own transactions, so an interrupted move loses nothing
and the next one carries on; an image whose bytes cannot be found or do not match stays as it is
and is counted (one warning per pack, ``PackReader``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select, update

from agentkit.transcripts.db import make_engine
from agentkit.transcripts.image_packs import PackReader, folder_of
from agentkit.transcripts.schema import Blob, table_of

BLOBS = table_of(Blob)
BATCH = 200  # images per transaction: about 8 MB of camera frames


@dataclass(frozen=True)
class Inlined:
    """What ``inline_images`` did."""

    moved: int  # images whose bytes are now in the database
    missing: int  # images left in packs: their bytes could not be read or did not match
    bytes_moved: int
    folder: Path | None  # the pack folder read (None: not a SQLite file)


def inline_images(url: str, batch: int = BATCH) -> Inlined:
    """Copy every packed image of the database at ``url`` into its row (opening it for writing,
    which upgrades an older database first)."""
    engine = make_engine(url)
    try:
        folder = folder_of(engine)
        reader = PackReader(folder)
        moved = missing = size = 0
        after = ""
        while True:
            with engine.begin() as conn:
                rows = conn.execute(
                    select(BLOBS.c.sha256, BLOBS.c.pack, BLOBS.c.pack_offset, BLOBS.c.size)
                    .where(BLOBS.c.pack.is_not(None), BLOBS.c.sha256 > after)
                    .order_by(BLOBS.c.sha256)
                    .limit(batch)
                ).all()
                if not rows:
                    break
                for row in rows:
                    data = reader.read(row.sha256, row.pack, row.pack_offset, row.size)
                    if data is None:
                        missing += 1
                        continue
                    conn.execute(
                        update(BLOBS)
                        .where(BLOBS.c.sha256 == row.sha256)
                        .values(data=data, pack=None, pack_offset=None)
                    )
                    moved += 1
                    size += len(data)
                after = rows[-1].sha256
        return Inlined(moved, missing, size, folder)
    finally:
        engine.dispose()
