"""What CausalWorld's own code draws, protocol after protocol on one env: the check behind ``protocol_carry_over``.

Runs CausalWorld's evaluation sequence as ``evaluation/evaluation.py`` does (one ``CausalWorld`` env,
``benchmark/benchmarks.py``'s protocols in order, each wrapped in ``ProtocolWrapper``), resetting only (no
policy, no steps: the draws happen at reset), and prints per protocol how many episodes put
pick_and_place's block and goal on the same side of the wall, how many goals float (bottom more than 1 mm
above the floor) or sink, how many goals lie below 8 cm (picking), how many were resized and how many ran unintervened. ``--protocols P5`` runs only
those, on a fresh env (what ``carry_over="protocol"`` reproduces). Compare with
``bench/trifinger_protocol_carry_over.py``.

Not a dependency of agentkit: it needs CausalWorld (rr-learning/CausalWorld, MIT) and gym 0.17.2 importable,
e.g. ``PYTHONPATH=<CausalWorld checkout>:<dir with gym 0.17.2> .venv/bin/python bench/causalworld_protocol_sequence.py``;
pybullet is the project's.

Usage: python bench/causalworld_protocol_sequence.py [--task pick_and_place] [--episodes 100] [--protocols P5,P6]
"""

from __future__ import annotations

import argparse
import logging

import numpy as np

#: Aliases numpy 1.24 removed that CausalWorld's observation code still uses (np.bool in
#: envs/robot/observations.py, envs/scene/observations.py); gym 0.17.2 uses np.float.
for _name, _type in (("bool", bool), ("float", float), ("int", int)):
    if _name not in np.__dict__:
        setattr(np, _name, _type)

FLOOR_TOLERANCE = 0.001
PICKING_LOW = 0.08  # picking.py: the bottom of its goal's initial height range (space A)
DEFAULT_BLOCK_Y, DEFAULT_GOAL_Y, DEFAULT_SIZE = -0.09, 0.09, 0.065  # pick_and_place.py's defaults


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="pick_and_place", choices=("pushing", "picking", "pick_and_place"))
    parser.add_argument("--episodes", type=int, default=100, help="per protocol (CausalWorld's default 200)")
    parser.add_argument(
        "--protocols", default="", help="only these, on a fresh env (default: the whole list)"
    )
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # CausalWorld warns on every refused intervention
    from causal_world.benchmark import benchmarks
    from causal_world.envs.causalworld import CausalWorld
    from causal_world.task_generators.task import generate_task
    from causal_world.wrappers.protocol_wrapper import ProtocolWrapper

    bench = getattr(benchmarks, f"{args.task.upper()}_BENCHMARK")
    only = set(args.protocols.split(",")) if args.protocols else None
    task = generate_task(task_generator_id=bench["task_generator_id"], variables_space="space_a_b")
    env = CausalWorld(task, seed=0, skip_frame=3, action_mode="joint_positions")
    for protocol in bench["evaluation_protocols"]:
        if only and protocol.get_name() not in only:
            continue
        wrapped = ProtocolWrapper(env, protocol)
        protocol.init_protocol(env=env, tracker=env.get_tracker(), fraction=1)
        counts = dict.fromkeys(("same side", "floating", "sunk", "below 8 cm", "resized", "unintervened"), 0)
        for _ in range(args.episodes):
            wrapped.reset()
            stage = env._task._stage
            block = stage.get_object_state("tool_block", "cartesian_position")
            goal = stage.get_object_state("goal_block", "cartesian_position")
            size = stage.get_object_state("goal_block", "size")[2]
            gap = goal[2] - size / 2
            counts["same side"] += bool(block[1] * goal[1] > 0)
            counts["floating"] += bool(gap > FLOOR_TOLERANCE)
            counts["sunk"] += bool(gap < -FLOOR_TOLERANCE)
            counts["below 8 cm"] += bool(goal[2] < PICKING_LOW)
            counts["resized"] += bool(abs(size - DEFAULT_SIZE) > 1e-6)
            counts["unintervened"] += bool(
                abs(goal[1] - DEFAULT_GOAL_Y) < 1e-6
                and abs(block[1] - DEFAULT_BLOCK_Y) < 1e-3
                and abs(size - DEFAULT_SIZE) < 1e-6
            )
        line = ", ".join(f"{name} {count}" for name, count in counts.items())
        print(f"{args.task} {protocol.get_name()} ({args.episodes} episodes): {line}", flush=True)
    env.close()


if __name__ == "__main__":
    main()
