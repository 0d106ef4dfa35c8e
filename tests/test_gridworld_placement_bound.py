"""No seed hangs a gridworld reset: MiniGrid's endless agent placement is bounded (placement_bound.py).

The stuck seed runs in a child process with a time limit, so the old hang fails this test instead of
stalling the suite; the other seeds check that every level that finished before is drawn unchanged.
"""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest

from agentkit.envs.gridworld.backend import GridworldBackend
from agentkit.envs.gridworld.placement_bound import bound_agent_placement

STUCK = ("gridworld/synth-easy", 1741)  # every free cell of the agent's room faced an object: reset hung

CHILD = """
import sys
from agentkit.envs.gridworld.backend import GridworldBackend
raw = GridworldBackend(frame="none", commands="api").reset(sys.argv[1], int(sys.argv[2]))
print("reset", raw.pose is not None)
"""


def test_the_seed_that_hung_reset_now_draws_a_level_quickly():
    task, seed = STUCK
    done = subprocess.run(
        [sys.executable, "-c", CHILD, task, str(seed)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("reset True")


def test_without_the_bound_that_seed_is_still_stuck_after_many_placements():
    """The bound is what ends it: unbounded, the same reset is still searching after 200,000 tries."""
    env = gymnasium.make(STUCK[0]).unwrapped
    calls = {"n": 0}
    inner = env.place_obj

    def counting(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 200_000:
            raise KeyboardInterrupt  # not RecursionError: BabyAI would catch that and redraw
        return inner(*args, **kwargs)

    env.place_obj = counting
    with pytest.raises(KeyboardInterrupt):
        env.reset(seed=STUCK[1])


@pytest.mark.parametrize(
    "task", ["gridworld/synth-easy", "gridworld/goto-object-hard", "BabyAI-GoToLocal-v0"]
)
def test_levels_that_finished_before_are_drawn_unchanged(task):
    for seed in range(8):
        plain = gymnasium.make(task).unwrapped
        plain.reset(seed=seed)
        bounded = gymnasium.make(task).unwrapped
        bound_agent_placement(bounded)
        bounded.reset(seed=seed)
        assert np.array_equal(plain.grid.encode(), bounded.grid.encode()), (task, seed)
        assert plain.agent_pos == bounded.agent_pos and plain.agent_dir == bounded.agent_dir
        assert plain.mission == bounded.mission


def test_the_backend_installs_the_bound_once():
    backend = GridworldBackend(frame="none")
    backend.reset("gridworld/synth-easy", 0)
    env = backend._env.unwrapped
    assert env._agentkit_placement_bound
    place = env.place_agent
    bound_agent_placement(env)
    assert env.place_agent is place
    backend.close()
