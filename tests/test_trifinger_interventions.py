"""Do-interventions on TriFinger worlds: spaces A/B, refusal, rollback, protocols P0-P11, curricula."""

from __future__ import annotations

import math

import pytest

from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.interventions import apply_intervention
from agentkit.envs.trifinger.protocols import BENCHMARKS, protocol_suites
from agentkit.envs.trifinger.variables import WorldVariables
from agentkit.loop import EpisodeLimits, EpisodeSetup, run_episode
from agentkit.observers.observer import Observer, ObserverConfig
from agentkit.prompts import PromptRenderer
from agentkit.records import ModelReply


class ScriptedModel:
    """Answers every turn with the same short script (the loop's model interface, no network)."""

    name = "scripted"

    def __init__(self, text: str) -> None:
        self.text = text

    def complete(self, messages) -> ModelReply:
        return ModelReply(text=self.text)


@pytest.fixture(scope="module")
def backend():
    b = TriFingerBackend(cameras=False)
    yield b
    b.close()


def test_every_variable_can_be_read_and_written(backend):
    backend.reset("stacking2", 0)
    variables = WorldVariables(backend.world)
    values = variables.read_all()
    assert {
        "gravity",
        "floor_friction",
        "stage_friction",
        "floor_color",
        "stage_color",
        "joint_positions",
    } <= set(values)
    assert set(values["block0"]) == {"cylindrical_position", "euler_orientation", "size", "color", "mass"}
    assert set(values["goal1"]) == {"cylindrical_position", "euler_orientation", "size", "color"}
    assert set(values["finger_lower_link_120"]) == {"color", "mass"}
    result = apply_intervention(
        backend.world,
        {
            "gravity": [0.0, 0.0, -8.0],
            "floor_friction": 0.4,
            "block0": {"mass": 0.03, "color": [0.6, 0.7, 0.8]},
            "finger_upper_link_0": {"mass": 0.03},
        },
        space="A",
    )
    assert result.applied, result.reason
    assert variables.read("gravity") == [0.0, 0.0, -8.0]
    assert variables.read("floor_friction") == pytest.approx(0.4)
    assert variables.read("block0", "mass") == pytest.approx(0.03)
    assert variables.read("finger_upper_link_0", "mass") == pytest.approx(0.03)


def test_an_out_of_space_intervention_is_refused_and_changes_nothing(backend):
    backend.reset("pushing", 0)
    variables = WorldVariables(backend.world)
    before = variables.read("block0", "mass")
    result = apply_intervention(backend.world, {"block0": {"mass": 0.08}}, space="A")
    assert result.refused and not result.applied and "outside space A" in result.reason
    assert variables.read("block0", "mass") == before
    assert apply_intervention(backend.world, {"block0": {"mass": 0.08}}, space="B").applied
    assert apply_intervention(backend.world, {"moon_phase": 1.0}).refused


def test_an_infeasible_intervention_is_rolled_back(backend):
    backend.reset("stacking2", 0)
    variables = WorldVariables(backend.world)
    first = variables.read("block0", "cylindrical_position")
    second = variables.read("block1", "cylindrical_position")
    # Put block 1 where block 0 is: both in space A, but the blocks would interpenetrate.
    result = apply_intervention(backend.world, {"block1": {"cylindrical_position": first}}, space="A")
    assert result.rolled_back and not result.applied and "interpenetrate" in result.reason
    assert variables.read("block1", "cylindrical_position") == pytest.approx(second, abs=1e-6)
    # A goal outside the arena (no space restriction) is rolled back too.
    result = apply_intervention(
        backend.world, {"goal0": {"cylindrical_position": [0.3, 0.0, 0.0325]}}, space=None
    )
    assert result.rolled_back and "outside the arena" in result.reason
    assert variables.read("goal0", "cylindrical_position")[0] < 0.15


def test_resizing_a_block_rebuilds_it_in_place(backend):
    backend.reset("pushing", 0)
    variables = WorldVariables(backend.world)
    r, theta, _ = variables.read("block0", "cylindrical_position")
    result = apply_intervention(
        backend.world, {"block0": {"size": [0.07] * 3, "cylindrical_position": [r, theta, 0.035]}}
    )
    assert result.applied, result.reason
    assert backend.world.block_cuboids()[0].size == pytest.approx((0.07, 0.07, 0.07))


@pytest.mark.parametrize("protocol", list(BENCHMARKS["pushing"]))
def test_each_protocol_builds_and_runs_one_episode(backend, protocol):
    setup = EpisodeSetup(
        backend=backend,
        observer=Observer(ObserverConfig(views=("language",))),
        renderer=PromptRenderer.from_set("trifinger", include_images=False),
        model=ScriptedModel('Think("watch"); wait(0.05);'),
        limits=EpisodeLimits(max_scripts=1),
    )
    result = run_episode(setup, f"pushing@{protocol}", seed=7)
    assert result.scripts == 1 and result.metrics["protocol"] == protocol
    records = result.metrics["interventions"]
    if protocol == "P0":
        assert records == [{"by": "P0", "applied": False, "reason": "nothing to change"}]
    else:
        assert records and records[0]["by"] == protocol and records[0]["applied"], records


def test_protocol_suites_and_bad_names():
    suites = protocol_suites()
    # benchmarks.py: stacking2 has no P3, reaching has P0, P5 and P12 only
    assert suites["pushing-protocols"][0] == "pushing@P0" and len(suites["stacking2-protocols"]) == 11
    assert suites["reaching-protocols"] == ["reaching@P0", "reaching@P5", "reaching@P12"]
    with pytest.raises(ValueError, match="unknown protocol 'P12'"):
        TriFingerBackend(cameras=False).reset("pushing@P12", 0)
    with pytest.raises(ValueError, match="unknown protocol 'P3'.*stacking2 has P0, P1, P2, P4"):
        TriFingerBackend(cameras=False).reset("stacking2@P3", 0)


def test_a_curriculum_intervenes_on_its_schedule():
    b = TriFingerBackend(
        cameras=False, curriculum={"actors": ["goal"], "episode_start": 1, "episode_periodicity": 2}
    )
    try:
        goals = []
        for episode in range(4):
            b.reset("pushing", 0)
            goals.append(b.world.goal_cuboids()[0].position)
            assert bool(b._interventions) == (episode in (1, 3))
        assert goals[0] == goals[2] and goals[1] != goals[0]
    finally:
        b.close()
    with pytest.raises(ValueError, match="curriculum.actors"):
        TriFingerBackend(cameras=False, curriculum={"actors": ["gremlin"]})


def test_space_b_moves_blocks_farther_out_than_space_a(backend):
    backend.reset("pushing@P6", 11)
    (record,) = backend._interventions
    radius = record["changed"]["tool_block"]["cylindrical_position"][0]  # CausalWorld's name for block0
    assert 0.11 <= radius <= 0.15 and not math.isnan(radius)
