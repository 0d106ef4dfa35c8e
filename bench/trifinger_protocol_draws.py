"""How often CausalWorld's protocol draws are feasible on TriFingerPro, and what a draw costs.

For every benchmark task and protocol (benchmarks.py's lists) draws seeds 0..N-1 as episodes do
(``sampling.draw_protocol``: sample, reconcile, collision check, redraw) and prints the mean and
largest number of draws per seed, the seeds that failed (a ProtocolDrawError), the most common
reason a draw was refused, and milliseconds per seed. No physics is stepped.

Usage: python bench/trifinger_protocol_draws.py [--seeds 200] [--tasks pushing,stacking2]
"""

from __future__ import annotations

import argparse
import collections
import logging
import statistics
import time

from agentkit.envs.trifinger.protocols import BENCHMARKS
from agentkit.envs.trifinger.sampling import ATTEMPTS, ProtocolDrawError, draw_protocol

logger = logging.getLogger("bench.trifinger_protocol_draws")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--tasks", default=",".join(BENCHMARKS))
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    draw_protocol("pushing", "P1", 0)  # the collision probe is built once per process; not timed
    print(f"{'task@protocol':<22} {'draws/seed':>10} {'max':>4} {'failed':>6} {'ms/seed':>8}  most refused because")
    for task in args.tasks.split(","):
        for protocol in BENCHMARKS[task]:
            attempts, failed, reasons = [], 0, collections.Counter()
            start = time.perf_counter()
            for seed in range(args.seeds):
                try:
                    draw = draw_protocol(task, protocol, seed)
                except ProtocolDrawError:
                    failed += 1
                    attempts.append(ATTEMPTS)
                    continue
                attempts.append(max(draw.attempts, 1))
                reasons.update(reason.split("; ")[0] for reason in draw.rejected)
            ms = (time.perf_counter() - start) * 1000 / args.seeds
            why = reasons.most_common(1)[0][0] if reasons else "-"
            print(f"{task + '@' + protocol:<22} {statistics.mean(attempts):>10.2f} {max(attempts):>4} {failed:>6} "
                  f"{ms:>8.1f}  {why}")


if __name__ == "__main__":
    main()
