"""The response cache: model answers kept by the hash of their request, in the store's database.

Why a module of its own: the cache shares the store's database and its write path (on SQLite, the
one held writer connection), but nothing else of it; ``TranscriptStore`` holds one and passes its
``cache_get``/``cache_put`` through, so the turn writer and the cache can each be read alone. The
key is made by ``agentkit.models.cached_model`` (text and image hashes of the prompt, the model and
its settings); this module only keeps and returns rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import Engine, delete, insert, select
from sqlalchemy.engine import Connection

from agentkit.transcripts.schema import CachedResponse, table_of
from agentkit.transcripts.storable_text import escape_value

CACHE = table_of(CachedResponse)

#: A committed write transaction of the store (its ``_transaction``): the cache writes through it so
#: that on SQLite its rows go through the same held writer connection as the turns.
WriteTransaction = Callable[[], AbstractContextManager[Connection]]


class ResponseCache:
    """Cached answers in the ``response_cache`` table: read on a pooled connection, written through
    the store's write transaction."""

    def __init__(self, engine: Engine, transaction: WriteTransaction) -> None:
        self._engine = engine
        self._transaction = transaction

    def get(self, key: str, max_age_s: float | None = None) -> dict[str, Any] | None:
        """A cached answer for ``key`` younger than ``max_age_s`` (None: any age), or None."""
        with self._engine.connect() as conn:
            row = conn.execute(select(CACHE).where(CACHE.c.key == key)).first()
        if row is None or (max_age_s is not None and time.time() - row.created_at > max_age_s):
            return None
        return dict(row._mapping)

    def put(
        self, key: str, model: str, answer: str, input_tokens: int, output_tokens: int, cost_usd: float
    ) -> None:
        """Keep (or replace) the answer for ``key``; text the database refuses is stored escaped."""
        row = {
            "key": key,
            "model": model,
            "answer": escape_value(answer),
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cost_usd": cost_usd,
            "created_at": time.time(),
        }
        with self._transaction() as conn:
            conn.execute(delete(CACHE).where(CACHE.c.key == key))
            conn.execute(insert(CACHE), row)
