"""How long the action parser takes on answers of 1 KB, 100 KB and 1 MB: growth must be linear.

A 10 MB answer from a misbehaving server once took 290 s to read (every look-ahead scanned to the end
of the answer). Two columns per answer shape and size:
  shipped  - parse_script as used in a turn: above MAX_SCRIPT_CHARS (64 Ki) it is the time to reject;
  reader   - the same text with the cap lifted, showing that reading itself grows linearly
             (time per KB should stay roughly flat from 1 KB to 1 MB).

Usage: python bench/parser_speed.py [--repeat N]
"""

from __future__ import annotations

import argparse
import time

from agentkit.actions import CommandSpec, ParamSpec, ParamType, Vocabulary, parser

VOCAB = Vocabulary(
    (
        CommandSpec("Go", (ParamSpec("n", ParamType.INT, minimum=-100, maximum=100),)),
        CommandSpec("Turn", (ParamSpec("degrees", ParamType.INT, minimum=-180, maximum=180),)),
        CommandSpec("Think", (ParamSpec("text", ParamType.TEXT),)),
    )
)
SHAPES = {
    "commands": "Go(1); Turn(30);\n",
    "prose with calls": "I could turn ( maybe x or go (later and abc(",
    "unclosed quotes": 'Think("never closed, ',
}
SIZES = {"1 KB": 1 << 10, "100 KB": 100 << 10, "1 MB": 1 << 20}


def best_time(text: str, repeat: int) -> tuple[float, str]:
    best, outcome = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        result = parser.parse_script(text, VOCAB)
        best = min(best, time.perf_counter() - start)
        outcome = getattr(result, "code", None) or f"{len(result)} commands"  # type: ignore[arg-type]
    return best, outcome


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--repeat", type=int, default=3)
    options = arguments.parse_args()
    shipped_cap = parser.MAX_SCRIPT_CHARS
    print(f"cap: {shipped_cap:,} characters of script text")
    print(f"{'shape':>18} {'size':>7} | {'shipped':>9} {'outcome':>14} | {'reader':>9} {'us/KB':>7}")
    for shape, piece in SHAPES.items():
        for label, size in SIZES.items():
            text = piece * (size // len(piece))
            shipped, outcome = best_time(text, options.repeat)
            parser.MAX_SCRIPT_CHARS = 1 << 40
            try:
                reader, _ = best_time(text, options.repeat)
            finally:
                parser.MAX_SCRIPT_CHARS = shipped_cap
            per_kb = reader / (size / 1024) * 1e6
            print(
                f"{shape:>18} {label:>7} | {shipped * 1e3:7.2f}ms {outcome:>14} | "
                f"{reader * 1e3:7.1f}ms {per_kb:7.1f}"
            )


if __name__ == "__main__":
    main()
