"""The TriFinger reference agent through the script language: success and overlap per task and protocol.

Runs the reference agent (privileged planner writing API-call scripts, parsed and compiled like a
model's) through the real episode loop, text only, seeds 0..N-1, and prints per task the success
rate by CausalWorld's measure (its axis-aligned fractional overlap above 0.9, the episode metric
``overlap_causalworld``; ``overlap_aabb`` on a tree that does not report it yet), the mean final
overlap by both measures (ours: exact oriented overlap, ``overlap``), scripts and simulated seconds
per episode. Tasks are written ``family`` or ``family@Pn`` (CausalWorld's protocols). towers,
stacked_blocks and creative_stacked_blocks have no protocols: ``family`` samples their space A and
``family@P0`` is their task generator's default scene (one scene, so two seeds show it).
Under the causalworld profile every task starts with the fingers raised (``start_pose``).

Targets (issue 17): success >= 0.9 on pushing and picking at P0, >= 0.6 on pick_and_place and
stacking2 at P0, > 0 on towers.

Usage: python bench/trifinger_reference.py [--seeds 30] [--tasks pushing@P0,towers,towers@P0,...] [--jobs 2]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

logger = logging.getLogger("bench.trifinger_reference")

BENCHMARK = ("pushing", "picking", "pick_and_place", "stacking2")
PROTOCOLS = ("P0", "P4", "P8", "P10")
DEFAULT_TASKS = tuple(f"{t}@{p}" for t in BENCHMARK for p in PROTOCOLS) + ("towers", "stacked_blocks")
#: Targets of issue 17 on the success rate (CausalWorld's measure).
TARGETS = {
    "pushing@P0": 0.9,
    "picking@P0": 0.9,
    "pick_and_place@P0": 0.6,
    "stacking2@P0": 0.6,
    "towers": 1e-9,
}
SUCCESS_ABOVE = (
    0.9  # causal_world/task_generators/base_task.py ``_check_preliminary_success``: goal_reward > 0.9
)


@dataclass(frozen=True)
class Row:
    seed: int
    causalworld: float  # CausalWorld's overlap measure at the end
    measure: str  # which metric gave it
    overlap: float  # our exact oriented overlap
    scripts: int
    sim_s: float
    error: str | None = None


def causalworld_overlap(metrics: dict) -> tuple[float, str]:
    """CausalWorld's fractional overlap from an episode's metrics, and the metric's name."""
    for key in ("overlap_causalworld", "overlap_aabb", "overlap"):
        if metrics.get(key) is not None:
            return float(metrics[key]), key
    return 0.0, "none"


def run_task(task: str, seeds: list[int]) -> list[Row]:
    from agentkit.config import RunConfig
    from agentkit.loop import run_episode
    from agentkit.runs.setup_episode import make_setup

    config = RunConfig(
        env="trifinger",
        tasks=[task],
        backend_options={"cameras": False},
        observer={"views": ["language"]},
        include_images=False,
    )
    setup = make_setup(config)
    out = []
    for seed in seeds:
        try:
            result = run_episode(setup, task, seed)
        except Exception as exc:  # a task this tree cannot build is reported, not fatal to the bench
            out.append(Row(seed, 0.0, "none", 0.0, 0, 0.0, f"{type(exc).__name__}: {exc}"))
            continue
        value, measure = causalworld_overlap(result.metrics)
        out.append(
            Row(
                seed,
                value,
                measure,
                float(result.metrics.get("overlap") or 0.0),
                result.scripts,
                float(result.metrics.get("sim_time_s") or 0.0),
                result.error,
            )
        )
    setup.backend.close()
    return out


def report(task: str, rows: list[Row]) -> str:
    done = [r for r in rows if r.measure != "none"]
    if not done:
        return f"{task:22s} no episode ran: {rows[0].error if rows else 'no seeds'}"
    success = sum(r.causalworld > SUCCESS_ABOVE for r in done) / len(done)
    target = TARGETS.get(task)
    verdict = (
        ""
        if target is None
        else f" (target {'> 0' if target < 1e-6 else f'>= {target}'}: "
        f"{'OK' if success >= target else 'MISSED'})"
    )
    measures = ",".join(sorted({r.measure for r in done}))
    failed = len(rows) - len(done)
    return (
        f"{task:22s} success {success:.2f}{verdict}; mean overlap {statistics.fmean(r.causalworld for r in done):.3f} "
        f"({measures}), exact {statistics.fmean(r.overlap for r in done):.3f}; "
        f"{statistics.fmean(r.scripts for r in done):.1f} scripts, {statistics.fmean(r.sim_s for r in done):.1f} sim s"
        f"{f'; {failed} episodes did not build' if failed else ''}"
    )


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--tasks", default=",".join(DEFAULT_TASKS))
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (episodes are split by seed)")
    args = parser.parse_args()
    if args.seeds < 1 or args.jobs < 1:
        parser.error("--seeds and --jobs must be at least 1")
    tasks = [t for t in args.tasks.split(",") if t]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {}
        for task in tasks:
            chunks = [list(range(args.seeds))[k :: args.jobs] for k in range(args.jobs)]
            futures[task] = [pool.submit(run_task, task, chunk) for chunk in chunks if chunk]
        for task in tasks:
            rows = sorted((r for f in futures[task] for r in f.result()), key=lambda r: r.seed)
            logger.info(report(task, rows))
    logger.info("%d episodes in %.0f s wall", len(tasks) * args.seeds, time.perf_counter() - started)


if __name__ == "__main__":
    main()
