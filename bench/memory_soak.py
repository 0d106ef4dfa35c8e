"""Does memory stay flat over a long run? RSS after every block of episodes, 500 in all.

The run goes through the whole path a real evaluation takes: litellm over HTTP to the local
OpenAI-compatible server, gridworld episodes with a frame in every prompt, full history, two
episodes in flight, every turn written to SQLite. Caches that grow without bound (image and
message hashes in the store, litellm's logging objects, per-episode backends) would show as a
rising RSS; a flat one after warm-up is the pass.

Usage: python bench/memory_soak.py [--episodes 500] [--block 50] [--scripts 3]
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agentkit.config import RunConfig
from agentkit.runner import execute_run
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


if __name__ == "__main__":
    main()
