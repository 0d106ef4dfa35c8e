"""Unified diffs (``agentkit.offline.line_diff``), which ``agentkit rerender`` prints per turn."""

from __future__ import annotations

import difflib
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.offline.line_diff import opcodes, unified_diff


def _apply(diff: str, a: list[str]) -> list[str]:
    """Apply a unified diff to ``a`` (checking every context and removed line against it)."""
    out, pos = [], 0
    for line in diff.split("\n")[2:] if diff else []:
        hunk = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", line)
        if hunk:
            start = int(hunk.group(1)) - (0 if hunk.group(2) == "0" else 1)
            out.extend(a[pos:start])
            pos = start
        elif line[:1] == "+":
            out.append(line[1:])
        else:
            assert a[pos] == line[1:], (pos, line)
            if line[:1] == " ":
                out.append(a[pos])
            pos += 1
    return out + a[pos:]


_LINES = st.lists(st.sampled_from(["a", "b", "c", "dd", "", "x = 1"]), max_size=30)


@settings(max_examples=400, deadline=None)
@given(_LINES, _LINES, _LINES, _LINES, st.integers(0, 4))
def test_the_diff_turns_the_old_lines_into_the_new(head, old_mid, new_mid, tail, context):
    a, b = head + old_mid + tail, head + new_mid + tail
    diff = unified_diff(a, b, "recorded", "rerendered", context)
    assert _apply(diff, a) == b
    assert bool(diff) == (a != b)
    changed = sum(1 for line in diff.split("\n")[2:] if line[:1] in "+-")
    reference = "\n".join(difflib.unified_diff(a, b, "recorded", "rerendered", n=context, lineterm=""))
    assert changed <= sum(1 for line in reference.split("\n")[2:] if line[:1] in "+-")


def test_the_diff_equals_difflibs_when_every_line_is_distinct():
    a = [f"line {i}" for i in range(200)]
    b = a[:120] + ["new line", "another"] + a[123:]
    for context in (0, 3):
        assert unified_diff(a, b, "f", "t", context) == "\n".join(
            difflib.unified_diff(a, b, "f", "t", n=context, lineterm="")
        )


def test_the_alignment_is_a_longest_common_subsequence():
    a = ["#####", "#...#", "#...#", "status: 3", "Turn 1", "#####"]
    b = ["#####", "#...#", "#.A.#", "status: 3", "Turn one", "#####", "end"]
    diff = unified_diff(a, b, "old", "new", 1)
    assert _apply(diff, a) == b
    assert "-#...#" in diff and "+#.A.#" in diff and "-Turn 1" in diff and "+end" in diff
    ops = opcodes(a, b)
    kept = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    assert kept >= sum(n for _, _, n in matcher.get_matching_blocks())  # never a longer diff than difflib's
    assert ops[0][1] == ops[0][3] == 0 and ops[-1][2] == len(a) and ops[-1][4] == len(b)
    assert all(ops[k][2] == ops[k + 1][1] and ops[k][4] == ops[k + 1][3] for k in range(len(ops) - 1))
    assert all(a[i1:i2] == b[j1:j2] for tag, i1, i2, j1, j2 in ops if tag == "equal")


def test_random_edits_of_long_texts_round_trip():
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "", "####", "x"]
    for _ in range(300):
        a = [rng.choice(words) + str(rng.randrange(6)) for _ in range(rng.randrange(0, 60))]
        b = list(a)
        for _ in range(rng.randrange(0, 6)):
            where = rng.randrange(len(b) + 1)
            if rng.random() < 0.5 and b and where < len(b):
                del b[where]
            else:
                b.insert(where, rng.choice(words))
        for context in (0, 3):
            assert _apply(unified_diff(a, b, "a", "b", context), a) == b


def test_equal_texts_have_no_diff_and_headers_name_both_sides():
    assert unified_diff(["same"], ["same"], "a", "b") == ""
    diff = unified_diff(["one"], ["two"], "recorded x", "rerendered x")
    assert diff.split("\n") == ["--- recorded x", "+++ rerendered x", "@@ -1 +1 @@", "-one", "+two"]
    assert unified_diff([], ["new"], "a", "b").split("\n")[2] == "@@ -0,0 +1 @@"
