"""agentkit: embody language models in simulated worlds through action scripts, and measure them.

The parts, each importable as ``agentkit.<part>``: ``actions`` (script language), ``observers``
(observation views), ``memory`` (what of the past goes into a prompt), ``prompts`` (Jinja
templates), ``envs`` (backends), ``transcripts`` (the SQLite/SQLAlchemy store), and here the loop,
models and CLI.
"""

import os

# litellm fetches a price table from the network at import unless told to use its bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
