"""An RL row for the gridworld leaderboard: PPO (stable-baselines3, CPU) on a few easy tasks.

Each task gets its own policy, trained only on that task's hashed ``train`` seeds (each of the
vectorised envs walks its own stride of the split, so no two copies replay one episode) and then
played greedily on exactly the ``eval`` seeds ``gridworld_eval_plan`` gives every LLM agent. The
episodes are scored by ``gridworld_leaderboard`` (model ``ppo-sb3``, harness ``rl``), and printed
beside the reference agent (the ONS oracle) and the uniform random policy on the same seeds.

The observation is MiniGrid's egocentric 7x7 symbolic view as one-hot codes (``OneHotView``);
the agent never sees the mission text, so tasks whose goal varies by mission are out of reach
for this baseline by construction (pick tasks whose goal the view alone reveals).

Needs the ``rl`` extra (torch CPU + stable-baselines3). Torch runs on one thread: on a small MLP
more threads only contend with the env stepping.

Usage: python bench/gridworld_ppo.py [--tasks T ...] [--timesteps N] [--seeds-per-pair N] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

import gymnasium

from agentkit.envs.gridworld.catalogue import catalogue_entry
from agentkit.envs.gridworld.gym_env import OneHotView, make_rl_env
from agentkit.evals.gridworld.baselines import BaselineCache
from agentkit.evals.gridworld.leaderboard import gridworld_eval_plan, gridworld_leaderboard

logger = logging.getLogger("bench.gridworld_ppo")

MODEL, HARNESS, MODALITY = "ppo-sb3", "rl", "egocentric-7x7-onehot"
# One easy task per category the view alone can solve: navigation, safety, planning (key, door, goal).
DEFAULT_TASKS = ("gridworld/reach-goal-easy", "gridworld/lava-gap-easy", "gridworld/door-key-easy")
_MODULUS = 2**31


class StridedSplitSeeds(gymnasium.Wrapper):
    """Copy ``first`` of ``stride`` vectorised envs: its k-th reset plays split seed first + k*stride.

    Wraps ``make_rl_env``'s env (whose ``base`` is the split's first seed), so the copies together
    cover split seeds 0, 1, 2, ... once each instead of all replaying the same ones.
    """

    def __init__(self, env: gymnasium.Env, first: int, stride: int) -> None:
        super().__init__(env)
        self.first, self.stride, self.resets = first, stride, 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is None:
            seed = (self.env.base + self.first + self.resets * self.stride) % _MODULUS
            self.resets += 1
        return self.env.reset(seed=seed, options=options)


@dataclass(frozen=True)
class Episode:
    task: str
    seed: int
    success: bool
    reward: float
    steps: int


def _rl_imports():
    try:
        import torch
        from stable_baselines3 import PPO
        from stable_baselines3.common.utils import set_random_seed
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError as exc:
        raise SystemExit(
            f"bench/gridworld_ppo.py needs the rl extra (pip install 'agentkit-embodied[rl]'): {exc}"
        ) from exc
    return torch, PPO, set_random_seed, DummyVecEnv


def train(task: str, timesteps: int, n_envs: int = 8, seed: int = 0):
    """A PPO policy for one catalogue task, trained on its ``train`` split only."""
    torch, PPO, set_random_seed, DummyVecEnv = _rl_imports()
    torch.set_num_threads(1)
    set_random_seed(seed)  # not PPO(seed=...): that would reset the envs on seeds 0..n-1, off the split
    catalogue_entry(task)
    factories = [
        (lambda i=i: OneHotView(StridedSplitSeeds(make_rl_env(task, split="train"), first=i, stride=n_envs)))
        for i in range(n_envs)
    ]
    venv = DummyVecEnv(factories)
    model = PPO(
        "MlpPolicy",
        venv,
        n_steps=128,
        batch_size=min(256, 128 * n_envs),
        n_epochs=4,
        learning_rate=7e-4,
        gamma=0.99,
        gae_lambda=0.95,
        ent_coef=0.01,
        clip_range=0.2,
        policy_kwargs={"net_arch": [64, 64]},
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=timesteps)
    venv.close()
    return model


def evaluate(model, task: str, seeds: list[int], deterministic: bool = True) -> list[Episode]:
    """Play the policy once per seed until the env ends or truncates the episode."""
    env = OneHotView(make_rl_env(task, split="eval"))
    episodes = []
    for seed in seeds:
        obs, _ = env.reset(seed=seed)
        total, steps, done, reward, terminated = 0.0, 0, False, 0.0, False
        while not done:
            action, _ = model.predict(obs, deterministic=deterministic)
            obs, reward, terminated, truncated, _ = env.step(int(action))
            total += float(reward)
            steps += 1
            done = terminated or truncated
        episodes.append(Episode(task, seed, bool(terminated and reward > 0), total, steps))
    env.close()
    return episodes


def baseline_rows(plan: list[tuple[str, int]], cache_path: str | None) -> dict[str, dict[str, list[dict]]]:
    """Oracle (the reference agent) and random episodes on the plan's seeds, from the shared cache."""
    outcomes = BaselineCache(cache_path).fill(plan)
    rows: dict[str, dict[str, list[dict]]] = {"reference": {}, "random": {}}
    for (task, seed), by_policy in outcomes.items():
        for name, policy in (("reference", "oracle"), ("random", "random")):
            o = by_policy[policy]
            rows[name].setdefault(task, []).append(
                {"task": task, "seed": seed, "success": o.success, "reward": o.reward}
            )
    return rows


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _ons_text(row: dict) -> str:
    if row.get("ons") is None:
        return "ONS   n/a"
    ci = row.get("ci") or [row["ons"], row["ons"]]
    return f"ONS {row['ons']:6.3f} [{ci[0]:6.3f}, {ci[1]:6.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS), help="catalogue task names")
    parser.add_argument(
        "--timesteps",
        type=int,
        default=100_000,
        help="PPO env steps per task (door-key-easy fails every eval seed at 30k, is solved at 100k)",
    )
    parser.add_argument("--n-envs", type=int, default=8)
    parser.add_argument(
        "--seeds-per-pair", type=int, default=20, help="eval seeds per task (as in agentkit eval)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the PPO networks and sampling")
    parser.add_argument(
        "--stochastic", action="store_true", help="sample actions at eval instead of the argmax"
    )
    parser.add_argument(
        "--cache", default=None, help="baseline cache file (default .agentkit/gridworld_baselines.json)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the PPO leaderboard JSON instead of the table"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    for name in ("timesteps", "n_envs", "seeds_per_pair"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    for task in args.tasks:
        try:
            catalogue_entry(task)  # fail before any training on a misspelt name
        except ValueError as exc:
            parser.error(str(exc))

    start = time.perf_counter()
    episodes: list[Episode] = []
    timing: dict[str, float] = {}
    for task in args.tasks:
        plan_seeds = [s for _, s in gridworld_eval_plan(tasks=[task], seeds_per_pair=args.seeds_per_pair)]
        t0 = time.perf_counter()
        model = train(task, args.timesteps, n_envs=args.n_envs, seed=args.seed)
        timing[task] = time.perf_counter() - t0
        episodes += evaluate(model, task, plan_seeds, deterministic=not args.stochastic)
    results = [asdict(e) for e in episodes]
    board = gridworld_leaderboard(results, MODEL, HARNESS, MODALITY, cache_path=args.cache)
    board["training"] = {
        "timesteps_per_task": args.timesteps,
        "n_envs": args.n_envs,
        "seed": args.seed,
        "train_seconds": {t: round(s, 1) for t, s in timing.items()},
    }
    if args.json:
        print(json.dumps(board, indent=1))
        return

    plan = [(e.task, e.seed) for e in episodes]
    others = baseline_rows(plan, args.cache)
    reference = gridworld_leaderboard(
        [r for rs in others["reference"].values() for r in rs],
        "reference",
        "oracle",
        "full-state",
        cache_path=args.cache,
    )
    rand = gridworld_leaderboard(
        [r for rs in others["random"].values() for r in rs],
        "random",
        "uniform",
        "none",
        cache_path=args.cache,
    )
    print(
        f"PPO {args.timesteps} steps/task x {len(args.tasks)} tasks, {args.seeds_per_pair} eval seeds/task; "
        f"total {time.perf_counter() - start:.0f} s"
    )
    print(f"{'task':30} {'agent':10} {'success':>7} {'reward':>7}  ONS (95% CI)")
    for task in args.tasks:
        mine = [r for r in results if r["task"] == task]
        rows = (
            ("ppo-sb3", mine, board),
            ("reference", others["reference"][task], reference),
            ("random", others["random"][task], rand),
        )
        for name, eps, b in rows:
            success = _mean([float(r["success"]) for r in eps])
            reward = _mean([r["reward"] for r in eps])
            print(f"{task:30} {name:10} {success:7.2f} {reward:7.3f}  {_ons_text(b['tasks'][task])}")
        print(f"{'':30} trained in {timing[task]:.0f} s ({args.timesteps / timing[task]:.0f} steps/s)")
    for name, eps, b in (
        ("ppo-sb3", results, board),
        ("reference", [r for rs in others["reference"].values() for r in rs], reference),
        ("random", [r for rs in others["random"].values() for r in rs], rand),
    ):
        success = _mean([float(r["success"]) for r in eps])
        reward = _mean([r["reward"] for r in eps])
        row = {"ons": b["overall_ons"], "ci": b["overall_ci"]}
        print(f"{'overall':30} {name:10} {success:7.2f} {reward:7.3f}  {_ons_text(row)}")


if __name__ == "__main__":
    main()
