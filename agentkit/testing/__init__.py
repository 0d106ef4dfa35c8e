"""Test helpers that speak real protocols (a local OpenAI-compatible server), for tests and benchmarks.

They live in the package rather than under ``tests/`` so benchmarks and manual runs can use them too.
``FakeOpenAIServer`` is imported lazily so ``python -m agentkit.testing.fake_openai`` does not load
the module twice.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FakeOpenAIServer"]


def __getattr__(name: str) -> Any:
    if name == "FakeOpenAIServer":
        from agentkit.testing.fake_openai import FakeOpenAIServer

        return FakeOpenAIServer
    raise AttributeError(f"module 'agentkit.testing' has no attribute {name!r}")
