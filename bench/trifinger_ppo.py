"""A short PPO run under the CausalWorld paper's pushing set-up, evaluated by CausalWorld's protocols.

Shows an RL user's whole path, end to end, at a size a 2-core machine finishes in minutes:

1. train stable-baselines3's PPO on ``gymnasium.make("agentkit/trifinger-pushing-v0",
   settings="reproduce_experiments", curriculum=...)``: the baselines' task configuration (dense
   reward weights 750/250/0, fractional-success weight 1, variable space A), ``skip_frame`` 3 (12 ms
   steps, 834 per 10-s episode), CausalWorld's normalised unclipped structured observation, joint
   positions in [-1, 1], and one of the paper's curricula (none, goal actor, random actor);
   PPO's settings as ``scripts/reproduce_experiments.py`` gives them (gamma 0.99, 6,000 steps per
   env per update, entropy 0.01, learning rate 2.5e-4, value 0.5, gradient clip 0.5, 40 minibatches,
   4 epochs, a 256-256 tanh network) except the number of envs and of steps per update, which are
   scaled to the run (``--n-envs``, ``--n-steps``);
2. write the trained policy in the format of CausalWorld's shipped actors (its tanh layers and the
   Gaussian mean as ``model/shared_fc<i>`` and ``model/pi``, the observation and action boxes as
   printed text; no pickle), so ``--model causalworld:<file>.zip`` plays it;
3. evaluate it with ``agentkit eval causalworld --task pushing --model causalworld:<file>.zip
   --episodes-per-protocol N --json``: every protocol P0-P11, stored like any run, scored by the
   paper's last fractional success and the two integrated ones; and, for scale, CausalWorld's own
   ``pushing_ppo_curr1`` by the same command (``--compare``).

The paper trained PPO for 100 million steps over 20 environments per curriculum and random seed
(``reproduce_experiments.py``: ``total_time_steps`` 1e8, ``num_of_envs`` 20, 5 seeds); the figure
this prints (control steps per second) says how long that would take here.

Needs the ``rl`` extra (torch CPU + stable-baselines3). Torch runs on one thread: on a small MLP more
threads only contend with the physics.

Usage: python bench/trifinger_ppo.py [--timesteps 20000] [--n-envs 2] [--n-steps 1680]
       [--curriculum goal] [--episodes-per-protocol 2] [--out DIR] [--compare]
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import gymnasium
import numpy as np

import agentkit.envs.gym_registry  # noqa: F401  (registers the agentkit/trifinger-* ids)

logger = logging.getLogger("bench.trifinger_ppo")
ENV_ID = "agentkit/trifinger-pushing-v0"
CURRICULA = ("none", "goal", "random")
#: scripts/reproduce_experiments.py ``ppo``: the paper's PPO settings (stable-baselines 2 names).
PAPER = {
    "gamma": 0.99,
    "n_steps_per_env": 6000,
    "ent_coef": 0.01,
    "learning_rate": 2.5e-4,
    "vf_coef": 0.5,
    "max_grad_norm": 0.5,
    "nminibatches": 40,
    "noptepochs": 4,
    "net_layers": [256, 256],
    "num_of_envs": 20,
    "total_time_steps": 100_000_000,
    "seeds": 5,
}


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


def make_env(curriculum: str) -> gymnasium.Env:
    """The paper's pushing set-up; CausalWorld does not clip its observation, nor does this."""
    return gymnasium.make(
        ENV_ID, settings="reproduce_experiments", curriculum=curriculum, clip_observations=False
    )


def train(args: argparse.Namespace):
    torch, PPO, set_random_seed, DummyVecEnv = _rl_imports()
    torch.set_num_threads(1)
    set_random_seed(args.seed)
    venv = DummyVecEnv([lambda: make_env(args.curriculum) for _ in range(args.n_envs)])
    venv.seed(args.seed)
    batch = max(1, args.n_steps * args.n_envs // PAPER["nminibatches"])
    model = PPO(
        "MlpPolicy",
        venv,
        n_steps=args.n_steps,
        batch_size=batch,
        n_epochs=PAPER["noptepochs"],
        learning_rate=PAPER["learning_rate"],
        gamma=PAPER["gamma"],
        gae_lambda=0.95,  # stable-baselines 2 PPO2's lam default, which the paper kept
        clip_range=0.2,
        ent_coef=PAPER["ent_coef"],
        vf_coef=PAPER["vf_coef"],
        max_grad_norm=PAPER["max_grad_norm"],
        policy_kwargs={"net_arch": PAPER["net_layers"], "activation_fn": torch.nn.Tanh},
        device="cpu",
        seed=args.seed,
        verbose=0,
    )
    model.learn(total_timesteps=args.timesteps)
    venv.close()
    return model


def _printed(values: np.ndarray) -> str:
    """A 1-D array as numpy prints it inside stable-baselines' JSON (never summarised with '...')."""
    return np.array2string(np.asarray(values, dtype=np.float64), threshold=np.inf, max_line_width=80)


def export_actor(model, path: Path) -> Path:
    """Write ``model``'s deterministic policy as CausalWorld's actors are stored: ``data`` (JSON text:
    the boxes and the layer widths), ``parameters`` (an .npz), ``parameter_list`` (their names).
    stable-baselines3's policy branch (``mlp_extractor.policy_net``: Linear, Tanh, ...) and its
    ``action_net`` become ``model/shared_fc<i>`` and ``model/pi``; the value branch is not needed to act."""
    policy = model.policy
    linears = [m for m in policy.mlp_extractor.policy_net if hasattr(m, "weight")]
    arrays: dict[str, np.ndarray] = {}
    for i, layer in enumerate(linears):
        arrays[f"model/shared_fc{i}/w:0"] = layer.weight.detach().cpu().numpy().T.astype(np.float32)
        arrays[f"model/shared_fc{i}/b:0"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    arrays["model/pi/w:0"] = policy.action_net.weight.detach().cpu().numpy().T.astype(np.float32)
    arrays["model/pi/b:0"] = policy.action_net.bias.detach().cpu().numpy().astype(np.float32)
    obs, act = model.observation_space, model.action_space
    data = {
        "observation_space": {"shape": list(obs.shape), "low": _printed(obs.low), "high": _printed(obs.high)},
        "action_space": {"shape": list(act.shape), "low": _printed(act.low), "high": _printed(act.high)},
        "policy_kwargs": {"net_arch": [int(layer.out_features) for layer in linears], "act_fun": "tanh"},
        "trained_by": "bench/trifinger_ppo.py (stable-baselines3 PPO)",
    }
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("data", json.dumps(data, indent=1))
        archive.writestr("parameters", buffer.getvalue())
        archive.writestr("parameter_list", json.dumps(sorted(arrays)))
    return path


def check_export(model, path: Path, curriculum: str) -> float:
    """The largest difference between stable-baselines3's deterministic action and the exported
    actor's numpy action on a few observations of the env (they should agree to float precision)."""
    from agentkit.envs.trifinger.causalworld_actors import read_actor_zip

    network = read_actor_zip(path)
    env = make_env(curriculum)
    obs, _ = env.reset(seed=123)
    worst = 0.0
    for _ in range(20):
        ours = network.act(obs)
        theirs = model.predict(obs, deterministic=True)[0]
        worst = max(worst, float(np.abs(ours - theirs).max()))
        obs, *_ = env.step(theirs)
    env.close()
    return worst


def evaluate(model_name: str, episodes: int, out: Path, seed: int) -> tuple[dict, float]:
    """``agentkit eval causalworld`` on ``model_name``; its JSON and wall seconds."""
    db = out / "evaluation.db"
    command = [
        sys.executable,
        "-m",
        "agentkit.cli",
        "eval",
        "causalworld",
        "--task",
        "pushing",
        "--model",
        model_name,
        "--episodes-per-protocol",
        str(episodes),
        "--seed",
        str(seed),
        "--db",
        f"sqlite:///{db}",
        "--json",
    ]
    started = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"}
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"agentkit eval causalworld failed for {model_name}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout), elapsed


def _protocol_rows(result: dict) -> dict[str, float]:
    """Protocol -> mean last fractional success, from eval's JSON (whatever its nesting)."""
    found: dict[str, float] = {}

    def walk(node) -> None:
        if isinstance(node, dict):
            protocol = node.get("protocol")
            if isinstance(protocol, str) and "mean_last_fractional_success" in node:
                found[protocol] = float(node["mean_last_fractional_success"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(result)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--timesteps", type=int, default=20_000, help="PPO control steps (834 per episode)")
    parser.add_argument("--n-envs", type=int, default=2)
    parser.add_argument(
        "--n-steps", type=int, default=1680, help="steps per env per update (paper: 6000; x envs / 40 whole)"
    )
    parser.add_argument("--curriculum", choices=CURRICULA, default="goal", help="paper's curr0/1/2")
    parser.add_argument("--episodes-per-protocol", type=int, default=2, help="paper: 200")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="folder for the policy and the evaluation db")
    parser.add_argument(
        "--compare", action="store_true", help="also evaluate CausalWorld's pushing_ppo_curr1"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    for name in ("timesteps", "n_envs", "n_steps", "episodes_per_protocol"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    out = args.out or Path(tempfile.mkdtemp(prefix="trifinger_ppo_"))
    out.mkdir(parents=True, exist_ok=True)

    started = time.perf_counter()
    model = train(args)
    trained = time.perf_counter() - started
    rate = args.timesteps / trained
    policy = export_actor(model, out / "pushing_ppo_bench.zip")
    mismatch = check_export(model, policy, args.curriculum)
    print(
        f"PPO on {ENV_ID} (settings=reproduce_experiments, curriculum {args.curriculum}): {args.timesteps} "
        f"control steps of 12 ms over {args.n_envs} envs in {trained:.0f} s ({rate:.0f} steps/s, "
        f"{rate * 0.012:.2f}x real time)"
    )
    paper_steps = PAPER["total_time_steps"]
    print(
        f"the paper's budget: {paper_steps:,} steps per curriculum and seed ({PAPER['seeds']} seeds, "
        f"{PAPER['num_of_envs']} envs): {paper_steps / rate / 86400:.0f} days each at this rate"
    )
    print(f"policy written to {policy} (largest action difference from stable-baselines3: {mismatch:.1e})")

    results = [("trained here", f"causalworld:{policy}")]
    if args.compare:
        results.append(("CausalWorld's pushing_ppo_curr1", "causalworld:pushing_ppo_curr1"))
    table: dict[str, dict[str, float]] = {}
    for label, model_name in results:
        data, wall = evaluate(model_name, args.episodes_per_protocol, out, args.seed)
        table[label] = _protocol_rows(data)
        print(f"evaluated {label}: {args.episodes_per_protocol} episodes per protocol in {wall:.0f} s")
    protocols = sorted({p for rows in table.values() for p in rows}, key=lambda p: int(p[1:]))
    print("mean last fractional success per protocol (agentkit eval causalworld):")
    print(f"{'protocol':10s}" + "".join(f"{label:>34s}" for label in table))
    for protocol in protocols:
        print(
            f"{protocol:10s}"
            + "".join(f"{table[label].get(protocol, float('nan')):34.3f}" for label in table)
        )
    print(f"total {time.perf_counter() - started:.0f} s wall; evaluation database {out / 'evaluation.db'}")


if __name__ == "__main__":
    main()
