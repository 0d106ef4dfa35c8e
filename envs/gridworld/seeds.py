"""Evaluation and training seeds that every run of every agent shares, derived by hashing.

Seed ``i`` of a (family, difficulty, split) is::

    base = int.from_bytes(sha256("{family}::{difficulty}::{split}".encode()).digest()[:4], "big")
    seed_i = (base + i) % 2**31

where ``family`` is the catalogue family (e.g. ``goto-local``), ``difficulty`` one of easy, medium,
hard, expert, and ``split`` is ``eval`` or ``train`` (any word works). The seeds depend on nothing
but these strings: no global counter, no RNG state, no Python hash randomisation. So two
processes, two machines or two agents asked for "the first 20 eval seeds of goto-local at hard"
meet identical episodes, and training on the ``train`` split never sees an ``eval`` episode
unless two 31-bit hash ranges happen to overlap (checked by ``splits_overlap``).
"""

from __future__ import annotations

import hashlib

SPLITS: tuple[str, ...] = ("eval", "train")
_MODULUS = 2**31  # MiniGrid accepts any non-negative int; 31 bits keeps it a positive C int too


def base_seed(family: str, difficulty: str, split: str) -> int:
    """The first seed of a (family, difficulty, split)."""
    for value, what in ((family, "family"), (difficulty, "difficulty"), (split, "split")):
        if not value or "::" in value:
            raise ValueError(f"seed {what} must be a non-empty name without '::', got {value!r}")
    digest = hashlib.sha256(f"{family}::{difficulty}::{split}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % _MODULUS


def episode_seeds(family: str, difficulty: str, split: str, count: int) -> list[int]:
    """The first ``count`` seeds of a (family, difficulty, split)."""
    if count < 0:
        raise ValueError(f"seed count must be >= 0, got {count}")
    base = base_seed(family, difficulty, split)
    return [(base + i) % _MODULUS for i in range(count)]


def splits_overlap(family: str, difficulty: str, count: int) -> bool:
    """Whether the first ``count`` eval and train seeds share any value."""
    return bool(
        set(episode_seeds(family, difficulty, "eval", count))
        & set(episode_seeds(family, difficulty, "train", count))
    )
