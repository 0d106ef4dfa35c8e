"""Episodes per second of the reference agent on the children-40 suite: local executor vs 1 and 2 Ray nodes.

Why: ``--executor ray`` exists to add machines to a sweep; this prints what it costs and gains on
the simplest cluster there is, Ray nodes of one CPU each started on this machine
(``ray.cluster_utils.Cluster``), beside the local executor's worker processes. Every line plays the
same episodes (40 tasks x ``--trials``, frames off, no images, ``--max-scripts`` scripts each)
through ``agentkit.runs.runner.execute_run`` as ``agentkit eval`` would, into a fresh store. The time
counted runs from the run's start to its last episode (worker start-up included, cluster start-up
not: a cluster is started once and used for many runs).

Nodes on one machine share its cores, so 2 nodes are faster than 1 only where 2 cores are free;
on a real cluster each node brings its own.

Usage: python bench/ray_scale.py [--trials 1] [--max-scripts 1] [--db URL]
(``--db`` a PostgreSQL URL, else a temporary SQLite file, which local nodes share.)
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
import uuid
from pathlib import Path

from agentkit.config import ObserverSettings, RunConfig
from agentkit.envs.animalai_common.suites import suites
from agentkit.runs.runner import execute_run
from agentkit.transcripts import TranscriptStore

log = logging.getLogger("bench.ray_scale")


def _config(trials: int, max_scripts: int, **update: object) -> RunConfig:
    return RunConfig(
        env="aai-arena",
        tasks=suites()["aai-children40"],
        episodes=trials,
        seed=0,
        max_scripts=max_scripts,
        include_images=False,
        memory="markovian",
        observer=ObserverSettings(views=["structured"]),
        backend_options={"frames": False},
        **update,
    )


def _rate(config: RunConfig, db: str) -> tuple[int, float]:
    """(episodes played, wall seconds) of one run into ``db``."""
    with TranscriptStore(db) as store:
        start = time.perf_counter()
        summary = execute_run(config, store, show_progress=False)
        return len(summary.episodes), time.perf_counter() - start


def _ray_rate(nodes: int, config: RunConfig, db: str) -> tuple[int, float]:
    """The same run on a fresh cluster of ``nodes`` one-CPU Ray nodes on this machine."""
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
        try:
            return _rate(config.model_copy(update={"executor": "ray", "max_concurrency": nodes}), db)
        finally:
            ray.shutdown()
    finally:
        cluster.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1, help="episodes per task")
    parser.add_argument("--max-scripts", type=int, default=1, help="scripts per episode")
    parser.add_argument("--db", default=None, help="a PostgreSQL URL (default: temporary SQLite files)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    with tempfile.TemporaryDirectory() as tmp:
        fresh = lambda: args.db or f"sqlite:///{Path(tmp) / uuid.uuid4().hex}.db"
        lines = []
        for workers in (1, 2):
            config = _config(args.trials, args.max_scripts, workers="processes", max_concurrency=workers)
            lines.append((f"local executor, {workers} worker process(es)", *_rate(config, fresh())))
        for nodes in (1, 2):
            config = _config(args.trials, args.max_scripts)
            lines.append(
                (f"ray executor, {nodes} local node(s) of 1 CPU", *_ray_rate(nodes, config, fresh()))
            )
    print(
        f"reference agent on aai-children40 x {args.trials} trial(s), {args.max_scripts} script(s) per "
        "episode, frames off"
    )
    for label, episodes, wall in lines:
        print(f"  {label:42s} {episodes:4d} episodes in {wall:6.1f} s = {episodes / wall:5.2f} episodes/s")


if __name__ == "__main__":
    main()
