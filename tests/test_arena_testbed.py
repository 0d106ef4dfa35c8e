"""Every one of the 900 Testbed arenas builds and runs (20 random steps each, frames off)."""

from __future__ import annotations

import json
import random

from agentkit.envs.animalai_common.tasks import packaged_task_ids
from agentkit.envs.arena.backend import ArenaBackend


def test_all_900_testbed_tasks_reset_and_run_20_random_steps():
    backend = ArenaBackend(frames=False)
    rng = random.Random(0)
    ended = 0
    try:
        for task in packaged_task_ids():
            obs = backend.reset(task, seed=0)
            assert obs.privileged["items"], task
            for _ in range(20):
                result = backend.step([rng.randrange(3), rng.randrange(3)])
                if result.done:
                    ended += 1
                    break
            final = backend.observe()
            x, y, z = final.privileged["agent"]["position"]
            assert -0.1 <= x <= 40.1 and -0.1 <= z <= 40.1 and -0.5 <= y <= 12, (task, x, y, z)
            json.dumps(final.privileged)
            assert set(backend.episode_metrics(final)) == {"pass", "level", "pass_mark", "aai_version"}
    finally:
        backend.close()
    assert ended < 30  # a few arenas put the agent next to a death zone; most do not end in 20 steps
