"""Schema 4: a turn keeps its answer's tool calls (``turns.tool_calls``, ``--action-format tools``).

An answer of native tool calls is not all in its text: the calls (id, tool name, JSON arguments)
are what replay must give back and what the viewer shows. Turns written before tool calls existed
were answers of text, so the new column is NULL for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

if TYPE_CHECKING:
    from alembic.operations import Operations

VERSION = 4
ABOUT = "turns.tool_calls"
ADDED_COLUMNS = {"turns": ("tool_calls",)}


def upgrade(op: Operations, conn: Connection) -> None:
    from agentkit.transcripts.migrations import existing_columns

    have = existing_columns(conn, "turns")
    if have and "tool_calls" not in have:
        op.add_column("turns", sa.Column("tool_calls", sa.JSON(), nullable=True))
