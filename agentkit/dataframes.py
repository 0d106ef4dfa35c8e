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

from agentkit.transcripts.reader import TranscriptReader
from agentkit.transcripts.tables import EPISODE_COLUMNS, TURN_COLUMNS, run_tables, to_frame


class RunFrames(NamedTuple):
    """``episodes``: one row per episode; ``turns``: one row per turn (join on ``episode_id``)."""

    episodes: Any  # pandas.DataFrame (pandas is an optional dependency)
    turns: Any


def load_runs(db: str | TranscriptReader, run_ids: str | Iterable[str] | None = None) -> RunFrames:
    """The episodes and turns of ``run_ids`` (default: every run in the database) as DataFrames.

    ``db`` is a SQLAlchemy URL, a path to a SQLite file, or an open ``TranscriptReader`` (a
    ``TranscriptStore`` is one). A URL or path is opened read-only: loading never writes to the
    database, not even to create its tables. An unknown run id raises ``KeyError`` naming it.
    """
    reader, owned = _reader(db)
    try:
        ids = [r.id for r in reader.list_runs()] if run_ids is None else run_ids
        episodes, turns = run_tables(reader, ids)
    finally:
        if owned:
            reader.engine.dispose()
    return RunFrames(to_frame(episodes, EPISODE_COLUMNS), to_frame(turns, TURN_COLUMNS))


def _reader(db: str | TranscriptReader) -> tuple[TranscriptReader, bool]:
    if isinstance(db, TranscriptReader):
        return db, False
    url = db if "://" in db else f"sqlite:///{db}"
    if url.startswith("sqlite:///"):
        from pathlib import Path

        if not Path(url.removeprefix("sqlite:///")).is_file():
            raise FileNotFoundError(f"no transcript database at {url.removeprefix('sqlite:///')}")
    from agentkit.viewer.readonly import readonly_engine  # the viewer's read-only open, any backend

    return TranscriptReader(readonly_engine(url)), True
