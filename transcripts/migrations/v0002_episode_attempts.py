"""Schema 2: episodes count relaunches (``attempt``) and keep backend metrics (``metrics``).

The first release (schema 1, no ``agentkit_schema`` table) had neither column: an episode that was
relaunched after a crash, and the Animal-AI pass/level measures, came later. Existing episodes are
each their first attempt (0) with no metrics. The layout-2 message tables (``episode_messages``,
``turn_prompts``) and the version table are new tables, made by ``create_all`` after the steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

if TYPE_CHECKING:
    from alembic.operations import Operations

VERSION = 2
ABOUT = "episodes.attempt and episodes.metrics; layout-2 message tables"
ADDED_COLUMNS = {"episodes": ("attempt", "metrics")}


def upgrade(op: Operations, conn: Connection) -> None:
    from agentkit.transcripts.migrations import existing_columns

    have = existing_columns(conn, "episodes")
    if not have:
        return  # no episodes table: create_all makes it whole
    if "attempt" not in have:
        op.add_column("episodes", sa.Column("attempt", sa.Integer(), nullable=False, server_default="0"))
    if "metrics" not in have:
        op.add_column("episodes", sa.Column("metrics", sa.JSON(), nullable=True))
