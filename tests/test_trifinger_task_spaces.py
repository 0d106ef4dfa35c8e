"""Each task's own CausalWorld spaces (task_generators/*.py overrides of base_task.py), and the
``agentkit tasks trifinger --protocol`` preview that shows what a protocol draws."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from agentkit.envs.trifinger.task_spaces import task_space
from agentkit.envs.trifinger.tasks import default_scene


def test_base_ranges_are_causalworlds():
    a, b = task_space(default_scene("pushing"), "A"), task_space(default_scene("pushing"), "B")
    assert a["tool_block"]["mass"] == (0.015, 0.045) and b["tool_block"]["mass"] == (0.045, 0.1)
    assert a["tool_block"]["size"] == ([0.055] * 3, [0.075] * 3) and b["goal_block"]["size"] == (
        [0.075] * 3,
        [0.095] * 3,
    )
    assert a["floor_friction"] == (0.3, 0.6) and b["stage_friction"] == (0.6, 0.8)
    assert a["stage_color"] == ([0.0] * 3, [0.5] * 3) and b["stage_color"] == ([0.5] * 3, [1.0] * 3)
    assert "gravity" not in a and "gravity" not in b  # base_task.py puts gravity in no space
    ab = task_space(default_scene("pushing"), "A_B")
    assert ab["tool_block"]["mass"] == (0.015, 0.1) and ab["floor_friction"] == (0.3, 0.8)
    with pytest.raises(ValueError, match="variable space must be one of A, B, A_B"):
        task_space(default_scene("pushing"), "C")


def test_pushing_pins_floor_heights_and_picking_moves_its_goal_in_height():
    for space in ("A", "B"):
        pushing = task_space(default_scene("pushing"), space)
        for name in ("tool_block", "goal_block"):
            low, high = pushing[name]["cylindrical_position"]
            assert low[2] == high[2] == pytest.approx(0.0325)  # pushing.py: size[-1] / 2
    a, b = task_space(default_scene("picking"), "A"), task_space(default_scene("picking"), "B")
    assert (a["goal_block"]["cylindrical_position"][0][2], a["goal_block"]["cylindrical_position"][1][2]) == (
        0.08,
        0.20,
    )
    assert (b["goal_block"]["cylindrical_position"][0][2], b["goal_block"]["cylindrical_position"][1][2]) == (
        0.20,
        0.25,
    )
    # picking does not pin its block: base_task.py lets it start up to 0.15 m (A) / 0.3 m (B) and fall
    assert (
        a["tool_block"]["cylindrical_position"][1][2] == 0.15
        and b["tool_block"]["cylindrical_position"][1][2] == 0.3
    )


def test_pick_and_place_sectors_lie_on_opposite_sides_and_the_wall_height_varies():
    scene = default_scene("pick_and_place")  # block at -y, goal at +y
    a = task_space(scene, "A")
    (r0, t0, _), (r1, t1, _) = a["tool_block"]["cylindrical_position"]
    (g0, u0, _), (g1, u1, _) = a["goal_block"]["cylindrical_position"]
    assert (r0, r1) == (0.07, 0.12) and (g0, g1) == (0.07, 0.12)
    assert math.sin(t0) < 0 and math.sin(t1) < 0 and math.sin(u0) > 0 and math.sin(u1) > 0
    assert t0 == pytest.approx(-5 * math.pi / 6) and t1 == pytest.approx(-math.pi / 6)
    assert a["obstacle"]["size"] == ([0.5, 0.015, 0.02], [0.5, 0.015, 0.065])
    assert task_space(scene, "B")["obstacle"]["size"][1][2] == 0.1
    assert task_space(scene, "B")["tool_block"]["cylindrical_position"][0][0] == 0.12


def test_stacking2_has_one_goal_tower_and_no_sizes():
    space = task_space(default_scene("stacking2"), "A")
    assert (
        space["goal_tower"]["cylindrical_position"][0][2]
        == space["goal_tower"]["cylindrical_position"][1][2]
        == 0.065
    )
    assert set(space["goal_block_1"]) == {"color"} and "size" not in space["tool_block_1"]
    assert set(space["tool_block_2"]) == {"cylindrical_position", "euler_orientation", "color", "mass"}


def test_task_level_variables():
    towers = task_space(default_scene("towers"), "A")
    assert towers["number_of_blocks_in_tower"] == ([1, 1, 1], [4, 4, 4]) and towers["tower_center"][0] == [
        -0.1,
        -0.1,
    ]
    assert task_space(default_scene("towers"), "B")["tower_dims"] == ([0.12] * 3, [0.20] * 3)
    general = task_space(default_scene("general"), "B")
    assert general["nums_objects"] == (6, 9) and general["tool_block_size"] == (0.04, 0.05)
    assert task_space(default_scene("creative_stacked_blocks"), "A")["stack_levels"] == (3, 5)
    assert task_space(default_scene("stacked_blocks"), "A")["stack_levels"] == (1, 5)
    assert task_space(default_scene("reaching"), "A")["number_of_obstacles"] == (1, 5)


def _agentkit(*args: str) -> subprocess.CompletedProcess:
    wide = {**os.environ, "COLUMNS": "300"}  # the table folds long cells on a narrow terminal
    return subprocess.run(
        [sys.executable, "-m", "agentkit.cli", *args], capture_output=True, text=True, timeout=120, env=wide
    )


def test_cli_shows_what_a_protocol_draws():
    result = _agentkit("tasks", "trifinger", "--protocol", "P8", "--sample", "3", "--json")
    assert result.returncode == 0, result.stderr
    entries = json.loads(result.stdout)
    assert {e["task"] for e in entries} == {"pushing", "picking", "pick_and_place", "stacking2"}
    assert len(entries) == 12 and [e["seed"] for e in entries[:3]] == [0, 1, 2]
    first = entries[0]
    assert first["protocol"] == "P8" and first["space"] == "B"
    assert set(first["intervention"]["tool_block"]) == {"cylindrical_position", "mass"}
    assert first["blocks"][0]["mass"] == pytest.approx(first["intervention"]["tool_block"]["mass"], abs=1e-5)
    # the goal on the floor, at the height P3's last size draw pinned (protocol_carry_over, benchmark)
    assert first["carry_over"] == "benchmark" and first["inherited_from"] == "P3 episode 199"
    assert abs(first["goals"][0]["position"][2] - first["goals"][0]["size"][2] / 2) <= 0.005 + 1e-5
    table = _agentkit("tasks", "trifinger", "--protocol", "P5", "--sample", "2", "--task", "picking")
    assert (
        table.returncode == 0
        and "goal_block.cylindrical_position" in table.stdout
        and "picking" in table.stdout
    )
    bad = _agentkit("tasks", "trifinger", "--protocol", "P3", "--task", "stacking2")
    assert bad.returncode != 0 and "unknown protocol 'P3' for task stacking2" in bad.stderr + bad.stdout
    assert "Traceback" not in bad.stderr
    other = _agentkit("tasks", "gridworld", "--protocol", "P1")
    assert other.returncode != 0 and "--protocol is for the trifinger backend" in other.stderr + other.stdout


# ------------------------------------------------------------------------- default scenes


def test_stacked_walls_are_causalworlds_default_walls_of_3_5_cm_cubes():
    stacked = default_scene("stacked_blocks")
    assert len(stacked.blocks) == len(stacked.goals) == 35  # 5 levels x int(0.25 / 0.035) = 7
    assert {b.size for b in stacked.blocks} == {(0.035,) * 3} and {b.mass for b in stacked.blocks} == {0.08}
    assert sorted({round(g.position[2], 4) for g in stacked.goals}) == [
        0.0175,
        0.0525,
        0.0875,
        0.1225,
        0.1575,
    ]
    assert {g.position[1] for g in stacked.goals} == {0.0}
    creative = default_scene("creative_stacked_blocks")
    assert len(creative.blocks) == 24  # 8 levels x int(0.12 / 0.035) = 3
    # only the first and the last level are shown
    assert (
        sorted({round(g.position[2], 4) for g in creative.goals}) == [0.0175, 0.2625]
        and len(creative.goals) == 6
    )
    for scene in (stacked, creative):  # blocks rest on alternating sides, never floating
        for block in scene.blocks:
            assert abs(block.position[1]) == pytest.approx(0.1)
            assert (block.position[2] - 0.0175) / 0.035 == pytest.approx(
                round((block.position[2] - 0.0175) / 0.035)
            )


def test_towers_general_and_reaching_defaults():
    towers = default_scene("towers")
    # towers.py: on the diagonal from (-0.12, -0.12), a block (3.5 cm) plus 5 mm apart
    assert [c for b in towers.blocks for c in b.position[:2]] == pytest.approx(
        [-0.12, -0.12, -0.08, -0.08, -0.04, -0.04, 0.0, 0.0, 0.04, 0.04]
    )
    assert {b.mass for b in towers.blocks} == {0.08} and len(towers.goals) == 5
    general = default_scene("general")
    assert len(general.blocks) == 5 and {b.size for b in general.blocks} == {(0.05,) * 3}
    assert {b.mass for b in general.blocks} == {0.08}
    # the goal is where the dropped cubes came to rest: on the floor or on each other, none in the air
    for goal in general.goals:
        assert 0.024 < goal.position[2] < 0.1
    assert default_scene("general").goals == general.goals  # deterministic
    reaching = default_scene("reaching")
    assert reaching.tip_goals == [(0.0, 0.0, 0.10), (0.0, 0.0, 0.13), (0.0, 0.0, 0.16)]


@pytest.mark.parametrize(
    "task",
    [
        "pushing",
        "picking",
        "pick_and_place",
        "stacking2",
        "towers",
        "stacked_blocks",
        "creative_stacked_blocks",
        "general",
        "reaching",
    ],
)
def test_default_and_sampled_scenes_never_start_a_block_inside_the_robot(task):
    from agentkit.envs.trifinger.sampling import scene_problems
    from agentkit.envs.trifinger.tasks import generate

    problems = scene_problems(default_scene(task))
    if task == "general":
        # general.py drops block 2 from (0.05, 0.05, 0.3) onto the raised fingertips (0.27 m up, at the
        # centre): it bounces off them and comes to rest outside the arena box, as in CausalWorld's drop
        problems = [p for p in problems if "outside the arena box" not in p]
    assert problems == []
    for seed in range({"general": 8, "towers": 20}.get(task, 50)):  # general drops its goal with physics
        assert scene_problems(generate(task, seed)) == [], seed


def test_sampled_stacked_piles_follow_causalworlds_random_target():
    from agentkit.envs.trifinger.tasks import generate

    for seed in range(30):
        scene = generate("stacked_blocks", seed)
        side = scene.goals[0].size[2]
        assert 0.035 <= side <= 0.065 and {g.size[1] for g in scene.goals} == {side}
        assert len({g.position[1] for g in scene.goals}) == 1  # the whole pile stands at one y
        levels: dict[int, list] = {}
        for goal in scene.goals:
            level = round((goal.position[2] - side / 2) / side)
            assert goal.position[2] == pytest.approx((level + 0.5) * side)
            levels.setdefault(level, []).append(goal)
        assert sorted(levels) == list(range(len(levels))) and 1 <= len(levels) <= 4
        for level in range(1, len(levels)):  # _is_stable_structure: centres over the level below
            below = levels[level - 1]
            low = min(g.position[0] - g.size[0] / 2 for g in below)
            high = max(g.position[0] + g.size[0] / 2 for g in below)
            assert all(low - 1e-9 <= g.position[0] <= high + 1e-9 for g in levels[level])
        assert sorted(b.size for b in scene.blocks) == sorted(g.size for g in scene.goals)
    creative = generate("creative_stacked_blocks", 3)
    assert len(creative.blocks) > len(creative.goals)  # only the first and last levels are shown
