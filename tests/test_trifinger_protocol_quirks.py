"""CausalWorld's episode-to-episode carry-over in protocol draws (issue 28 item 6).

Sampling only (collision checks, no physics stepping). The facts come from CausalWorld's
task_generators/pushing.py, picking.py, pick_and_place.py (``_adjust_variable_spaces_after_intervention``),
base_task.py (``apply_interventions``, ``reset_task``) and evaluation/evaluation.py (one env for
every protocol and episode); see ``envs/trifinger/protocol_carry_over.py``.
"""

from __future__ import annotations

import pytest

from agentkit.envs.trifinger import protocol_carry_over
from agentkit.envs.trifinger.protocol_carry_over import EPISODES_PER_PROTOCOL, carry_over_mode, size_drawn
from agentkit.envs.trifinger.sampling import draw_protocol
from agentkit.envs.trifinger.tasks import default_scene

SEEDS = range(30)


def _size(task: str, protocol: str, seed: int) -> float | None:
    """The block height seed's own independent draw set (None: it moved things, no size)."""
    size = (
        draw_protocol(task, protocol, seed, carry_over="none").intervention.get("tool_block", {}).get("size")
    )
    return None if size is None else size[2]


def _goal_gap(draw) -> float:
    goal = draw.scene.goals[0]
    return goal.position[2] - goal.size[2] / 2


def _same_side(draw) -> bool:
    return draw.scene.blocks[0].position[1] * draw.scene.goals[0].position[1] > 0


def test_pick_and_place_p4_puts_block_and_goal_on_one_side_only_on_a_fresh_env():
    # Fresh env: the initial sector puts the block at +y, where the default goal is. In the paper's
    # sequence P3's size draws have moved the sectors to the default sides first, and agentkit's
    # independent draw keeps them opposite.
    assert all(_same_side(draw_protocol("pick_and_place", "P4", s, carry_over="protocol")) for s in SEEDS)
    for mode in ("benchmark", "none"):
        for protocol in ("P4", "P5"):
            assert not any(
                _same_side(draw_protocol("pick_and_place", protocol, s, carry_over=mode)) for s in SEEDS
            )


@pytest.mark.parametrize("protocol", ["P5", "P8"])
def test_a_fresh_env_refuses_every_goal_position_of_pick_and_place(protocol):
    # Its initial goal sector runs from -30 to -150 degrees (low above high): base_task.py's bounds
    # check refuses every goal position, and ProtocolWrapper runs the episode unintervened after 6 tries.
    base = default_scene("pick_and_place")
    for seed in range(5):
        draw = draw_protocol("pick_and_place", protocol, seed, carry_over="protocol")
        assert "out of bounds" in draw.refused and draw.intervention == {} and draw.attempts == 6
        assert draw.scene.goals[0].position == base.goals[0].position
        assert draw.scene.blocks[0].position == base.blocks[0].position
        assert not draw_protocol("pick_and_place", protocol, seed).refused  # P3 has reordered it
    # P10: position draws are refused and redrawn until a size draw is accepted, which reorders the
    # sectors for every later episode
    first = draw_protocol("pick_and_place", "P10", 0, carry_over="protocol")
    assert "size" in first.intervention["tool_block"] and not first.refused
    later = [draw_protocol("pick_and_place", "P10", s, carry_over="protocol") for s in range(1, 10)]
    assert not any(d.refused for d in later) and any(
        "size" not in d.intervention["tool_block"] for d in later
    )


@pytest.mark.parametrize("task,protocol", [("pushing", "P10"), ("pushing", "P11"), ("pick_and_place", "P11")])
def test_a_position_episode_keeps_the_height_of_the_last_size_episode(task, protocol):
    seen_position = False
    for seed in range(1, 30):
        draw = draw_protocol(task, protocol, seed)  # the causalworld profile: the benchmark sequence
        if "size" in draw.intervention.get("tool_block", {}):
            assert _goal_gap(draw) == pytest.approx(0.0, abs=1e-9)  # a size draw rests both on the floor
            continue
        earlier = next((s for s in range(seed - 1, -1, -1) if _size(task, protocol, s) is not None), None)
        if earlier is None:
            continue  # inherited from the protocol before; checked below for P5
        seen_position = True
        size = _size(task, protocol, earlier)
        goal, block = draw.scene.goals[0], draw.scene.blocks[0]
        assert goal.size[2] == pytest.approx(default_scene(task).goals[0].size[2])  # reset gave it back
        assert goal.position[2] == pytest.approx(size / 2), (seed, earlier)  # the old pinned height
        assert block.position[2] == pytest.approx(block.size[2] / 2)  # the rigid block starts resting
        assert draw.inherited_from == f"{protocol} episode {earlier}"
        if protocol == "P11":  # space B sizes (7.5-9.5 cm) are all taller than the default 6.5 cm
            assert _goal_gap(draw) > 0.005 - 1e-9
    assert seen_position


def test_p5_inherits_p3s_last_size_in_the_benchmark_sequence_and_not_on_a_fresh_env():
    last_p3 = _size("pushing", "P3", EPISODES_PER_PROTOCOL - 1)
    for seed in (0, 7):
        draw = draw_protocol("pushing", "P5", seed)
        assert draw.scene.goals[0].position[2] == pytest.approx(last_p3 / 2)
        assert draw.inherited_from == f"P3 episode {EPISODES_PER_PROTOCOL - 1}"
        fresh = draw_protocol("pushing", "P5", seed, carry_over="protocol")
        assert _goal_gap(fresh) == pytest.approx(0.0, abs=1e-9) and not fresh.inherited_from


def test_picking_goals_may_come_lower_after_a_size_draw():
    # picking.py: a size draw sets the low end of the goal's height range to half the new height.
    last_p3 = _size("picking", "P3", EPISODES_PER_PROTOCOL - 1)
    heights = [draw_protocol("picking", "P5", seed).scene.goals[0].position[2] for seed in SEEDS]
    assert all(last_p3 / 2 - 1e-9 <= z <= 0.20 + 1e-9 for z in heights)
    assert any(z < 0.08 for z in heights)
    fresh = [
        draw_protocol("picking", "P5", s, carry_over="protocol").scene.goals[0].position[2] for s in SEEDS
    ]
    assert all(0.08 - 1e-9 <= z <= 0.20 + 1e-9 for z in fresh)
    # the edit reaches space B too (all three spaces are adjusted): P6's goals are no longer all 20 cm up
    space_b = [draw_protocol("picking", "P6", seed).scene.goals[0].position[2] for seed in SEEDS]
    assert all(last_p3 / 2 - 1e-9 <= z <= 0.25 + 1e-9 for z in space_b) and any(z < 0.20 for z in space_b)


@pytest.mark.parametrize("task,protocol", [("pushing", "P10"), ("pick_and_place", "P11"), ("picking", "P10")])
def test_carry_over_none_is_the_independent_draw(task, protocol):
    assert carry_over_mode(None, "agentkit") == "none" and carry_over_mode(None, "causalworld") == "benchmark"
    for seed in SEEDS:
        draw = draw_protocol(task, protocol, seed, carry_over="none")
        assert not draw.inherited_from
        if task != "picking":
            assert _goal_gap(draw) == pytest.approx(0.0, abs=1e-9)
        if task == "pick_and_place":
            assert not _same_side(draw)
    for seed in range(3):  # the agentkit profile draws without carry-over unless asked
        default = draw_protocol(task, protocol, seed, "agentkit").to_json()
        assert default == draw_protocol(task, protocol, seed, "agentkit", carry_over="none").to_json()


def test_draws_are_reproducible_per_seed_whatever_was_drawn_before():
    first = draw_protocol("pushing", "P11", 9).to_json()
    protocol_carry_over.clear_cache()
    for seed in range(9):
        draw_protocol("pushing", "P11", seed)
    assert draw_protocol("pushing", "P11", 9).to_json() == first
    protocol_carry_over.clear_cache()
    assert draw_protocol("pushing", "P11", 9).to_json() == first


@pytest.mark.parametrize("task,protocol", [("pick_and_place", "P10"), ("pushing", "P11"), ("picking", "P10")])
def test_an_episodes_carried_draw_makes_the_same_size_decision_as_its_independent_draw(task, protocol):
    # The look-back reads earlier seeds' independent draws; their carried draws must agree with it.
    for seed in SEEDS:
        carried = draw_protocol(task, protocol, seed).intervention.get("tool_block", {}).get("size")
        assert (None if carried is None else carried[2]) == size_drawn(task, protocol, seed, "causalworld")


def test_an_unknown_carry_over_is_refused_in_one_line():
    with pytest.raises(ValueError, match="carry_over must be one of benchmark, protocol, none"):
        draw_protocol("pushing", "P10", 0, carry_over="always")
    assert protocol_carry_over.inherited("stacking2", "P10", 5, "benchmark", "causalworld").size_z is None


def test_an_episode_records_what_it_inherited_and_scene_for_takes_the_mode():
    from agentkit.envs.trifinger.backend import TriFingerBackend
    from agentkit.envs.trifinger.protocols import scene_for

    fresh, _, plan = scene_for("pushing@P5", 0, "causalworld", "protocol")
    assert plan is not None and plan.draw.carry_over == "protocol"
    assert fresh.goals[0].position[2] == pytest.approx(fresh.goals[0].size[2] / 2)
    backend = TriFingerBackend(cameras=False)
    try:
        backend.reset("pushing@P5", 0)
        (record,) = backend._interventions
        assert record["carry_over"] == "benchmark"
        assert record["inherited_from"] == f"P3 episode {EPISODES_PER_PROTOCOL - 1}"
        last_p3 = _size("pushing", "P3", EPISODES_PER_PROTOCOL - 1)
        assert backend.world.goal_specs[0].position[2] == pytest.approx(last_p3 / 2)
    finally:
        backend.close()


def test_a_failed_look_back_is_not_remembered(monkeypatch):
    from agentkit.envs.trifinger import sampling

    protocol_carry_over.clear_cache()
    with monkeypatch.context() as patched:
        patched.setattr(sampling, "scene_problems", lambda scene: ["refused"])
        with pytest.raises(sampling.ProtocolDrawError):
            draw_protocol("pushing", "P5", 0)  # its look-back at P3 episode 199 fails too
    assert draw_protocol("pushing", "P5", 0).inherited_from == f"P3 episode {EPISODES_PER_PROTOCOL - 1}"


def test_a_refused_draw_is_recorded_with_its_reason():
    from agentkit.envs.trifinger.backend import TriFingerBackend
    from agentkit.envs.trifinger.protocols import ProtocolPlan

    draw = draw_protocol("pick_and_place", "P5", 0, carry_over="protocol")
    backend = TriFingerBackend(cameras=False)
    try:
        backend.reset("pick_and_place", 0)
        record = ProtocolPlan(draw).apply(backend)
        assert record["applied"] is False and "out of bounds" in record["reason"]
        assert record["carry_over"] == "protocol"
    finally:
        backend.close()


def test_the_backend_and_the_gym_env_take_the_carry_over_mode():
    import gymnasium

    import agentkit.envs.gym_registry  # noqa: F401
    from agentkit.envs.trifinger.backend import TriFingerBackend

    heights = {}
    for mode in ("benchmark", "none"):
        backend = TriFingerBackend(cameras=False, carry_over=mode)
        try:
            backend.reset("pushing@P5", 0)
            heights[mode] = backend.world.goal_specs[0].position[2]
        finally:
            backend.close()
    # the paper's sequence: P5 inherits P3's last size, so its goal is pinned to that half height
    assert heights["none"] == pytest.approx(0.0325) and heights["benchmark"] != pytest.approx(0.0325)
    env = gymnasium.make("agentkit/trifinger-pushing-v0", task="pushing@P5", carry_over="none")
    try:
        env.reset(seed=0)
        assert env.unwrapped.backend.world.goal_specs[0].position[2] == pytest.approx(0.0325)
    finally:
        env.close()
    with pytest.raises(ValueError, match="carry_over must be one of benchmark, protocol, none"):
        TriFingerBackend(cameras=False, carry_over="sometimes")
