"""The token counter remembers what it counted, for every caller, within a fixed memory bound.

Why: a full-history prompt resends every earlier turn's text, and the per-turn prompt-size check
(agentkit.models.prompt_size), rerender and the benches all count them. One cache, in the counter
(agentkit.models.token_count), serves them all; these tests check that a text seen before is not encoded
again, that the counts stay exact, and that the cache never holds more characters than its bound.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from agentkit.models import token_count
from agentkit.models.prompt_size import count_input_tokens
from agentkit.models.token_count import token_counter


class _CountingEncoding:
    """A real tiktoken encoding that also counts the characters it is asked to encode."""

    def __init__(self, encoding: Any) -> None:
        self.encoding = encoding
        self.name = encoding.name
        self.chars_encoded = 0

    def encode_ordinary(self, text: str) -> list[int]:
        self.chars_encoded += len(text)
        return self.encoding.encode_ordinary(text)


def _counter(monkeypatch: pytest.MonkeyPatch, max_chars: int | None = None):
    if max_chars is not None:
        monkeypatch.setattr(token_count, "CACHE_MAX_CHARS", max_chars)
    counter = token_counter("openai/gpt-4o")
    if counter.encoding is None:
        pytest.fail("no offline tokenizer: tiktoken and litellm's bundled BPE files are dependencies")
    real = counter.encoding
    counter.encoding = _CountingEncoding(real)
    return counter, real


def test_a_resent_prompt_is_counted_from_memory_and_counts_the_same(monkeypatch):
    counter, real = _counter(monkeypatch)
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are in a grid.\nGo to the key."}]
    totals = []
    for i in range(5):
        history.append({"role": "user", "content": [{"type": "text", "text": f"turn {i}\nyou see a wall"}]})
        history.append({"role": "assistant", "content": f"Go({i});"})
        before = counter.encoding.chars_encoded
        totals.append(count_input_tokens(history, counter))
        # after the first turn, only the new messages' lines not seen before are encoded
        assert i == 0 or counter.encoding.chars_encoded - before <= len(f"turn {i}\n") + len(f"Go({i});")
    before = counter.encoding.chars_encoded
    assert count_input_tokens(history, counter) == totals[-1]
    assert counter.encoding.chars_encoded == before  # the whole prompt again: nothing encoded
    texts = [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in history]
    assert all(t in counter._texts.counts for t in texts)  # remembered whole, by the counter itself
    assert all(counter.text(t) == len(real.encode_ordinary(t)) for t in texts)


def test_the_cache_stays_within_its_character_bound_and_stays_exact(monkeypatch):
    counter, real = _counter(monkeypatch, max_chars=2_000)
    rng = random.Random(7)
    words = ["go", "turn", " the", " red key", "\n", "\n\n", " (3, 4)", ".", "/path"]
    texts = ["".join(rng.choice(words) for _ in range(rng.randint(1, 120))) for _ in range(300)]
    texts.append("x" * 5_000)  # longer than the bound: counted, never kept
    for text in texts + texts[:50]:
        assert counter.text(text) == len(real.encode_ordinary(text))
        for cache in (counter._texts, counter._chunks):
            assert cache.chars == sum(map(len, cache.counts)) <= 2_000
    assert "x" * 5_000 not in counter._texts.counts
