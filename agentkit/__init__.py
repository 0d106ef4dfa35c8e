"""agentkit: embody language models in simulated worlds through action scripts, and measure them.

The Python API, ``agentkit.run``, ``agentkit.evaluate`` and ``agentkit.open_store`` (agentkit/api.py),
is loaded lazily on first use. The parts, each importable as ``agentkit.<part>``: ``actions`` (script language), ``observers``
(observation views), ``memory`` (what of the past goes into a prompt), ``prompts`` (Jinja
templates), ``envs`` (backends), ``transcripts`` (the SQLite/SQLAlchemy store), and here the loop,
models and CLI.
"""

import os

# litellm fetches a price table from the network at import unless told to use its bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agentkit.records import VERSION as __version__  # after the litellm setting

# The Python API (agentkit/api.py), loaded on first use so `import agentkit` stays light: it pulls in
# the runner, SQLAlchemy and pydantic only when a notebook calls agentkit.run(...) or friends.
_API = ("run", "evaluate", "open_store", "EvaluationResult", "RunSetupError", "RunSummary")
# Runs as pandas DataFrames (agentkit/dataframes.py; needs the `data` extra), loaded on first use too.
_DATA = ("load_runs", "RunFrames")
__all__ = ["__version__", *_API, *_DATA]


def __getattr__(name: str):
    if name in _API:
        from agentkit import api

        return getattr(api, name)
    if name in _DATA:
        from agentkit import dataframes

        return getattr(dataframes, name)
    raise AttributeError(f"module 'agentkit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API, *_DATA})
