"""Unified diffs of line lists, with the alignment computed in C (rapidfuzz's longest common
subsequence) and the hunks written in ``difflib.unified_diff``'s format.

Why not ``difflib`` alone: re-rendering a run diffs thousands of prompts, and difflib's matcher,
pure Python, took a fifth of a re-render's time on prompts of forty lines. The alignment here is
a longest common subsequence of the lines (the fewest lines removed and added); where several
are equally short it may pick another one than difflib's matcher would, never a longer diff.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Sequence

from rapidfuzz.distance import Indel

Opcode = tuple[str, int, int, int, int]  # difflib's (tag, i1, i2, j1, j2)


def unified_diff(a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str, context: int = 3) -> str:
    """The diff from ``a`` to ``b`` as one text ("" when they are equal), with ``context`` lines
    around each change and hunk headers counting lines from 1, as ``diff -u`` writes them."""
    if a == b:
        return ""
    matcher: difflib.SequenceMatcher[str] = difflib.SequenceMatcher(None, (), (), autojunk=False)
    # difflib groups the opcodes into hunks; set as its own cache, they skip its matching.
    matcher.opcodes = opcodes(a, b)  # type: ignore[attr-defined]  # a private attribute of difflib
    return "\n".join(_format(matcher.get_grouped_opcodes(context), a, b, fromfile, tofile))


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """difflib-style opcodes covering both sequences: equal runs, and between two of them one
    replace, delete or insert (rapidfuzz gives the removals and additions as separate steps)."""
    out: list[Opcode] = []
    pending: list[int] | None = None  # [i1, i2, j1, j2] of the change since the last equal run
    for op in Indel.opcodes(list(a), list(b)):
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag == "equal":
            if pending is not None:
                out.append(_change(*pending))
                pending = None
            out.append(("equal", i1, i2, j1, j2))
        elif pending is None:
            pending = [i1, i2, j1, j2]
        else:
            pending[1], pending[3] = i2, j2
    if pending is not None:
        out.append(_change(*pending))
    return out


def _change(i1: int, i2: int, j1: int, j2: int) -> Opcode:
    if i1 < i2 and j1 < j2:
        return ("replace", i1, i2, j1, j2)
    return ("delete", i1, i2, j1, j2) if i1 < i2 else ("insert", i1, i2, j1, j2)


def _format(
    groups: Iterable[list[Opcode]], a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str
) -> Iterator[str]:
    yield f"--- {fromfile}"
    yield f"+++ {tofile}"
    for group in groups:
        first, last = group[0], group[-1]
        yield f"@@ -{_span(first[1], last[2])} +{_span(first[3], last[4])} @@"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from map(" ".__add__, a[i1:i2])
                continue
            yield from map("-".__add__, a[i1:i2])
            yield from map("+".__add__, b[j1:j2])


def _span(start: int, stop: int) -> str:
    """A hunk's line range as ``diff -u`` writes it: "first,count", "first" for one line, and for
    none the line before the gap with count 0."""
    count = stop - start
    if count == 1:
        return str(start + 1)
    return f"{start if count == 0 else start + 1},{count}"
