"""A short PPO run on CausalWorld's pushing, through ``gymnasium.make("agentkit/trifinger-pushing-v0")``.

Shows an RL user's path end to end: the registered environment (CausalWorld's structured
observation, joint-position actions in [-1, 1], its dense reward and 10 s episodes of 250 control
steps), stable-baselines3's PPO on the CPU, then greedy evaluation beside the uniform random policy
on the same held-out seeds. It prints training speed (control steps per second), and per policy the
mean return (the summed dense reward), the mean final fractional success (CausalWorld's axis-aligned
overlap) and the success rate. A short run is a smoke test of the pipeline, not a trained agent:
CausalWorld's own pushing baselines trained for millions of steps.

Needs the ``rl`` extra (torch CPU + stable-baselines3), as ``bench/gridworld_ppo.py``. Torch runs on
one thread: on a small MLP more threads only contend with the physics.

Usage: python bench/trifinger_ppo.py [--timesteps 5000] [--n-envs 2] [--eval-seeds 5] [--task pushing]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time

import gymnasium
import numpy as np

import agentkit.envs.gym_registry  # noqa: F401  (registers the agentkit/trifinger-* ids)

logger = logging.getLogger("bench.trifinger_ppo")
EVAL_SEED_BASE = 1_000_000  # evaluation seeds are far from the seeds training resets draw


def _rl_imports():
    try:
        import torch
        from stable_baselines3 import PPO
        from stable_baselines3.common.utils import set_random_seed
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError as exc:
        raise SystemExit(
            f"bench/trifinger_ppo.py needs the rl extra (pip install 'agentkit-embodied[rl]'): {exc}"
        ) from exc
    return torch, PPO, set_random_seed, DummyVecEnv


def train(env_id: str, timesteps: int, n_envs: int, seed: int):
    torch, PPO, set_random_seed, DummyVecEnv = _rl_imports()
    torch.set_num_threads(1)
    set_random_seed(seed)
    venv = DummyVecEnv([lambda: gymnasium.make(env_id) for _ in range(n_envs)])
    venv.seed(seed)
    model = PPO(
        "MlpPolicy",
        venv,
        n_steps=250,
        batch_size=250,
        n_epochs=5,
        learning_rate=3e-4,
        gamma=0.99,
        gae_lambda=0.95,
        clip_range=0.2,
        policy_kwargs={"net_arch": [64, 64]},
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=timesteps)
    venv.close()
    return model


def evaluate(env_id: str, seeds: list[int], policy) -> list[dict[str, float]]:
    """Play ``policy(obs, env)`` once per seed to the end of the episode."""
    env = gymnasium.make(env_id)
    rows = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(policy(obs, env))
            total += float(reward)
            done = terminated or truncated
        rows.append(
            {
                "return": total,
                "fractional_success": float(info["fractional_success"]),
                "success": float(info["success"]),
            }
        )
    env.close()
    return rows


def _row(name: str, rows: list[dict[str, float]]) -> str:
    mean = {k: statistics.fmean(r[k] for r in rows) for k in rows[0]}
    return (
        f"{name:8s} return {mean['return']:9.3f}  final fractional success {mean['fractional_success']:.3f}  "
        f"success {mean['success']:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--task", default="pushing", help="a CausalWorld task (agentkit/trifinger-<task>-v0)")
    parser.add_argument(
        "--timesteps", type=int, default=5000, help="PPO control steps (250 per pushing episode)"
    )
    parser.add_argument("--n-envs", type=int, default=2)
    parser.add_argument("--eval-seeds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    env_id = f"agentkit/trifinger-{args.task}-v0"
    if env_id not in gymnasium.registry:
        parser.error(
            f"no environment {env_id}; tasks: pushing, picking, pick_and_place, stacking2, towers, ..."
        )
    for name in ("timesteps", "n_envs", "eval_seeds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")

    started = time.perf_counter()
    model = train(env_id, args.timesteps, args.n_envs, args.seed)
    trained = time.perf_counter() - started
    seeds = [EVAL_SEED_BASE + k for k in range(args.eval_seeds)]
    rng = np.random.default_rng(args.seed)
    ppo = evaluate(env_id, seeds, lambda obs, env: model.predict(obs, deterministic=True)[0])
    rand = evaluate(env_id, seeds, lambda obs, env: rng.uniform(-1.0, 1.0, size=9).astype(np.float32))
    print(
        f"PPO on {env_id}: {args.timesteps} control steps over {args.n_envs} envs in {trained:.0f} s "
        f"({args.timesteps / trained:.0f} steps/s, {args.timesteps * 0.04 / trained:.1f}x real time); "
        f"eval on {args.eval_seeds} held-out seeds"
    )
    print(_row("ppo", ppo))
    print(_row("random", rand))
    print(f"total {time.perf_counter() - started:.0f} s wall")


if __name__ == "__main__":
    main()
