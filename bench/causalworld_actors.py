"""CausalWorld's five trained actors on their tasks' P0, through the gym env with CausalWorld's settings.

What CausalWorld's own evaluation measures (``causal_world/metrics/``), over N episodes per actor:
the mean last fractional success, the mean fractional success over every step of an episode
(``full_integrated``) and over its last 20 steps (``last_integrated``: CausalWorld sums
``infos[-index]`` for index 0..19, so its "last 20" are the first step and the last 19; this bench
does the same), the success rate, and the speed (control steps per second). Each actor acts every
12 ms on CausalWorld's unclipped normalised observation (``settings="reproduce_experiments"``,
reaching: ``skip_frame=3``, its default task config; ``clip_observations=False``), deterministic
actions as ``PPO2.predict(obs, deterministic=True)``.

The numbers depend on the simulated robot following the actors' joint targets as CausalWorld's
TriFinger does; they are figures to compare before and after a change, not a test.

Usage: python bench/causalworld_actors.py [--actor pushing_ppo_curr1 ...] [--episodes 20] [--protocol P0]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time

from agentkit.envs.trifinger.causalworld_actors import ACTORS, load_actor
from agentkit.envs.trifinger.gym_env import TriFingerGymEnv
from agentkit.envs.trifinger.training_setup import BASELINE_WEIGHTS

logger = logging.getLogger("bench.causalworld_actors")


def make_env(family: str, protocol: str) -> TriFingerGymEnv:
    """The gym env as the actor was trained: the baselines' settings, or skip frame 3 for reaching."""
    task = f"{family}@{protocol}"
    if family in BASELINE_WEIGHTS:
        return TriFingerGymEnv(task, settings="reproduce_experiments", clip_observations=False)
    return TriFingerGymEnv(task, skip_frame=3, clip_observations=False)


def run_episode(env: TriFingerGymEnv, actor, seed: int) -> list[dict]:
    """The infos of every step of one episode (CausalWorld's episode object keeps the same)."""
    observation, _ = env.reset(seed=seed)
    infos = []
    while True:
        observation, _, terminated, truncated, info = env.step(actor(observation))
        infos.append(info)
        if terminated or truncated:
            return infos


def measure(name: str, episodes: int, protocol: str) -> dict[str, float]:
    actor = load_actor(name)
    env = make_env(ACTORS[name], protocol)
    last, full, last20, success, steps = [], [], [], [], 0
    start = time.perf_counter()
    try:
        for seed in range(episodes):
            infos = run_episode(env, actor, seed)
            fractions = [info["fractional_success"] for info in infos]
            last.append(fractions[-1])
            full.append(statistics.fmean(fractions))
            last20.append(sum(fractions[-index] for index in range(20)) / 20)
            success.append(float(infos[-1]["success"]))
            steps += len(infos)
    finally:
        env.close()
    elapsed = time.perf_counter() - start
    return {
        "last_fractional_success": statistics.fmean(last),
        "last_std": statistics.pstdev(last),
        "full_integrated": statistics.fmean(full),
        "last_integrated": statistics.fmean(last20),
        "success_rate": statistics.fmean(success),
        "steps_per_episode": steps / episodes,
        "steps_per_s": steps / elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actor", nargs="*", default=list(ACTORS), choices=list(ACTORS))
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--protocol", default="P0")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    print(
        f"CausalWorld actors at {args.protocol}, {args.episodes} episodes each (seeds 0..{args.episodes - 1})"
    )
    print(
        f"{'actor':28} {'last_frac':>9} {'std':>6} {'full_int':>8} {'last_int':>8} {'success':>7} {'steps':>6} {'steps/s':>8}"
    )
    for name in args.actor:
        m = measure(name, args.episodes, args.protocol)
        print(
            f"{name:28} {m['last_fractional_success']:9.4f} {m['last_std']:6.3f} {m['full_integrated']:8.4f} "
            f"{m['last_integrated']:8.4f} {m['success_rate']:7.2f} {m['steps_per_episode']:6.0f} {m['steps_per_s']:8.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
