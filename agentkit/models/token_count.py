"""Prompt token counts offline: OpenAI's tokenizers where they load without network, else an estimate.

Why a file of its own: counting is what makes a re-render's "before and after" comparable; kept
apart from the re-rendering, it can be checked on its own (the chunked count must equal the whole
text's) and used by anything else that needs a prompt's size without calling a model. The counter
remembers what it counted (whole texts, and the lines of texts it had not seen), so every caller
(the per-turn prompt-size check, rerender, the benches) pays once for a text a full-history
prompt resends every turn.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import os
import re
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 4

# Split points after which tiktoken's pre-tokenisers (cl100k, o200k) never continue a piece: after a
# newline, before a character that is neither whitespace nor "/" (a piece such as ".\n/" is the
# one way a piece runs across a line start). Counting the chunks separately therefore gives the
# same total as counting the whole text, and lines repeat a lot between prompts, so each distinct
# line is encoded once. tests/test_rerender.py checks the equality on random text.
_CHUNK_SPLIT = re.compile(r"(?<=\n)(?=[^\s/])")

# What a counter remembers, each bounded by the characters its keys hold (a key is kept alive by the
# cache): at most 32 Mi characters of whole texts and 32 Mi characters of distinct lines, so about
# 64 MB for ASCII text (CPython stores a str of wider characters in 2 or 4 bytes each). A cache that
# would go over is emptied and starts again; a text longer than the bound is counted, not kept.
CACHE_MAX_CHARS = 32 * 1024 * 1024


class _Remembered:
    """Token counts by text, holding at most ``max_chars`` characters of keys and ``max_entries``
    texts (emptied when full)."""

    def __init__(self, max_chars: int, max_entries: int | None = None) -> None:
        self.counts: dict[str, int] = {}
        self.chars = 0
        self.max_chars = max_chars
        self.max_entries = max_entries
        self._lock = threading.Lock()  # a counter is shared by the episodes (threads) of a process

    def keep(self, text: str, tokens: int) -> None:
        if len(text) > self.max_chars:
            return
        with self._lock:
            full = self.max_entries is not None and len(self.counts) >= self.max_entries
            if full or self.chars + len(text) > self.max_chars:
                self.counts.clear()
                self.chars = 0
            if text not in self.counts:
                self.counts[text] = tokens
                self.chars += len(text)


class TokenCounter:
    """Counts prompt tokens the way OpenAI's chat models bill them, or estimates when it cannot.

    ``name`` says which: ``tiktoken:<encoding>`` (exact for OpenAI models, an estimate for others)
    or ``chars/4`` (one token per four characters, used when no tokenizer loads offline). Images
    are counted with OpenAI's high-detail formula from their stored width and height.
    """

    def __init__(self, encoding: Any | None = None) -> None:
        self.encoding = encoding
        self.name = f"tiktoken:{encoding.name}" if encoding is not None else f"chars/{CHARS_PER_TOKEN}"
        self._texts = _Remembered(CACHE_MAX_CHARS)  # whole texts: one lookup for a text seen before
        self._chunks = _Remembered(CACHE_MAX_CHARS)  # lines: a new text costs only its new lines

    def remember_at_most(self, texts: int, lines: int) -> None:
        """Bound what the counter remembers to ``texts`` whole texts and ``lines`` distinct lines: the
        model client sizes it to the messages its run resends (``agentkit.models.reuse_window``), so
        a long run does not keep every finished episode's prompts until the character bound."""
        self._texts.max_entries, self._chunks.max_entries = texts, lines

    def text(self, text: str) -> int:
        if not text:
            return 0
        if self.encoding is None:
            return math.ceil(len(text) / CHARS_PER_TOKEN)
        total = self._texts.counts.get(text)  # a str caches its hash: a resent text costs one lookup
        if total is None:
            total = 0
            chunks = self._chunks
            for chunk in _CHUNK_SPLIT.split(text):
                n = chunks.counts.get(chunk)
                if n is None:
                    n = len(self.encoding.encode_ordinary(chunk))
                    chunks.keep(chunk, n)
                total += n
            self._texts.keep(text, total)
        return total

    @staticmethod
    def image(width: int, height: int) -> int:
        """OpenAI high detail: fit in 2048x2048, shortest side at most 768, 170 per 512 tile + 85."""
        if width <= 0 or height <= 0:
            return 85
        scale = min(1.0, 2048 / max(width, height))
        w, h = width * scale, height * scale
        scale = min(1.0, 768 / min(w, h))
        w, h = w * scale, h * scale
        return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def _tiktoken_dir() -> None:
    """Point tiktoken at the BPE files litellm ships, so no download is attempted (offline use)."""
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.submodule_search_locations:
        bundled = Path(list(spec.submodule_search_locations)[0]) / "litellm_core_utils" / "tokenizers"
        if bundled.is_dir():
            os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)


def token_counter(model: str | None = None) -> TokenCounter:
    """The best counter available offline for ``model`` (a litellm id such as ``openai/gpt-4o``)."""
    try:
        import tiktoken
    except ImportError:
        log.info("tiktoken is not installed; counting tokens as characters / %d", CHARS_PER_TOKEN)
        return TokenCounter()
    _tiktoken_dir()
    name = "o200k_base"
    if model:
        try:
            name = tiktoken.encoding_name_for_model(model.rsplit("/", 1)[-1])
        except KeyError:
            pass  # not an OpenAI model: o200k_base is as good an estimate as any
    try:
        return TokenCounter(tiktoken.get_encoding(name))
    except Exception as exc:  # a missing BPE file shows up as a network error
        log.warning(
            "no offline tokenizer (%s: %s); counting tokens as characters / %d",
            type(exc).__name__,
            exc,
            CHARS_PER_TOKEN,
        )
        return TokenCounter()
