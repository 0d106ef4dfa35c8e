"""CausalWorld's number_of_obstacles (reaching, creative_stacked_blocks): placed, never ignored.

reaching.py / creative_stacked_blocks.py add one 1 cm fixed black cube per obstacle at a uniform
place of ARENA_BB; other tasks have no such variable, so asking for it there is refused in one line.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.causalworld_profile import SECONDS_PER_RIGID_OBJECT
from agentkit.envs.trifinger.obstacles import ARENA_BB, ObstacleError, random_obstacles, with_obstacles
from agentkit.envs.trifinger.protocols import Protocol
from agentkit.envs.trifinger.sampling import apply, reconcile, sample, scene_problems
from agentkit.envs.trifinger.start_pose import with_start_pose
from agentkit.envs.trifinger.task_spaces import task_space
from agentkit.envs.trifinger.tasks import default_scene


def _inside_box(position) -> bool:
    low, high = np.asarray(ARENA_BB[0]), np.asarray(ARENA_BB[1])
    return bool(np.all(np.asarray(position) >= low) and np.all(np.asarray(position) <= high))


@pytest.mark.parametrize("task", ["reaching", "creative_stacked_blocks"])
def test_obstacles_are_fixed_one_centimetre_black_cubes_at_free_places_of_the_arena_box(task):
    base = with_start_pose(default_scene(task), "causalworld")
    scene = with_obstacles(base, 3.7, np.random.default_rng(5))  # int(3.7) = 3, as CausalWorld cuts it
    cubes = random_obstacles(scene)
    assert [c.name for c in cubes] == ["obstacle_0", "obstacle_1", "obstacle_2"]
    for cube in cubes:
        assert cube.static and cube.size == (0.01, 0.01, 0.01) and cube.color == (0.0, 0.0, 0.0)
        assert _inside_box(cube.position)
    assert not [p for p in scene_problems(scene) if "obstacle_" in p]
    assert len(base.obstacles) == len(scene.obstacles) - 3  # the input scene is left as it was
    # the same generator seed gives the same places; a larger count only adds cubes, a smaller keeps them
    again = with_obstacles(base, 3, np.random.default_rng(5))
    assert [c.position for c in random_obstacles(again)] == [c.position for c in cubes]
    more = with_obstacles(scene, 5, np.random.default_rng(9))
    assert [c.position for c in random_obstacles(more)][:3] == [c.position for c in cubes]
    assert len(random_obstacles(more)) == 5
    assert len(random_obstacles(with_obstacles(scene, 1, np.random.default_rng(9)))) == 3


def test_obstacles_are_refused_in_one_line_where_causalworld_has_no_such_variable():
    with pytest.raises(ObstacleError) as wrong_task:
        with_obstacles(default_scene("pushing"), 2, np.random.default_rng(0))
    assert "'pushing' has no such variable" in str(wrong_task.value) and "\n" not in str(wrong_task.value)
    with pytest.raises(ObstacleError, match=r"number_of_obstacles = 6 is outside 0 \.\. 5"):
        with_obstacles(default_scene("reaching"), 6, np.random.default_rng(0))
    with pytest.raises(ObstacleError, match="must be a number"):
        with_obstacles(default_scene("reaching"), "three", np.random.default_rng(0))
    with pytest.raises(ObstacleError, match="outside 0 .. 5"):
        TriFingerBackend(cameras=False, number_of_obstacles=9)
    backend = TriFingerBackend(cameras=False, number_of_obstacles=2)
    try:
        with pytest.raises(ObstacleError, match="'pick_and_place' has no such variable"):
            backend.reset("pick_and_place", 0)
    finally:
        backend.close()


def test_a_random_draw_over_reachings_space_builds_the_obstacles_it_draws():
    """fully_random_protocol.py / random_actor.py draw every variable of the task's space, the task
    variable number_of_obstacles included: the draw's count is what the scene holds."""
    base = with_start_pose(default_scene("reaching"), "causalworld")
    space = task_space(base, "A")
    generator = np.random.default_rng(3)
    raw = sample(Protocol("P10", None, None, "A"), space, generator)
    draw = reconcile(base, raw)
    assert draw["number_of_obstacles"] == int(raw["number_of_obstacles"]) >= 1
    scene, world = apply(base, draw, generator)
    assert "number_of_obstacles" not in world  # a task variable, not a world-level one to write
    assert len(random_obstacles(scene)) == draw["number_of_obstacles"]


def test_the_backend_option_places_the_cubes_in_the_world_and_they_stay_put():
    backend = TriFingerBackend(cameras=False, number_of_obstacles=2)
    try:
        backend.reset("creative_stacked_blocks@P0", 4)
        world = backend.world
        cubes = random_obstacles(world.scene)
        assert len(cubes) == 2 and len(world.obstacle_ids) == 2
        before = [tuple(round(v, 6) for v in c.position) for c in world.obstacle_cuboids()]
        assert before == [tuple(round(v, 6) for v in c.position) for c in cubes]
        # CausalWorld counts every rigid object, the static cubes too: 10 s each
        assert backend.time_limit_steps == 1000 * SECONDS_PER_RIGID_OBJECT * (len(world.block_specs) + 2)
        status = backend.observe().status
        assert "obstacle_1" in (status if isinstance(status, str) else "\n".join(map(str, status)))
        world.hold(world.joint_positions(), 200)
        after = [tuple(round(v, 6) for v in c.position) for c in world.obstacle_cuboids()]
        assert after == before
        record = backend.episode_metrics(None)["interventions"][0]
        assert record == {"by": "number_of_obstacles", "applied": True, "changed": {"number_of_obstacles": 2}}
        # the same seed gives the same places
        backend.reset("creative_stacked_blocks@P0", 4)
        assert [tuple(round(v, 6) for v in c.position) for c in backend.world.obstacle_cuboids()] == before
    finally:
        backend.close()


def test_the_gym_environment_observes_the_obstacles_and_passes_check_env():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import agentkit.envs.gym_registry  # noqa: F401  (registers the ids)

    env = gymnasium.make("agentkit/trifinger-reaching-v0", number_of_obstacles=2).unwrapped
    try:
        check_env(env, skip_render_check=True)
        names = env.observation_names
        # reaching.py appends obstacle_<i>_type/_size/_cartesian_position/_orientation after its targets
        assert (
            names.index("goal_300_cartesian_position[2]")
            < names.index("obstacle_0_type")
            < names.index("obstacle_1_type")
        )
        observation, _ = env.reset(seed=3)
        cube = random_obstacles(env.backend.world.scene)[1]
        start = names.index("obstacle_1_cartesian_position[0]")
        unscaled = (observation[start : start + 3] + 1) / 2 * (0.5 - np.array([-0.5, -0.5, 0.0])) + np.array(
            [-0.5, -0.5, 0.0]
        )
        assert unscaled == pytest.approx(cube.position, abs=1e-4)
    finally:
        env.close()
    with pytest.raises(ObstacleError, match="'pushing' has no such variable"):
        gymnasium.make("agentkit/trifinger-pushing-v0", number_of_obstacles=1)
