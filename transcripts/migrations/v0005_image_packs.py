"""Schema 5: an image's bytes may live in a pack file beside a SQLite database (``blobs.pack``,
``blobs.pack_offset``; ``agentkit.transcripts.image_packs``), and a turn keeps its prompt's spans in
its own row (``turns.prompt_spans``) instead of a ``turn_prompts`` row.

Rows written before keep their bytes in ``data`` and their spans in ``turn_prompts``, so the new
columns are NULL for them and nothing is moved: readers take either form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

if TYPE_CHECKING:
    from alembic.operations import Operations

VERSION = 5
ABOUT = "blobs.pack, blobs.pack_offset, turns.prompt_spans"
ADDED_COLUMNS = {"blobs": ("pack", "pack_offset"), "turns": ("prompt_spans",)}


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
    turns = existing_columns(conn, "turns")
    if turns and "prompt_spans" not in turns:
        op.add_column("turns", sa.Column("prompt_spans", sa.JSON(), nullable=True))
