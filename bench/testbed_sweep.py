"""The arena reference agent over all 900 Animal-AI Testbed tasks: wall time and pass proportions.

Target: the whole sweep in <= 10 minutes on a 2-core machine, frames off. The tasks are split
between worker processes (default 2), each with its own backend, driving the ordinary episode loop
(``agentkit.loop.run_episode``) with the reference model; no transcripts are written, since this
measures the planner and the simulator, not the store.

Usage: python bench/testbed_sweep.py [--workers 2] [--seed 0] [--level N] [--failures]
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing as mp
import time
from typing import Any

from agentkit.config import ObserverSettings, RunConfig
from agentkit.envs.animalai_common.suites import format_pass_table, level_of, suites
from agentkit.loop import run_episode
from agentkit.runs.setup_episode import make_setup

log = logging.getLogger("bench.testbed_sweep")


def _config(tasks: list[str], seed: int) -> RunConfig:
    return RunConfig(
        env="aai-arena",
        tasks=tasks,
        seed=seed,
        include_images=False,
        memory="markovian",
        observer=ObserverSettings(views=["structured"]),
        backend_options={"frames": False},
    )


def _play(job: tuple[list[str], int]) -> list[dict[str, Any]]:
    """Play a chunk of tasks in this worker; returns one small dict per episode."""
    tasks, seed = job
    setup = make_setup(_config(tasks, seed))
    out = []
    try:
        for task in tasks:
            start, cpu_start = time.perf_counter(), time.process_time()
            result = run_episode(setup, task, seed, episode_id=task)
            out.append(
                {
                    "task": task,
                    "pass": bool(result.metrics.get("pass")),
                    "level": level_of(task),
                    "reward": result.reward,
                    "end": result.end_reason.value,
                    "scripts": result.scripts,
                    "seconds": time.perf_counter() - start,
                    "cpu": time.process_time() - cpu_start,
                }
            )
    finally:
        setup.backend.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", type=int, default=None, help="only this level (90 tasks)")
    parser.add_argument("--failures", action="store_true", help="list the tasks not passed")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    tasks = suites()["aai-testbed" if args.level is None else f"aai-level-{args.level:02d}"]
    # Interleave so both workers get a mix of slow and fast levels; small chunks balance the load.
    chunks = [tasks[k :: args.workers * 8] for k in range(args.workers * 8)]
    start = time.perf_counter()
    if args.workers > 1:
        with mp.get_context("spawn").Pool(args.workers) as pool:
            parts = pool.map(_play, [(c, args.seed) for c in chunks if c], chunksize=1)
    else:
        parts = [_play((c, args.seed)) for c in chunks if c]
    wall = time.perf_counter() - start
    episodes = sorted((e for part in parts for e in part), key=lambda e: e["task"])

    print(
        f"reference agent over {len(episodes)} Testbed tasks (seed {args.seed}), {args.workers} workers: "
        f"{wall:.1f} s wall time ({wall / 60:.2f} min)"
    )
    # On a shared machine the wall time also counts other processes' turns: the episodes' CPU time,
    # spread over the workers, is what the sweep costs on a machine of its own.
    cpu = sum(e["cpu"] for e in episodes)
    print(f"CPU time of the episodes: {cpu:.1f} s, {cpu / args.workers / 60:.2f} min per worker")
    print(format_pass_table(episodes))
    slowest = max(episodes, key=lambda e: e["seconds"])
    print(f"slowest episode: {slowest['task']} {slowest['seconds']:.2f} s")
    if args.failures:
        for e in episodes:
            if not e["pass"]:
                print(
                    f"  not passed: {e['task']} ({e['end']}, reward {e['reward']:.3f}, {e['scripts']} scripts)"
                )


if __name__ == "__main__":
    main()
