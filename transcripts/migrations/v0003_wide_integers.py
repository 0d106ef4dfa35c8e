"""Schema 3: 64-bit integers where values can be large (seeds, token counts, turn ids).

``--seed 3000000000`` overflowed PostgreSQL's 32-bit ``integer`` columns, and a store that many runs
share can pass 2**31 turns. On PostgreSQL the columns become ``bigint`` (and the sequence behind
``turns.id`` too: a serial's sequence stops at the type it was made for). SQLite's INTEGER holds 64
bits already, so there this step changes nothing but the recorded version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

if TYPE_CHECKING:
    from alembic.operations import Operations

VERSION = 3
ABOUT = "64-bit seeds, token counts and turn ids"
ADDED_COLUMNS: dict[str, tuple[str, ...]] = {}

#: table -> the integer columns made 64-bit (only those present are changed).
WIDENED = {
    "turns": ("id", "input_tokens", "output_tokens"),
    "episodes": ("seed", "input_tokens", "output_tokens"),
    "messages": ("turn_id",),
    "turn_prompts": ("turn_id",),
    "model_calls": (
        "turn_id",
        "provider_input_tokens",
        "provider_output_tokens",
        "provider_cached_tokens",
        "our_input_tokens",
    ),
    "blobs": ("size",),
    "response_cache": ("input_tokens", "output_tokens"),
}


def upgrade(op: Operations, conn: Connection) -> None:
    if conn.dialect.name == "sqlite":
        return
    from agentkit.transcripts.migrations import existing_columns

    for table, names in WIDENED.items():
        have = existing_columns(conn, table)
        for name in names:
            column = have.get(name)
            if column is not None and not isinstance(column["type"], sa.BigInteger):
                op.alter_column(
                    table,
                    name,
                    type_=sa.BigInteger(),
                    existing_type=column["type"],
                    existing_nullable=column["nullable"],
                )
    if conn.dialect.name == "postgresql" and existing_columns(conn, "turns"):
        sequence = conn.exec_driver_sql("SELECT pg_get_serial_sequence('turns', 'id')").scalar()
        if sequence:
            conn.exec_driver_sql(f"ALTER SEQUENCE {sequence} AS bigint")
