"""Transcripts: everything needed to replay, re-render or re-score an episode, stored as it happens.

Runs (config with secrets removed, template sources), episodes and every turn (messages sent,
answer, parsed script, compiled actions, rewards, timings, tokens, cost) go into one SQLAlchemy
database: by default ``agentkit.db`` in the working directory, SQLite in WAL mode. Each turn is
committed on its own, so a crash loses at most the turn in flight; images and repeated messages
are stored once, by SHA-256. ``export_jsonl`` writes turns out as JSON Lines.
"""

from agentkit.transcripts.db import make_engine
from agentkit.transcripts.export import export_jsonl
from agentkit.transcripts.reader import TranscriptReader
from agentkit.transcripts.scrub import scrub_secrets
from agentkit.transcripts.store import TranscriptStore

__all__ = ["TranscriptReader", "TranscriptStore", "export_jsonl", "make_engine", "scrub_secrets"]
