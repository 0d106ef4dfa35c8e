"""The response cache (``agentkit.transcripts.response_cache``), reached through the store as
``agentkit.models.cached_model`` reaches it: kept, replaced, aged out, escaped."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agentkit.transcripts import TranscriptStore
from agentkit.transcripts.response_cache import ResponseCache


def test_an_answer_is_kept_replaced_and_aged_out(tmp_path: Path) -> None:
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        assert store.cache_get("k" * 64) is None
        store.cache_put("k" * 64, "fake/model", "forward", 10, 2, 0.001)
        hit = store.cache_get("k" * 64)
        assert hit is not None
        assert (hit["model"], hit["answer"], hit["input_tokens"], hit["output_tokens"], hit["cost_usd"]) == (
            "fake/model",
            "forward",
            10,
            2,
            0.001,
        )
        assert abs(hit["created_at"] - time.time()) < 60

        store.cache_put("k" * 64, "fake/model", "left", 11, 3, 0.002)
        again = store.cache_get("k" * 64)
        assert again is not None and again["answer"] == "left"
        assert store.cache_get("k" * 64, max_age_s=3600) is not None
        assert store.cache_get("k" * 64, max_age_s=-1) is None  # older than any age asked for


def test_text_the_database_refuses_is_kept_escaped(tmp_path: Path) -> None:
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        store.cache_put("e" * 64, "fake/model", "bad \ud800 half", 1, 1, 0.0)
        hit = store.cache_get("e" * 64)
        assert hit is not None and hit["answer"] == "bad \\ud800 half"


def test_the_cache_works_on_its_own_engine_and_transaction(tmp_path: Path) -> None:
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        cache = ResponseCache(store.engine, store._transaction)
        cache.put("c" * 64, "m", "answer", 1, 1, 0.0)
        assert store.cache_get("c" * 64) == cache.get("c" * 64)


@pytest.mark.parametrize("key", ["", "x"])
def test_a_missing_key_is_none(tmp_path: Path, key: str) -> None:
    with TranscriptStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        assert store.cache_get(key) is None
