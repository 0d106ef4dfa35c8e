"""CausalWorld's training set-up in the gym env (issue 28, item 4): reward weights, the variable space,
the paper's three curricula and the baselines' settings (scripts/reproduce_experiments.py).

Each curriculum must change what it should and nothing else: none changes nothing between resets,
the goal actor only the goal, the random actor more than the goal.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentkit.envs.trifinger.dense_reward import REWARD_SPECS
from agentkit.envs.trifinger.gym_env import TriFingerGymEnv
from agentkit.envs.trifinger.training_setup import BASELINE_WEIGHTS, make_setup


def _scene(env: TriFingerGymEnv, seed: int) -> tuple[tuple, tuple, list]:
    env.reset(seed=seed)
    world = env.backend.world
    return tuple(world.goal_specs), tuple(world.block_specs), list(env.backend._interventions)


@pytest.fixture
def make():
    made: list[TriFingerGymEnv] = []

    def build(**kwargs) -> TriFingerGymEnv:
        env = TriFingerGymEnv(task="pushing@P0", **kwargs)
        made.append(env)
        return env

    yield build
    for env in made:
        env.close()


def test_no_curriculum_changes_nothing_between_resets(make):
    env = make(curriculum="none")
    assert _scene(env, 1)[:2] == _scene(env, 2)[:2]


def test_the_goal_actor_moves_the_goal_at_every_reset_and_nothing_else(make):
    plain = make()
    goal_env = make(curriculum="goal")
    default_goals, default_blocks, _ = _scene(plain, 1)
    goals_1, blocks_1, acted_1 = _scene(goal_env, 1)
    goals_2, blocks_2, _ = _scene(goal_env, 2)
    assert goals_1 != default_goals and goals_2 != goals_1  # a new goal every episode ...
    assert blocks_1 == blocks_2 == default_blocks  # ... and the block as the task sets it
    actors = [entry for entry in acted_1 if str(entry["by"]).startswith("actor:")]
    assert [entry["by"] for entry in actors] == ["actor:goal"]
    assert set(actors[0]["changed"]) == {"goal0"}


def test_the_random_actor_changes_more_than_the_goal(make):
    env = make(curriculum="random")
    changed: set[str] = set()
    for seed in range(3):
        _, _, acted = _scene(env, seed)
        for entry in acted:
            if entry["by"] == "actor:random" and entry.get("applied"):
                changed |= set(entry["changed"])
    assert changed - {"goal0"}  # blocks, frictions, colours... not only the goal


def test_dense_reward_weights_are_the_ones_given(make):
    silent = make(dense_reward_weights=[0, 0, 0], fractional_reward_weight=0.0)
    silent.reset(seed=0)
    rng = np.random.default_rng(0)
    rewards = [silent.step(rng.uniform(-1, 1, 9).astype(np.float32))[1] for _ in range(20)]
    assert rewards == [0.0] * 20
    assert silent.backend._dense is not None and silent.backend._dense.spec.weights == (0.0, 0.0, 0.0)


def test_the_baselines_settings_are_reproduce_experiments_pys(make):
    env = make(settings="reproduce_experiments", curriculum="goal")
    env.reset(seed=0)
    assert (
        env.skip_frame == 3 and env.action_mode == "joint_positions" and env.observation_mode == "structured"
    )
    assert env.backend._dense is not None
    assert env.backend._dense.spec.weights == BASELINE_WEIGHTS["pushing"] == (750.0, 250.0, 0.0)
    assert env.backend._dense.spec.fractional_weight == 1.0
    assert env.setup.variables_space == "space_a" and env.setup.curriculum is not None
    assert env.setup.curriculum.space == "A"


def test_bad_settings_are_one_clear_line():
    with pytest.raises(ValueError, match="dense_reward_weights for pushing take 3 numbers"):
        make_setup("pushing", dense_reward_weights=[1, 2])
    with pytest.raises(ValueError, match="variables_space must be one of"):
        make_setup("pushing", variables_space="space_c")
    with pytest.raises(ValueError, match="curriculum must be one of"):
        make_setup("pushing", curriculum="teacher")
    with pytest.raises(ValueError, match="settings must be one of"):
        TriFingerGymEnv(task="pushing", settings="paper")
    assert make_setup("reaching").reward == REWARD_SPECS["reaching"]
