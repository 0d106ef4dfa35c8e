"""Runs as pandas DataFrames for notebooks: ``load_runs(db, run_ids) -> RunFrames(episodes, turns)``.

Why: an analysis should start from two tidy tables, as inspect_ai's ``samples_df`` gives, not from
SQL or a JSON-lines file that repeats the history on every line. The rows are those of
``agentkit transcripts export --format parquet|csv|jsonl`` (``agentkit.transcripts.tables``): one
per episode, with the ``pass`` verdict and the backend's ``level`` / ``category``, and one per turn,
joined on ``episode_id``. Needs the ``data`` extra (pandas, pyarrow).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from agentkit.transcripts.store import TranscriptStore
from agentkit.transcripts.tables import EPISODE_COLUMNS, TURN_COLUMNS, run_tables, to_frame


class RunFrames(NamedTuple):
    """``episodes``: one row per episode; ``turns``: one row per turn (join on ``episode_id``)."""

    episodes: Any  # pandas.DataFrame (pandas is an optional dependency)
    turns: Any


def load_runs(db: str | TranscriptStore, run_ids: str | Iterable[str] | None = None) -> RunFrames:
    """The episodes and turns of ``run_ids`` (default: every run in the database) as DataFrames.

    ``db`` is a SQLAlchemy URL, a path to a SQLite file, or an open ``TranscriptStore``. An unknown
    run id raises ``KeyError`` naming it.
    """
    store, owned = _store(db)
    try:
        ids = [r.id for r in store.list_runs()] if run_ids is None else run_ids
        episodes, turns = run_tables(store, ids)
    finally:
        if owned:
            store.close()
    return RunFrames(to_frame(episodes, EPISODE_COLUMNS), to_frame(turns, TURN_COLUMNS))


def _store(db: str | TranscriptStore) -> tuple[TranscriptStore, bool]:
    if isinstance(db, TranscriptStore):
        return db, False
    url = db if "://" in db else f"sqlite:///{db}"
    if url.startswith("sqlite:///"):
        from pathlib import Path

        if not Path(url.removeprefix("sqlite:///")).is_file():
            raise FileNotFoundError(f"no transcript database at {url.removeprefix('sqlite:///')}")
    return TranscriptStore(url), True
