"""agentkit's worlds as registered gymnasium environments: each id makes an env that passes
gymnasium's own checker, and the arena keeps Animal-AI's gym interface (spaces, reward, ends)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agentkit.envs.gym_registry  # noqa: F401  (registers the ids)
from agentkit.envs.gym_registry import ARENA_ID, TRIFINGER_ID

TINY_ARENA = """!ArenaConfig
arenas:
  0: !Arena
    pass_mark: 0
    t: 12
    items:
    - !Item
      name: Agent
      positions:
      - !Vector3 {x: 20, y: 0, z: 5}
      rotations: [0]
    - !Item
      name: GoodGoal
      positions:
      - !Vector3 {x: 20, y: 0, z: 35}
"""


def _checked(env_id: str, **kwargs) -> list[str]:
    """Run gymnasium's checker (render and close checks included) on a fresh env; its warnings."""
    env = gymnasium.make(env_id, **kwargs)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped)
    finally:
        env.close()
    return [str(w.message) for w in caught if "gymnasium" in (w.filename or "") or "WARN" in str(w.message)]


@pytest.mark.parametrize(
    "kwargs", [{}, {"flatten_actions": True}, {"aai_version": "4.1.0", "render_size": 64}]
)
def test_the_arena_is_registered_and_passes_the_checker(kwargs):
    assert _checked(ARENA_ID, **kwargs) == []


def test_the_arena_has_animal_ai_gym_spaces():
    env = gymnasium.make(ARENA_ID)
    assert env.observation_space == gymnasium.spaces.Box(0, 255, (84, 84, 3), np.uint8)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([3, 3])
    obs, info = env.reset(seed=3)
    assert obs.shape == (84, 84, 3) and obs.dtype == np.uint8 and obs.any()
    assert info["seed"] == 3 and info["health"] > 0
    env.close()
    flat = gymnasium.make(ARENA_ID, flatten_actions=True)
    assert flat.action_space == gymnasium.spaces.Discrete(9)
    flat.close()


def test_an_arena_yaml_plays_to_its_end_with_a_reward_each_step(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_ARENA)
    env = gymnasium.make(ARENA_ID, task=str(path), render_mode="rgb_array")
    env.reset(seed=0)
    rewards, terminated, steps = [], False, 0
    while not terminated and steps < 100:
        _, reward, terminated, truncated, info = env.step(np.array([0, 0]))
        rewards.append(reward)
        assert not truncated
        steps += 1
    assert terminated and 12 <= steps < 100  # the arena's clock ends the episode
    assert all(r < 0 for r in rewards)  # health drains each step of a timed arena
    assert info["success"] is False and info["end_reason"] == "time_limit"
    assert env.render().shape == (84, 84, 3)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.array([0, 0]))
    env.close()


def test_the_arena_refuses_an_unknown_task():
    with pytest.raises(ValueError, match="no-such-task"):
        gymnasium.make(ARENA_ID, task="no-such-task")


def _only_space_advice(messages: list[str]) -> bool:
    """Gymnasium's advice on Box bounds (normalised actions, finite observations) is a design note for
    RL users, not a broken interface: joint limits and unbounded velocities are the robot's own."""
    return all("recommend using a symmetric" in m or "infinity" in m for m in messages)


def test_trifinger_is_registered_and_passes_the_checker():
    assert _only_space_advice(_checked(TRIFINGER_ID))
    assert _only_space_advice(_checked(TRIFINGER_ID, task="picking", action_mode="end_effector_positions"))


def test_the_gridworld_catalogue_is_registered_and_passes_the_checker():
    assert "gridworld/door-key-easy" in gymnasium.registry
    assert _checked("gridworld/door-key-easy") == []
    assert _checked("gridworld/lava-gap-medium") == []


def test_every_gridworld_catalogue_id_passes_the_checker():
    """Each of the catalogue's 55 ids, not a sample (the render check is the one above, shared by all)."""
    ids = sorted(env_id for env_id in gymnasium.registry if env_id.startswith("gridworld/"))
    assert len(ids) == 55
    for env_id in ids:
        env = gymnasium.make(env_id)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                check_env(env.unwrapped, skip_render_check=True)
        finally:
            env.close()
        warned = [w for w in caught if "gymnasium" in (w.filename or "") or "WARN" in str(w.message)]
        assert [str(w.message) for w in warned] == [], env_id


def test_an_id_can_name_the_registering_module():
    env = gymnasium.make(f"agentkit.envs.gym_registry:{ARENA_ID}")
    assert env.unwrapped.task == "01-04-03"
    env.close()
