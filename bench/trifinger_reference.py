"""The TriFinger reference agent through the script language: final overlap per task over many seeds.

Runs the reference agent (privileged planner writing API-call scripts, parsed and compiled like a
model's) through the real episode loop, text only, seeds 0..N-1, and prints per task the mean final
fractional overlap, the success rate (overlap > 0.9), scripts and simulated seconds per episode.
Targets (issue 5): mean overlap >= 0.8 on pushing and picking, >= 0.5 on pick_and_place and stacking2.

Usage: python bench/trifinger_reference.py [--seeds 30] [--tasks pushing,picking,...] [--jobs 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

TARGETS = {"pushing": 0.8, "picking": 0.8, "pick_and_place": 0.5, "stacking2": 0.5}


def run_task(task: str, seeds: list[int]) -> list[tuple[int, float, bool, int, float]]:
    from agentkit.config import RunConfig
    from agentkit.loop import run_episode
    from agentkit.setup_episode import make_setup

    config = RunConfig(env="trifinger", tasks=[task], backend_options={"cameras": False},
                       observer={"views": ["language"]}, include_images=False)
    setup = make_setup(config)
    out = []
    for seed in seeds:
        result = run_episode(setup, task, seed)
        out.append((seed, float(result.metrics["overlap"]), result.success, result.scripts,
                    float(result.metrics["sim_time_s"])))
    setup.backend.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--tasks", default=",".join(TARGETS))
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (episodes are split by seed)")
    args = parser.parse_args()
    tasks = [t for t in args.tasks.split(",") if t]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {}
        for task in tasks:
            chunks = [list(range(args.seeds))[k::args.jobs] for k in range(args.jobs)]
            futures[task] = [pool.submit(run_task, task, chunk) for chunk in chunks if chunk]
        for task in tasks:
            rows = sorted(r for f in futures[task] for r in f.result())
            overlaps = [r[1] for r in rows]
            mean = statistics.fmean(overlaps)
            target = TARGETS.get(task)
            verdict = "" if target is None else f" (target >= {target}: {'OK' if mean >= target else 'MISSED'})"
            print(f"{task:16s} mean final overlap {mean:.3f}{verdict}; success {sum(r[2] for r in rows)}/{len(rows)}; "
                  f"{statistics.fmean(r[3] for r in rows):.1f} scripts, {statistics.fmean(r[4] for r in rows):.1f} sim s "
                  f"per episode; min {min(overlaps):.3f}", flush=True)
    print(f"{len(tasks) * args.seeds} episodes in {time.perf_counter() - started:.0f} s wall")


if __name__ == "__main__":
    main()
