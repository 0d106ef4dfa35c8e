"""What ``--observe`` costs per script step in the pybullet arena, and how many frames it takes.

A 60-step script (``Turn(360)``: a whole turn, the goal leaving and re-entering the view) is stepped
with each observe mode's frame watch, on the packaged control-mode test arena (a goal 7 units
ahead), at the frame size asked. Prints, per mode: milliseconds per step with the watch and
without it (the difference is the watch: frames rendered and encoded, and for ``events`` the
small segmentation render that tells a goal in view), and the frames taken (labels).

Usage: python bench/observe_cost.py [--size 512] [--repeats 5]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from pathlib import Path
from typing import Any

from agentkit.control import FrameWatch, parse_observe
from agentkit.envs.arena.backend import ArenaBackend
from agentkit.observers.image_encoding import encode_image
from agentkit.observers.observation import EncodedImage
from agentkit.observers.observer import Observer

TASK = str(Path(__file__).resolve().parent.parent / "tests" / "data" / "control_modes" / "goal_ahead.yaml")
log = logging.getLogger("bench.observe_cost")


def one_script(backend: ArenaBackend, watch: FrameWatch | None) -> tuple[float, list[str]]:
    backend.reset(TASK, 0)
    if watch is not None:
        watch.start(0)
    start = time.perf_counter()
    for _ in range(60):
        result = backend.step([0, 1])
        if watch is not None:
            watch.after_step(result)
    elapsed = time.perf_counter() - start
    final = Observer().observe(backend.observe())
    seen = watch.finish(final) if watch is not None else final
    return elapsed / 60 * 1000, [i.label for i in seen.images]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    backend = ArenaBackend(render_size=args.size)
    try:
        bare = statistics.median(one_script(backend, None)[0] for _ in range(args.repeats))
        log.info("arena %dpx, 60-step Turn(360); no watch: %.2f ms/step", args.size, bare)

        def encode(frame: Any, label: str) -> EncodedImage:  # the run's JPEG settings
            return encode_image(frame, label, max_side=args.size)

        for spec in ("every:5", "every:20", "events"):
            runs = [
                one_script(backend, FrameWatch(parse_observe(spec), backend, encode, 8))
                for _ in range(args.repeats)
            ]
            ms = statistics.median(r[0] for r in runs)
            log.info(
                "--observe %-9s %.2f ms/step (+%.2f), frames sent: %s",
                spec,
                ms,
                ms - bare,
                ", ".join(runs[0][1][:-1]) or "none",
            )
    finally:
        backend.close()


if __name__ == "__main__":
    main()
