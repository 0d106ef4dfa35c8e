"""agentkit's gymnasium ids reached from a fresh interpreter that has imported nothing of agentkit.

Gymnasium 1.x dropped the ``gymnasium.envs`` plugin entry points of 0.x, so nothing registers the ids
when gymnasium is imported; the supported way is gymnasium's own ``"<module>:<id>"`` form, which
imports the registering module inside ``gymnasium.make``. These tests run each id that way in a new
process (so no earlier import in the test session can hide a missing registration), check that
naming the module loads no backend until an env is built, and that registering twice is silent.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import gymnasium

from agentkit.envs import gym_registry
from agentkit.envs.gridworld.catalogue import CATALOGUE

#: Libraries a backend needs only once one of its envs is built, never to register the ids.
BACKEND_MODULES = ("pybullet", "trifinger_simulation", "mlagents_envs", "torch", "litellm")

MAKE_EACH_ID = """
import json, sys
import gymnasium

ids = json.loads(sys.argv[1])
before = sorted(m for m in sys.modules if m == "agentkit" or m.startswith("agentkit."))
import agentkit.envs.gym_registry  # what gymnasium.make imports for "agentkit.envs.gym_registry:<id>"
loaded_by_registering = sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)
stepped = []
for env_id in ids:
    env = gymnasium.make("agentkit.envs.gym_registry:" + env_id)
    env.reset(seed=0)
    env.action_space.seed(0)
    _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
    env.close()
    stepped.append([env.spec.id, float(reward)])
print(json.dumps({"before": before, "loaded_by_registering": loaded_by_registering, "stepped": stepped}))
"""


def _agentkit_ids() -> list[str]:
    """Every id the registry module registers: the arena, TriFinger and its tasks, the gridworld catalogue."""
    own = [gym_registry.ARENA_ID, gym_registry.TRIFINGER_ID, *sorted(gym_registry.TRIFINGER_TASK_IDS)]
    return own + sorted(info.name for info in CATALOGUE)


def test_a_fresh_interpreter_makes_and_steps_every_id_by_naming_the_module(tmp_path):
    """Run from an empty folder, as a user's training script would, not from the repository."""
    ids = _agentkit_ids()
    assert len(ids) == 2 + 9 + 55
    done = subprocess.run(
        [sys.executable, "-c", MAKE_EACH_ID, json.dumps(ids), json.dumps(BACKEND_MODULES)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["before"] == []  # importing gymnasium loads nothing of agentkit
    assert result["loaded_by_registering"] == []  # the ids are strings until an env is built
    assert [env_id for env_id, _ in result["stepped"]] == ids


def test_registering_again_after_the_import_is_silent_and_changes_nothing():
    before = {env_id: gymnasium.spec(env_id) for env_id in _agentkit_ids()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_registry.register_envs()
        env = gymnasium.make(f"agentkit.envs.gym_registry:{gym_registry.ARENA_ID}")
        env.close()
    assert {env_id: gymnasium.spec(env_id) for env_id in before} == before
