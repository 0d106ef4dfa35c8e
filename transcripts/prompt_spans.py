"""Which of a turn's messages are new to its episode, and which spans of the episode's messages it sent.

Why: a full-history prompt resends every earlier message, so writing all of a turn's message rows
made a transcript quadratic in rows (10,100 for a 100-turn episode). In layout 2 an episode keeps
one list of distinct message rows (``episode_messages``); a turn writes only the rows that list
lacks and stores its prompt as half-open spans of seqs (``turn_prompts``). Reading the spans back
gives exactly the list that was sent, whatever the memory policy dropped (sliding window,
markovian). Pure bookkeeping, separate from the store because it knows nothing about SQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

#: A message row as compared between turns: (role, content sha256, canonical JSON of the extra keys).
MessageKey = tuple[str, str, str | None]


@dataclass
class PromptPlan:
    """One turn's prompt: its spans and the message rows to insert (seq, key), not yet committed."""

    spans: list[list[int]]
    new_rows: list[tuple[int, MessageKey]]


@dataclass
class EpisodeMessages:
    """The message rows an episode has committed: key of each seq, latest seq of each key."""

    keys: list[MessageKey] = field(default_factory=list)
    latest: dict[MessageKey, int] = field(default_factory=dict)

    @classmethod
    def of_rows(cls, rows: Iterable[tuple[int, MessageKey]]) -> EpisodeMessages:
        """Rebuilt from stored rows ordered by seq (a store that did not write the earlier turns)."""
        log = cls()
        for seq, key in rows:
            if seq != len(log.keys):
                raise ValueError(
                    f"episode_messages seqs are not contiguous (found {seq}, expected {len(log.keys)})"
                )
            log.keys.append(key)
            log.latest[key] = seq
        return log

    def plan(self, prompt: Sequence[MessageKey]) -> PromptPlan:
        """Seqs for every message of ``prompt``: the next stored row when it matches (the common case
        of a prompt continuing the previous one), else a new row at the end of the episode's list
        when the previous message was its last, else an earlier equal row, else a new row."""
        keys, latest = self.keys, self.latest
        committed = len(keys)
        pending: list[tuple[int, MessageKey]] = []
        pending_latest: dict[MessageKey, int] = {}
        spans: list[list[int]] = []
        nxt: int | None = None
        jumped = False  # the last seq was not the one after its predecessor: try a long run from it
        p, n = 0, len(prompt)
        while p < n:
            if jumped and nxt is not None and nxt < committed:
                jumped = False
                # A run of the prompt that continues the stored rows (all earlier messages of a full
                # history, the kept part of a window): compared as one slice, not message by message.
                run = min(n - p, committed - nxt)
                if keys[nxt : nxt + run] == prompt[p : p + run]:
                    spans[-1][1] += run
                    p += run
                    nxt += run
                    continue
            key = prompt[p]
            p += 1
            total = committed + len(pending)
            if nxt is not None and nxt < total and self._key(nxt, pending) == key:
                seq = nxt
            elif nxt is not None and nxt == total:
                seq = -1  # at the tail: keep the prompt contiguous with a new row
            else:
                seq = pending_latest.get(key, latest.get(key, -1))
            if seq < 0:
                seq = total
                pending.append((seq, key))
                pending_latest[key] = seq
            if spans and spans[-1][1] == seq:
                spans[-1][1] = seq + 1
            else:
                spans.append([seq, seq + 1])
                jumped = True
            nxt = seq + 1
        return PromptPlan(spans, pending)

    def commit(self, plan: PromptPlan) -> None:
        """The plan's rows are stored (call after the transaction committed)."""
        for seq, key in plan.new_rows:
            if seq == len(self.keys):
                self.keys.append(key)
                self.latest[key] = seq

    def _key(self, seq: int, pending: list[tuple[int, MessageKey]]) -> MessageKey:
        committed = len(self.keys)
        return self.keys[seq] if seq < committed else pending[seq - committed][1]


def expand(spans: Any) -> list[int]:
    """The seqs a stored ``spans`` value names, in order; one clear error for a malformed value."""
    seqs: list[int] = []
    if not isinstance(spans, list):
        raise ValueError(f"turn_prompts.spans is not a list: {spans!r:.80}")
    for span in spans:
        if not (isinstance(span, list) and len(span) == 2 and all(isinstance(v, int) for v in span)):
            raise ValueError(f"turn_prompts.spans holds {span!r:.80}, not a [start, stop] pair")
        seqs.extend(range(span[0], span[1]))
    return seqs
