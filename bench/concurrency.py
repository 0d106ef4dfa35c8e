"""How well concurrent episodes hide model latency: efficiency at 1, 4 and 16 episodes in flight.

A fixed workload (gridworld episodes of a fixed number of text-only turns) runs through the real
path: litellm over HTTP to the local OpenAI-compatible server, which waits ``--latency`` seconds
(300 ms by default) before each answer, and every turn written to a SQLite file. The server runs
in its own process, as a provider would: in this one it would take GIL time from the episodes.

    efficiency = ideal wall time / measured wall time,  ideal = total turns x latency / concurrency

Target: >= 0.9 at 16. The last line is ``efficiency@16=<value>``.

Episodes are 10 turns by default (the LLM-AAI paper allows 30 scripts; its episodes often use
most of them), so per-episode set-up weighs as it does in a real evaluation.

Usage: python bench/concurrency.py [--episodes 64] [--turns 10] [--latency 0.3] [--levels 1,4,16]
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agentkit.config import RunConfig
from agentkit.runs.runner import execute_run
from agentkit.testing.fake_openai import server_process
from agentkit.transcripts import TranscriptStore

SPIN = (
    'Think("scanning the room"); Turn(90);'  # never ends an episode early: every episode has the same turns
)


def measure(api_base: str, concurrency: int, episodes: int, turns: int, folder: Path) -> tuple[float, int]:
    """Wall time of the whole run and the number of turns it stored."""
    config = RunConfig(
        env="gridworld",
        tasks=["BabyAI-GoToLocal-v0"],
        model="openai/fake-model",
        api_base=api_base,
        episodes=episodes,
        max_scripts=turns,
        max_concurrency=concurrency,
        include_images=False,
        observer={"views": ["ascii"]},
        memory="markovian",
        max_retries=0,
    )
    with TranscriptStore(f"sqlite:///{folder / f'c{concurrency}.db'}") as store:
        start = time.perf_counter()
        summary = execute_run(config, store, show_progress=False)
        wall = time.perf_counter() - start
    return wall, sum(e.turns for e in summary.episodes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--levels", default="1,4,16")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    levels = [int(x) for x in args.levels.split(",")]
    results: dict[int, float] = {}
    with server_process(SPIN, args.latency) as api_base, tempfile.TemporaryDirectory() as tmp:
        measure(api_base, 2, 2, 1, Path(tmp))  # warm imports and connection pools
        for n in levels:
            wall, turns = measure(api_base, n, args.episodes, args.turns, Path(tmp))
            ideal = turns * args.latency / n
            results[n] = ideal / wall
            print(
                f"concurrency={n:>3}  turns={turns}  wall={wall:7.2f}s  ideal={ideal:7.2f}s  efficiency={results[n]:.3f}"
            )
    last = levels[-1]
    print(f"efficiency@{last}={results[last]:.3f}")


if __name__ == "__main__":
    main()
