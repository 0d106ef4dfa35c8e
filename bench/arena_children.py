"""The arena reference agent on the 40 Testbed tasks children played, three seeds each.

Prints the proportion of episodes passed per level (pass = final reward >= the arena's pass
mark), the overall proportion and the wall time. The reference agent plans with privileged state,
so this is a ceiling for models on the same tasks and a check that the arena is solvable as built;
levels 1-3 (food retrieval, preferences, obstacles) should be passed at >= 0.8 each.

It runs through ``agentkit.runs.runner.execute_run`` exactly as ``agentkit run`` would (frames off, no
images, transcripts in a temporary SQLite store).

Usage: python bench/arena_children.py [--seeds 3] [--suite aai-children40] [--keep-store PATH]
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path

from agentkit.config import ObserverSettings, RunConfig
from agentkit.envs.animalai_common.suites import format_pass_table, pass_counts, suites
from agentkit.runs.runner import execute_run
from agentkit.transcripts import TranscriptStore

log = logging.getLogger("bench.arena_children")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="episodes per task (seeds 0..N-1)")
    parser.add_argument("--suite", default="aai-children40")
    parser.add_argument(
        "--keep-store", type=Path, default=None, help="write transcripts here instead of a temp file"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    tasks = suites()[args.suite]
    config = RunConfig(
        env="aai-arena",
        tasks=tasks,
        episodes=args.seeds,
        seed=0,
        include_images=False,
        memory="markovian",
        observer=ObserverSettings(views=["structured"]),
        backend_options={"frames": False},
    )
    with tempfile.TemporaryDirectory() as tmp:
        db = args.keep_store or Path(tmp) / "arena_children.db"
        store = TranscriptStore(f"sqlite:///{db}")
        start = time.perf_counter()
        summary = execute_run(config, store, show_progress=False)
        wall = time.perf_counter() - start
        store.engine.dispose()

    episodes = summary.episodes
    print(
        f"reference agent on {args.suite}: {len(tasks)} tasks x {args.seeds} seeds = {len(episodes)} episodes, "
        f"{wall:.1f} s wall time"
    )
    print(format_pass_table(episodes))
    counts = pass_counts(episodes)
    weak = [level for level in (1, 2, 3) if level in counts and counts[level][0] / counts[level][1] < 0.8]
    if weak:
        print(f"below the 0.8 target: levels {weak}")
    failed = [
        (e.task, e.seed, e.end_reason.value, round(e.reward, 3))
        for e in episodes
        if not e.metrics.get("pass")
    ]
    for task, seed, reason, reward in failed:
        print(f"  not passed: {task} seed {seed} ({reason}, reward {reward})")


if __name__ == "__main__":
    main()
