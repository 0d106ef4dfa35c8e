"""The TriFinger score: volumetric overlap on oriented cuboids, and CausalWorld's AABB approximation."""

from __future__ import annotations

import math

import pytest

from agentkit.envs.trifinger.geometry import Cuboid, cube_yaw_error, yaw_of, yaw_quaternion
from agentkit.envs.trifinger.overlap import aabb_overlap, overlap, volumetric_overlap

CUBE = (0.065, 0.065, 0.065)
GOAL = Cuboid((0.02, -0.03, 0.0325), CUBE, yaw_quaternion(0.3))


def test_a_block_exactly_on_its_goal_scores_one_in_both_modes():
    block = Cuboid(GOAL.position, CUBE, GOAL.orientation)
    assert volumetric_overlap([block], [GOAL]) == pytest.approx(1.0)
    assert aabb_overlap([block], [GOAL]) == pytest.approx(1.0)


def test_a_block_yawed_45_degrees_scores_the_octagon_ratio_but_aabb_says_one():
    goal = Cuboid((0.0, 0.0, 0.0325), CUBE)
    block = Cuboid((0.0, 0.0, 0.0325), CUBE, yaw_quaternion(math.pi / 4))
    exact = 2 * (math.sqrt(2) - 1)  # 0.828
    assert volumetric_overlap([block], [goal]) == pytest.approx(exact, abs=0.02)
    assert overlap([block], [goal], "causalworld_aabb") == pytest.approx(1.0)


@pytest.mark.parametrize("shift", [0.005, 0.0325, 0.06])
def test_a_shifted_block_scores_the_shared_slab(shift):
    goal = Cuboid((0.0, 0.0, 0.0325), CUBE)
    block = Cuboid((shift, 0.0, 0.0325), CUBE)
    assert volumetric_overlap([block], [goal]) == pytest.approx(max(0.0, 1 - shift / 0.065), abs=0.01)


def test_blocks_overlapping_one_goal_count_once_and_disjoint_blocks_score_zero():
    goal = Cuboid((0.0, 0.0, 0.0325), CUBE)
    twice = [Cuboid((0.0, 0.0, 0.0325), CUBE), Cuboid((0.0, 0.0, 0.0325), CUBE)]
    assert volumetric_overlap(twice, [goal]) == pytest.approx(1.0)
    assert aabb_overlap(twice, [goal]) == pytest.approx(2.0)  # CausalWorld's measure double counts
    assert volumetric_overlap([Cuboid((0.1, 0.1, 0.0325), CUBE)], [goal]) == 0.0


def test_goals_are_weighted_by_volume():
    small = Cuboid((0.0, 0.0, 0.01), (0.02, 0.02, 0.02))
    big = Cuboid((0.1, 0.0, 0.0325), CUBE)
    score = volumetric_overlap([Cuboid(big.position, CUBE)], [small, big])
    assert score == pytest.approx(big.volume / (big.volume + small.volume), abs=0.01)


def test_unknown_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="overlap mode must be one of"):
        overlap([], [GOAL], "exactish")


def test_yaw_helpers_round_trip_and_wrap_by_the_cube_symmetry():
    assert yaw_of(yaw_quaternion(1.0)) == pytest.approx(1.0)
    assert cube_yaw_error(0.0, math.radians(100)) == pytest.approx(math.radians(10))
