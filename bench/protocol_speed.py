"""How fast the arena runs behind ML-Agents' gRPC protocol, beside the direct arena.

Prints environment steps per second at 84 px (a camera frame every step, as a Unity build sends):
  (a) through the protocol: the ``animalai`` backend driving the ``agentkit-arena`` stand-in, which
      mlagents-envs' UnityEnvironment launches (PNG encode, gRPC exchange, PNG decode), target >= 300;
  (b) the direct ``aai-arena`` backend rendering the same frame every step;
  (c) the direct arena without frames (the physics and rules alone), for scale.
Random actions on Testbed tasks played by children; resets are timed apart. Beside each rate, the
CPU time per step (this process and, for (a), the stand-in's), and the rate that CPU time alone
would allow: the protocol is a ping-pong, so on a machine shared with other work the wall-clock rate
also pays for every wake-up of either process, which the CPU figure leaves out.

Usage: python bench/protocol_speed.py [--steps N] [--size PX]
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import time
from collections.abc import Callable

from agentkit.envs.animalai.backend import AnimalAIBackend
from agentkit.envs.animalai_common.suites import CHILDREN_40
from agentkit.envs.arena.backend import ArenaBackend

TARGET = 300.0


def measure(backend, steps: int, frames: bool, cpu: Callable[[], float]) -> tuple[float, float, float]:
    """(steps per second, ms per reset, CPU ms per step) over ``steps`` random steps, cycling through
    the children's tasks; ``cpu`` reads the CPU seconds used so far by the processes involved."""
    rng = random.Random(0)
    tasks = list(CHILDREN_40)
    step_s = reset_s = cpu_s = 0.0
    done_steps = resets = 0
    while done_steps < steps:
        start = time.perf_counter()
        backend.reset(tasks[resets % len(tasks)], seed=resets)
        reset_s += time.perf_counter() - start
        resets += 1
        start, cpu_start = time.perf_counter(), cpu()
        for _ in range(min(100, steps - done_steps)):
            done_steps += 1
            result = backend.step([rng.randrange(3), rng.randrange(3)])
            if frames:
                backend.observe()  # the direct arena renders on observe; the protocol has the frame already
            if result.done:
                break
        step_s += time.perf_counter() - start
        cpu_s += cpu() - cpu_start
    return done_steps / step_s, reset_s / resets * 1000, cpu_s / done_steps * 1000


def own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of another process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--size", type=int, default=84)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    start = time.perf_counter()
    protocol = AnimalAIBackend(aai_build="builtin", render_size=args.size, frames=True)
    try:
        protocol.reset(CHILDREN_40[0], seed=0)
        launch_s = time.perf_counter() - start
        pid = protocol.connection.process.pid
        rate, reset_ms, cpu_ms = measure(protocol, args.steps, True, lambda: own_cpu() + process_cpu(pid))
    finally:
        protocol.close()
    verdict = "OK" if rate >= TARGET else "MISSED"
    print(
        f"(a) through the protocol (agentkit-arena via UnityEnvironment), {args.size} px: {rate:,.0f} steps/s "
        f"(target >= {TARGET:.0f}: {verdict}); CPU {cpu_ms:.2f} ms/step, i.e. {1000 / cpu_ms:,.0f} steps/s "
        f"on CPU alone; reset {reset_ms:.1f} ms; launch + first reset {launch_s:.2f} s"
    )

    direct = ArenaBackend(render_size=args.size, frames=True)
    try:
        rate_direct, reset_ms, cpu_direct = measure(direct, args.steps, True, own_cpu)
    finally:
        direct.close()
    print(
        f"(b) direct arena, a {args.size} px frame every step: {rate_direct:,.0f} steps/s; CPU {cpu_direct:.2f} "
        f"ms/step; reset {reset_ms:.1f} ms (the protocol runs at {rate / rate_direct:.0%} of this, "
        f"+{cpu_ms - cpu_direct:.2f} ms CPU per step)"
    )

    bare = ArenaBackend(frames=False)
    try:
        rate_bare, _, _ = measure(bare, args.steps, False, own_cpu)
    finally:
        bare.close()
    print(f"(c) direct arena without frames: {rate_bare:,.0f} steps/s")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
