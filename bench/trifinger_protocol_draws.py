"""How often CausalWorld's protocol draws are feasible with its robot, and what a draw costs.

For every benchmark task and protocol (benchmarks.py's lists) draws seeds 0..N-1 as episodes do
(``sampling.draw_protocol``: sample, reconcile, collision check, redraw) and prints the mean and
largest number of draws per seed, the seeds that failed (a ProtocolDrawError), the most common
reason a draw was refused, and milliseconds per seed; for P10/P11 also the share of accepted draws
that changed sizes (``size_share``: the fully random protocol's coin gives 0.5, so a share far below
it means size draws are refused). No physics is stepped. ``--profile`` picks the robot's start pose
(``start_pose``: CausalWorld's own under both profiles since the robot is CausalWorld's).

Usage: python bench/trifinger_protocol_draws.py [--seeds 200] [--tasks pushing,stacking2] [--protocols P10,P11]
       [--profile agentkit]
"""

from __future__ import annotations

import argparse
import collections
import logging
import statistics
import time

from agentkit.envs.trifinger.causalworld_profile import DEFAULT_PROFILE, PROFILES
from agentkit.envs.trifinger.protocols import BENCHMARKS
from agentkit.envs.trifinger.sampling import ATTEMPTS, ProtocolDraw, ProtocolDrawError, draw_protocol

logger = logging.getLogger("bench.trifinger_protocol_draws")


def changed_sizes(draw: ProtocolDraw) -> bool:
    """Whether an accepted draw set a block's size (the random protocol's coin chose sizes)."""
    return any(isinstance(v, dict) and "size" in v for v in draw.intervention.values())


def size_share(task: str, protocol: str, seeds: range, profile: str) -> float:
    """The share of ``seeds`` whose accepted ``task@protocol`` draw changed sizes."""
    return sum(changed_sizes(draw_protocol(task, protocol, seed, profile)) for seed in seeds) / len(seeds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--tasks", default=",".join(BENCHMARKS))
    parser.add_argument("--profile", choices=PROFILES, default=DEFAULT_PROFILE)
    parser.add_argument("--protocols", default="", help="only these protocols (e.g. P10,P11); default all")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    draw_protocol("pushing", "P1", 0)  # the collision probe is built once per process; not timed
    print(f"profile {args.profile}, seeds 0..{args.seeds - 1}")
    print(
        f"{'task@protocol':<22} {'draws/seed':>10} {'max':>4} {'failed':>6} {'ms/seed':>8} {'size_share':>10}  "
        f"most refused because"
    )
    for task in args.tasks.split(","):
        for protocol in BENCHMARKS[task]:
            if args.protocols and protocol not in args.protocols.split(","):
                continue
            attempts, failed, reasons, sized = [], 0, collections.Counter(), 0
            start = time.perf_counter()
            for seed in range(args.seeds):
                try:
                    draw = draw_protocol(task, protocol, seed, args.profile)
                except ProtocolDrawError:
                    failed += 1
                    attempts.append(ATTEMPTS)
                    continue
                attempts.append(max(draw.attempts, 1))
                sized += changed_sizes(draw)
                reasons.update(reason.split("; ")[0] for reason in draw.rejected)
            ms = (time.perf_counter() - start) * 1000 / args.seeds
            why = reasons.most_common(1)[0][0] if reasons else "-"
            share = f"{sized / args.seeds:.2f}" if protocol in ("P10", "P11") else "-"
            print(
                f"{task + '@' + protocol:<22} {statistics.mean(attempts):>10.2f} {max(attempts):>4} {failed:>6} "
                f"{ms:>8.1f} {share:>10}  {why}"
            )


if __name__ == "__main__":
    main()
