"""How fast the gridworld runs through agentkit, beside raw MiniGrid, and what each modality costs.

Prints:
  (a) environment steps per second on the same tasks, seeds and random actions: raw MiniGrid
      (``gymnasium.make`` + ``step``) and agentkit's GridworldBackend (``step``, which also keeps
      the seen map), and their ratio; target >= 0.8x. Resets are timed apart.
  (b) milliseconds per observation for each modality: the backend's observe() (frames included)
      plus the observer and the prompt template, from each task's start position.

Usage: python bench/gridworld_speed.py [--steps N] [--tasks gridworld/door-key-hard ...]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium
import numpy as np

from agentkit.config import RunConfig
from agentkit.envs.gridworld import GridworldBackend
from agentkit.envs.gridworld.catalogue import catalogue_entry
from agentkit.envs.gridworld.quiet import quiet_stdout
from agentkit.evals.gridworld.modalities import MODALITIES, apply_modality
from agentkit.runs.setup_episode import make_setup

BLOCK = 200
DEFAULT_TASKS = [
    "gridworld/reach-goal-hard",
    "gridworld/door-key-hard",
    "gridworld/goto-local-expert",
    "gridworld/key-corridor-hard",
    "gridworld/lava-crossing-expert",
]


def _actions(steps: int, seed: int) -> list[int]:
    return [int(a) for a in np.random.default_rng(seed).integers(0, 7, size=steps)]


class _Raw:
    """Raw MiniGrid through ``gymnasium.make``: step time only, resets (seeded 0, 1, ...) untimed."""

    def __init__(self, env_id: str) -> None:
        with quiet_stdout():
            self.env = gymnasium.make(env_id)
            self.env.reset(seed=0)
        self.episodes = 0

    def run(self, actions: list[int]) -> float:
        spent = 0.0
        for action in actions:
            start = time.perf_counter()
            _, _, terminated, truncated, _ = self.env.step(action)
            spent += time.perf_counter() - start
            if terminated or truncated:
                self.episodes += 1
                with quiet_stdout():
                    self.env.reset(seed=self.episodes)
        return spent


class _Ours:
    """The same through agentkit's GridworldBackend (which also tracks what the agent has seen)."""

    def __init__(self, task: str) -> None:
        self.task = task
        self.backend = GridworldBackend(frame="none")
        self.backend.reset(task, 0)
        self.episodes = 0

    def run(self, actions: list[int]) -> float:
        spent = 0.0
        for action in actions:
            start = time.perf_counter()
            result = self.backend.step(action)
            spent += time.perf_counter() - start
            if result.done:
                self.episodes += 1
                self.backend.reset(self.task, self.episodes)
        return spent


def bench_steps(tasks: list[str], steps: int) -> None:
    print(f"(a) steps/s, {steps} random actions per task, same actions and seeds for both,")
    print(f"    interleaved in blocks of {BLOCK} steps so both see the same load on a shared machine")
    print(f"{'task':34} {'raw minigrid':>13} {'agentkit':>10} {'ratio':>6}")
    ratios = []
    for k, task in enumerate(tasks):
        actions = _actions(steps, k)
        raw, ours = _Raw(catalogue_entry(task).env_id), _Ours(task)
        raw_s = ours_s = 0.0
        for i in range(0, steps, BLOCK):
            block = actions[i : i + BLOCK]
            raw_s += raw.run(block)
            ours_s += ours.run(block)
        if raw.episodes != ours.episodes:
            raise RuntimeError(
                f"{task}: raw and agentkit played different episodes ({raw.episodes} vs {ours.episodes})"
            )
        raw.env.close()
        ours.backend.close()
        raw_rate, our_rate = steps / raw_s, steps / ours_s
        ratios.append(our_rate / raw_rate)
        print(f"{task:34} {raw_rate:13,.0f} {our_rate:10,.0f} {ratios[-1]:6.2f}")
    print(
        f"{'geometric mean ratio':34} {'':13} {'':10} {statistics.geometric_mean(ratios):6.2f}  (target >= 0.80)"
    )


def bench_modalities(tasks: list[str], repeats: int) -> None:
    print(f"\n(b) ms per observation (backend observe + observer + prompt), {repeats} repeats per task")
    context = {"max_scripts": 30, "commands": []}
    for name in MODALITIES:
        setup = make_setup(apply_modality(RunConfig(env="gridworld", tasks=["unused"]), name))
        times = []
        for task in tasks:
            setup.backend.reset(task, 0)
            for _ in range(repeats):
                start = time.perf_counter()
                obs = setup.observer.observe(setup.backend.observe())
                setup.renderer.typed_turn_message(obs, context, None, 0)  # as the loop renders it
                times.append(time.perf_counter() - start)
        setup.backend.close()
        print(f"{name:20} median {1000 * statistics.median(times):7.2f} ms   max {1000 * max(times):7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--tasks", nargs="+", default=DEFAULT_TASKS)
    args = parser.parse_args()
    bench_steps(args.tasks, args.steps)
    bench_modalities(args.tasks, args.repeats)


if __name__ == "__main__":
    main()
