"""Schema 5: an image's bytes may live in a pack file beside a SQLite database (``blobs.pack``,
``blobs.pack_offset``; ``agentkit.transcripts.image_packs``).

Rows written before packs existed keep their bytes in ``data``, so both new columns are NULL for them
and nothing is moved: readers take either form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

if TYPE_CHECKING:
    from alembic.operations import Operations

VERSION = 5
ABOUT = "blobs.pack, blobs.pack_offset"
ADDED_COLUMNS = {"blobs": ("pack", "pack_offset")}


def upgrade(op: Operations, conn: Connection) -> None:
    from agentkit.transcripts.migrations import existing_columns

    have = existing_columns(conn, "blobs")
    if have and "pack" not in have:
        op.add_column("blobs", sa.Column("pack", sa.String(16), nullable=True))
    if have and "pack_offset" not in have:
        op.add_column(
            "blobs",
            sa.Column("pack_offset", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        )
