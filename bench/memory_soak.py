"""Does memory stay flat over a long run? RSS after every block of episodes, and its slope.

The run goes through the whole path a real evaluation takes: litellm over HTTP to the local
OpenAI-compatible server, gridworld episodes with a frame in every prompt, full history, two
episodes in flight, every turn written to SQLite. Caches that grow without bound (image and
message hashes in the store, litellm's logging objects, per-episode backends) would show as a
rising RSS; a flat one after warm-up is the pass: the slope (least squares over the blocks after
the first ``--warm-up`` episodes) under ``--max-slope`` MB per 100 episodes, else the exit status is 1.

Issue 29 row 14, 1,000 episodes in blocks of 50 (each block a run), on 2 busy cores:
- before: the model client's caches (message JSON, data URLs, image token counts, typed messages
  with their JPEG bytes) were sized far beyond what a run resends: 460.2 MB, +12.94 MB per 100.
- caches sized to the run's messages (``agentkit.models.reuse_window``): +4.59 MB per 100. What
  still rose was per run and outside the Python heap.
- memray's native traces named it: every model client built its own TLS context (certifi's CA
  bundle loaded into OpenSSL, ~450,000 allocations, freed again), fragmenting the C heap by run.
  One context per process (``agentkit.models.tls_context``): +1.05 to +1.50 per 100, flat at
  360 MB from episode 550.
- a run's end hands the heap's free pages back (``agentkit.runs.freed_memory``): +0.69, +0.87, +0.87,
  +1.05 in four runs (median +0.87), 344-346 MB flat from episode 500; the live allocations of
  episodes 250-1,000 are the rotating caches' current contents (7 MB, bounded).

Usage: python bench/memory_soak.py [--episodes 500] [--block 50] [--scripts 3] [--warm-up 200]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agentkit.config import RunConfig
from agentkit.runs.runner import execute_run
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--block", type=int, default=50)
    parser.add_argument("--scripts", type=int, default=3)
    parser.add_argument("--warm-up", type=int, default=200, help="episodes left out of the slope")
    parser.add_argument("--max-slope", type=float, default=1.0, help="MB per 100 episodes")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    figures: list[float] = []
    with (
        FakeOpenAIServer(lambda _b: 'Think("turning"); Turn(90); Go(1);', record_requests=False) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        with TranscriptStore(f"sqlite:///{Path(tmp) / 'soak.db'}") as store:
            for block in range(args.episodes // args.block):
                config = RunConfig(
                    env="gridworld",
                    tasks=["BabyAI-GoToLocal-v0"],
                    model="openai/fake-model",
                    api_base=server.base_url,
                    episodes=args.block,
                    seed=block * args.block,
                    max_scripts=args.scripts,
                    max_concurrency=2,
                    max_retries=0,
                    observer={"views": ["image", "ascii"], "max_side": 256},
                )
                execute_run(config, store, show_progress=False)
                figures.append(rss_mb())
                print(f"episodes={(block + 1) * args.block:>4}  rss={figures[-1]:7.1f} MB")
    warm = figures[1] if len(figures) > 1 else figures[0]
    print(
        f"rss growth after the first {2 * args.block} episodes: {figures[-1] - warm:+.1f} MB "
        f"({(figures[-1] - warm) / max(1, len(figures) - 2):+.2f} MB per {args.block} episodes)"
    )
    ends = [(block + 1) * args.block for block in range(len(figures))]
    after = [(n, mb) for n, mb in zip(ends, figures) if n > args.warm_up] or list(zip(ends, figures))
    per_100 = 100 * slope(after)
    verdict = "flat" if per_100 < args.max_slope else "GROWING"
    print(
        f"rss slope after the first {args.warm_up} episodes: {per_100:+.2f} MB per 100 episodes "
        f"(limit {args.max_slope:.2f}): {verdict}"
    )
    if per_100 >= args.max_slope:
        sys.exit(1)


def slope(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of RSS (MB) over episodes, in MB per episode; 0 for fewer than two points."""
    if len(points) < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


if __name__ == "__main__":
    main()
