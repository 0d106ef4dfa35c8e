"""How fast the pybullet Animal-AI arena runs: environment steps without rendering, and frame times.

Prints:
  (a) environment steps per second with frames off (random actions on the 40 Testbed tasks played
      by children; resets are timed apart), target >= 5,000; beside it the same worlds stepped bare
      in pybullet (the physics limit: each task's world as the backend built and settled it, then only
      ``p.stepSimulation`` for the same number of physics updates, 3 per step, and none of
      agentkit's per-update code: no drive, friction, contacts, items or rules) and the ratio
      ours / bare;
  (b) milliseconds per first-person frame at 84 and 512 pixels, rendered from each of those tasks'
      start positions looking in four directions, target <= 40 ms at 512, and the same for busy
      arenas (``BUSY``: the most items, glass, zones, tunnels, ramps), worst task named.

With ``--best-of N`` each frame is rendered N times and its least time kept: on a machine shared
with other work, that is the frame's own cost (other processes only ever add to it).

Usage: python bench/arena_speed.py [--steps-per-task N] [--tasks all|children40] [--best-of N]
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import time

import numpy as np
import pybullet as p

from agentkit.envs.animalai_common import motion
from agentkit.envs.animalai_common.suites import CHILDREN_40
from agentkit.envs.animalai_common.tasks import packaged_task_ids
from agentkit.envs.arena.backend import ArenaBackend

SETTLE_STEPS = 10  # heavy bodies fall their 0.01 gap and are pinned within a few steps (heavy_bodies.py)


def bare_steps(backend: ArenaBackend, task: str, steps: int) -> tuple[float, float]:
    """Wall and CPU seconds of ``steps`` environment steps' worth of bare pybullet updates of
    ``task``'s world: built by the backend's reset, then ``p.stepSimulation`` on its client only,
    ``DECISION_PERIOD`` x ``physics_substeps`` times per step (3 at the defaults). The world is first
    run for ``SETTLE_STEPS`` idle steps of ours (untimed), so that the walls and ramps that come to
    rest are pinned as they are during our episodes: stepped bare from the reset they would stay
    dynamic for ever and the bare figure would be slower than ours."""
    backend.reset(task, seed=0)
    for _ in range(SETTLE_STEPS):
        backend.step([0, 0])
    world = backend._world  # the ArenaWorld the reset built; its pybullet client is all we step
    assert world is not None
    client = world.client
    updates = steps * motion.DECISION_PERIOD * backend.physics_substeps
    step = p.stepSimulation
    start, cpu_start = time.perf_counter(), time.process_time()
    for _ in range(updates):
        step(physicsClientId=client)
    return time.perf_counter() - start, time.process_time() - cpu_start


def bench_steps(tasks: list[str], steps_per_task: int) -> None:
    backend = ArenaBackend(frames=False)
    rng = random.Random(0)
    step_s = reset_s = step_cpu = bare_s = bare_cpu = 0.0
    steps = resets = 0
    for task in tasks:
        done_steps = 0
        while done_steps < steps_per_task:
            start = time.perf_counter()
            backend.reset(task, seed=resets)
            reset_s += time.perf_counter() - start
            resets += 1
            actions = [[rng.randrange(3), rng.randrange(3)] for _ in range(steps_per_task - done_steps)]
            start, cpu_start = time.perf_counter(), time.process_time()
            for action in actions:
                done_steps += 1
                if backend.step(action).done:
                    break
            step_s += time.perf_counter() - start
            step_cpu += time.process_time() - cpu_start
        steps += done_steps
        # the same world, the same number of steps, bare: measured task by task beside ours, so a
        # shared machine's load falls on both alike
        wall, cpu = bare_steps(backend, task, done_steps)
        bare_s += wall
        bare_cpu += cpu
    backend.close()
    rate, bare = steps / step_s, steps / bare_s
    print(
        f"(a) env steps without rendering: {rate:,.0f} steps/s over {steps:,} steps on {len(tasks)} tasks "
        f"(target >= 5,000: {'OK' if rate >= 5000 else 'MISSED'}); reset {reset_s / resets * 1000:.1f} ms each"
    )
    print(
        f"    bare pybullet, the same worlds: {bare:,.0f} steps/s "
        f"({motion.DECISION_PERIOD * backend.physics_substeps} p.stepSimulation per step, nothing else: "
        f"the physics limit); ours / bare = {rate / bare:.2f}"
    )
    print(
        f"    CPU time of this process: {steps / step_cpu:,.0f} steps/s, bare {steps / bare_cpu:,.0f} "
        f"steps/s, ours / bare = {bare_cpu / step_cpu:.2f}"
    )


# Testbed arenas that are hard to draw: 155 items (08-10-01), 50 items on rails (02-28-02), glass tunnels
# (03-15-01), glass walls (03-05-01), a death zone and walls (04-22-01), hot zones (04-04-01), a tunnel (03-13-03),
# ramps and platforms (03-16-01); and the slowest frames of a sweep of all 900 tasks (best of 3 renders each):
# the agent shut in under walls used as floor and ceiling, behind glass (03-27-02, 03-25-03) or cardboard
# walls (06-08-02), where items cover every pixel.
BUSY = (
    "08-10-01",
    "02-28-02",
    "03-15-01",
    "03-05-01",
    "04-22-01",
    "04-04-01",
    "03-13-03",
    "03-16-01",
    "03-27-02",
    "03-25-03",
    "06-08-02",
)


def bench_frames(
    tasks: list[str], size: int, target_ms: float | None, label: str = "", best_of: int = 1
) -> None:
    backend = ArenaBackend(render_size=size, frames=True)
    times, cpu_times = [], []
    worst = ("", 0.0)
    for task in tasks:
        backend.reset(task, seed=0)
        world, camera = backend._world, backend._camera  # the renderer alone, from the start position
        eye, heading = world.eye()
        for turn in (0, 90, 180, 270):
            wall, cpu = [], []
            for _ in range(best_of):
                start, cpu_start = time.perf_counter(), time.process_time()
                camera.render(eye, heading + turn)
                wall.append(time.perf_counter() - start)
                cpu.append(time.process_time() - cpu_start)
            times.append(min(wall))
            cpu_times.append(min(cpu))
            if cpu_times[-1] > worst[1]:
                worst = (task, cpu_times[-1])
    backend.close()
    ms = np.asarray(times) * 1000
    cpu = np.asarray(cpu_times) * 1000
    verdict = (
        ""
        if target_ms is None
        else (
            f"  target <= {target_ms} ms: median {'OK' if statistics.median(ms) <= target_ms else 'MISSED'}, "
            f"p95 {'OK' if np.percentile(ms, 95) <= target_ms else 'MISSED'}"
        )
    )
    print(
        f"(b) first-person frame {size}x{size}{label}: mean {ms.mean():.1f} ms, p50 {np.percentile(ms, 50):.1f} ms, "
        f"p95 {np.percentile(ms, 95):.1f} ms, max {ms.max():.1f} ms over {len(ms)} frames{verdict}"
    )
    # On a shared machine the wall clock also counts other processes' turns; CPU time does not.
    print(
        f"    CPU time of this process: p50 {np.percentile(cpu, 50):.1f} ms, p95 {np.percentile(cpu, 95):.1f} ms, "
        f"max {cpu.max():.1f} ms ({worst[0]})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps-per-task", type=int, default=500)
    parser.add_argument("--tasks", choices=["children40", "all"], default="children40")
    parser.add_argument("--best-of", type=int, default=1, help="renders per frame; the least time is kept")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    tasks = list(CHILDREN_40) if args.tasks == "children40" else list(packaged_task_ids())
    bench_steps(tasks, args.steps_per_task)
    label = f" (best of {args.best_of})" if args.best_of > 1 else ""
    bench_frames(tasks, 84, None, label, args.best_of)
    bench_frames(tasks, 512, 40.0, label, args.best_of)
    bench_frames(list(BUSY), 512, 40.0, " (busy arenas)" + label, args.best_of)


if __name__ == "__main__":
    main()
