"""The reference agent over the whole gridworld catalogue, through the loop, scored as a leaderboard.

Plays every (family, difficulty) pair on the first N hashed eval seeds with the reference agent
driven exactly as a model is (text answers, parser, compiler, loop), then prints the overall and
per-category ONS with 95% CIs and writes the per-category figure. The acceptance target for
``agentkit eval`` with the reference agent is an overall ONS >= 0.9. Oracle and random baselines
go to the cache file (measured once, reused afterwards).

Usage: python bench/gridworld_reference_ons.py [--seeds-per-pair N] [--max-scripts K] [--figure PATH]
"""

from __future__ import annotations

import argparse
import json
import time

from agentkit.config import ObserverSettings, RunConfig
from agentkit.evals.gridworld.leaderboard import (
    gridworld_eval_plan,
    gridworld_leaderboard,
    write_category_figure,
)
from agentkit.loop import run_episode
from agentkit.runs.setup_episode import make_setup


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds-per-pair", type=int, default=3)
    parser.add_argument("--max-scripts", type=int, default=30)
    parser.add_argument(
        "--cache", default=None, help="baseline cache file (default .agentkit/gridworld_baselines.json)"
    )
    parser.add_argument("--figure", default="gridworld_reference_ons.png")
    args = parser.parse_args()

    plan = gridworld_eval_plan(seeds_per_pair=args.seeds_per_pair)
    config = RunConfig(
        env="gridworld",
        tasks=["unused"],
        include_images=False,
        memory="markovian",
        max_scripts=args.max_scripts,
        observer=ObserverSettings(views=["ascii"]),
        backend_options={"frame": "none"},
    )
    setup = make_setup(config)
    start = time.perf_counter()
    results = [run_episode(setup, task, seed) for task, seed in plan]
    played = time.perf_counter() - start
    setup.backend.close()
    start = time.perf_counter()
    board = gridworld_leaderboard(results, "reference", "markovian", "ascii", cache_path=args.cache)
    scored = time.perf_counter() - start
    print(f"{len(plan)} episodes played in {played:.1f} s; baselines and bootstrap in {scored:.1f} s")
    print(f"successes: {sum(r.success for r in results)}/{len(results)} (max_scripts={args.max_scripts})")
    print(
        f"overall ONS {board['overall_ons']:.3f}  95% CI {json.dumps(board['overall_ci'])}  (target >= 0.9)"
    )
    for name, row in board["categories"].items():
        print(f"  {name:24} ONS {row['ons']:.3f}  CI {json.dumps(row['ci'])}")
    below = {
        t: round(r["ons"], 3) for t, r in board["tasks"].items() if r["ons"] is not None and r["ons"] < 0.999
    }
    print(f"pairs below 1: {below or 'none'}")
    print(f"figure: {write_category_figure(board, args.figure)}")


if __name__ == "__main__":
    main()
