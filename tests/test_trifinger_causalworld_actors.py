"""CausalWorld's trained actors: the zips read without pickle, the numpy forward pass, bad files, and
the observation each actor reads, checked slot by slot against numbers taken from CausalWorld's source
(rr-learning/CausalWorld: ``task_generators/*.py`` observation keys, ``envs/robot/observations.py`` and
``envs/scene/objects.py`` / ``silhouette.py`` bounds, ``base_task.py`` time left)."""

from __future__ import annotations

import io
import json
import math
import zipfile

import numpy as np
import pytest

from agentkit.envs.trifinger import observation_vector as ov
from agentkit.envs.trifinger.causalworld_actors import (
    ACTORS,
    ActorFileError,
    actor_path,
    load_actor,
    read_actor_zip,
)
from agentkit.envs.trifinger.state_snapshot import WorldState, body

REST = np.array([0.0, math.pi / 4, -math.pi / 4] * 3)  # CausalWorld's rest pose (envs/robot/trifinger.py)
UPRIGHT = (0.0, 0.0, 0.0, 1.0)
CUBE = (0.065, 0.065, 0.065)


def _raw_arrays(name: str) -> dict[str, np.ndarray]:
    with zipfile.ZipFile(actor_path(name)) as archive:
        with np.load(io.BytesIO(archive.read("parameters")), allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}


# -- loading and the forward pass -------------------------------------------------------------


@pytest.mark.parametrize(
    "name, size, hidden, fixed",
    [
        ("pushing_ppo_curr1", 56, (256, 256), {28: 1.0, 45: 20.0}),
        ("picking_ppo_curr1", 56, (256, 256), {28: 1.0, 45: 20.0}),
        ("reaching_ppo_curr1", 37, (256, 128), {}),
        ("stacking2_ppo_curr1", 84, (256, 256), {28: 1.0, 45: 1.0, 62: 20.0, 73: 20.0}),
        ("pick_and_place_ppo_curr0", 67, (256, 256), {28: 1.0, 45: 20.0, 56: 10.0}),
    ],
)
def test_each_shipped_actor_loads_with_its_sizes_and_unscaled_type_slots(name, size, hidden, fixed):
    actor = load_actor(name)
    assert (actor.observation_size, actor.hidden_sizes, actor.action_size) == (size, hidden, 9)
    assert actor.fixed_slots() == fixed  # the data's observation_space: types are the equal bounds
    assert np.all(actor.action_low == -1.0) and np.all(actor.action_high == 1.0)


def test_the_forward_pass_is_the_matrix_chain_of_the_raw_arrays_clipped_to_the_action_bounds():
    raw = _raw_arrays("pushing_ppo_curr1")
    observation = np.linspace(-1.0, 1.0, 56)
    hidden = np.tanh(observation @ raw["model/shared_fc0/w:0"] + raw["model/shared_fc0/b:0"])
    hidden = np.tanh(hidden @ raw["model/shared_fc1/w:0"] + raw["model/shared_fc1/b:0"])
    mean = hidden @ raw["model/pi/w:0"] + raw["model/pi/b:0"]
    action = load_actor("pushing_ppo_curr1").act(observation)
    assert action.shape == (9,) and action.dtype == np.float32
    np.testing.assert_allclose(action, np.clip(mean, -1.0, 1.0), atol=1e-5)
    zeros_mean = np.tanh(
        np.tanh(raw["model/shared_fc0/b:0"]) @ raw["model/shared_fc1/w:0"] + raw["model/shared_fc1/b:0"]
    )
    zeros_mean = zeros_mean @ raw["model/pi/w:0"] + raw["model/pi/b:0"]
    assert np.abs(zeros_mean).max() > 1.0  # this observation's mean leaves the bounds: predict clips it
    np.testing.assert_allclose(
        load_actor("pushing_ppo_curr1").act(np.zeros(56)), np.clip(zeros_mean, -1, 1), atol=1e-5
    )
    batch = load_actor("pushing_ppo_curr1").act(np.stack([observation, np.zeros(56)]))
    assert batch.shape == (2, 9) and np.allclose(batch[0], action)


def test_an_observation_of_the_wrong_size_is_one_clear_line():
    with pytest.raises(ValueError, match="pushing_ppo_curr1 reads 56 numbers"):
        load_actor("pushing_ppo_curr1").act(np.zeros(37))
    with pytest.raises(ValueError, match="unknown CausalWorld actor 'pushing'"):
        actor_path("pushing")


def _rewrite(tmp_path, name="broken.zip", drop=(), replace=None):
    """A copy of the pushing zip with entries dropped or replaced."""
    replace = replace or {}
    out = tmp_path / name
    with zipfile.ZipFile(actor_path("pushing_ppo_curr1")) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            if info.filename in drop:
                continue
            target.writestr(info.filename, replace.get(info.filename, source.read(info.filename)))
    return out


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **{k.replace("/", "|"): v for k, v in arrays.items()})
    # np.savez cannot take '/' in names; rename the members as stable-baselines stores them
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    renamed = io.BytesIO()
    with zipfile.ZipFile(renamed, "w") as target:
        for info in source.infolist():
            target.writestr(info.filename.replace("|", "/"), source.read(info.filename))
    return renamed.getvalue()


def _bad_files(tmp_path):
    raw = _raw_arrays("pushing_ppo_curr1")
    wrong = dict(raw, **{"model/pi/w:0": raw["model/pi/w:0"][:, :8]})
    pickled = dict(raw, **{"model/pi/b:0": np.array([object()] * 9, dtype=object)})
    data = json.loads(zipfile.ZipFile(actor_path("pushing_ppo_curr1")).read("data"))
    data["policy_kwargs"]["net_arch"] = [{"pi": [64], "vf": [64]}]
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(actor_path("pushing_ppo_curr1").read_bytes()[:5000])
    return [
        (tmp_path / "absent.zip", "absent.zip: cannot read"),
        (truncated, "truncated.zip: not a zip file"),
        (_rewrite(tmp_path, "nodata.zip", drop=("data",)), "nodata.zip: entry 'data' is missing"),
        (
            _rewrite(tmp_path, "text.zip", replace={"data": b"\x80not json"}),
            "text.zip: entry 'data' is not JSON",
        ),
        (
            _rewrite(tmp_path, "shape.zip", replace={"parameters": _npz(wrong)}),
            "parameter 'model/pi/w:0' has shape",
        ),
        (
            _rewrite(tmp_path, "pickle.zip", replace={"parameters": _npz(pickled)}),
            "pickle.zip: entry 'parameters'",
        ),
        (
            _rewrite(tmp_path, "arch.zip", replace={"data": json.dumps(data)}),
            "arch.zip: data field policy_kwargs",
        ),
        (
            _rewrite(tmp_path, "names.zip", replace={"parameter_list": b'["x"]'}),
            "names.zip: entry 'parameters' holds",
        ),
    ]


def test_bad_actor_files_fail_in_one_line_naming_the_file_and_the_entry(tmp_path):
    for path, expected in _bad_files(tmp_path):
        with pytest.raises(ActorFileError) as caught:
            read_actor_zip(path)
        message = str(caught.value)
        assert expected in message and "\n" not in message, (path.name, message)


# -- the observation each actor reads ------------------------------------------------------------

ROBOT = ["time_left_for_task", "joint_positions", "joint_velocities", "end_effector_positions"]
BLOCK = ["type", "size", "cartesian_position", "orientation", "linear_velocity", "angular_velocity"]
GOAL = ["type", "size", "cartesian_position", "orientation"]
#: task_generators/<task>.py ``_task_robot_observation_keys`` + ``_task_stage_observation_keys``.
KEYS = {
    "pushing": ROBOT + [f"tool_block_{k}" for k in BLOCK] + [f"goal_block_{k}" for k in GOAL],
    "picking": ROBOT + [f"tool_block_{k}" for k in BLOCK] + [f"goal_block_{k}" for k in GOAL],
    "reaching": ROBOT + [f"goal_{a}_cartesian_position" for a in (60, 120, 300)],
    "stacking2": ROBOT
    + [f"tool_block_{i}_{k}" for i in (1, 2) for k in BLOCK]
    + [f"goal_block_{i}_{k}" for i in (1, 2) for k in GOAL],
    "pick_and_place": ROBOT
    + [f"tool_block_{k}" for k in BLOCK]
    + [f"goal_block_{k}" for k in GOAL]
    + [f"obstacle_{k}" for k in GOAL],
}
COUNTS = {  # blocks, goals, fixed obstacles, CausalWorld's episode length (10 s per rigid object; reaching 5 s)
    "pushing": (1, 1, 0, 10.0),
    "picking": (1, 1, 0, 10.0),
    "reaching": (0, 0, 0, 5.0),
    "stacking2": (2, 2, 0, 20.0),
    "pick_and_place": (1, 1, 1, 20.0),
}


@pytest.mark.parametrize("name, family", sorted(ACTORS.items()))
def test_our_vector_has_causalworlds_keys_in_order_and_each_actors_size_and_type_slots(name, family):
    entries = ov.layout(family, *COUNTS[family])
    assert [e.name for e in entries] == KEYS[family]
    actor = load_actor(name)
    assert len(ov.names(entries)) == actor.observation_size
    low, high = ov.bounds(entries)
    fixed = {i: float(low[i]) for i in np.flatnonzero(low == high)}
    types = {i: float(high[i]) for i, n in enumerate(ov.names(entries)) if n.endswith("_type")}
    assert fixed == {} and types == actor.fixed_slots()  # our Box gives types [0, id]; the values agree


def _state(blocks, goals, obstacles=(), tip_goals=(), joints=REST, velocities=None, tips=None):
    return WorldState(
        joint_positions=np.asarray(joints, dtype=float),
        joint_velocities=np.zeros(9) if velocities is None else np.asarray(velocities, dtype=float),
        joint_torques=np.zeros(9),
        tips=np.zeros((3, 3)) if tips is None else np.asarray(tips, dtype=float),
        blocks=list(blocks),
        goals=list(goals),
        obstacles=list(obstacles),
        tip_goals=np.asarray(tip_goals, dtype=float).reshape(-1, 3),
    )


def test_pushing_defaults_give_causalworlds_numbers():
    # pushing.py defaults: tool block at (0, -0.08, 0.0325), goal at (0, 0.08, 0.0325), 6.5 cm cubes
    entries = ov.layout("pushing", 1, 1, 0, 10.0)
    tips = [[0.1, 0.0, 0.25], [0.0, -0.2, 0.0], [-0.5, 0.5, 0.5]]
    state = _state(
        [body((0, -0.08, 0.0325), UPRIGHT, CUBE, linear=(0.25, 0, 0), angular=(0, 0, math.pi / 2))],
        [body((0, 0.08, 0.0325), UPRIGHT, CUBE)],
        velocities=[25.0, -50.0, 0, 0, 0, 0, 0, 0, 10.0],
        tips=tips,
    )
    vector = ov.vector(entries, state, time_left=7.5)
    expected = np.array(
        [0.5]  # time left 7.5 of 10 s: 2 * 7.5 / 10 - 1
        # joints [0, pi/4, -pi/4] in [-1.57, -1.2, -3] .. [1, 1.57, 3]
        + [2 * 1.57 / 2.57 - 1, 2 * (math.pi / 4 + 1.2) / 2.77 - 1, 2 * (3 - math.pi / 4) / 6 - 1] * 3
        + [0.5, -1.0, 0, 0, 0, 0, 0, 0, 0.2]  # velocities / 50
        + [0.2, 0.0, 0.0, 0.0, -0.4, -1.0, -1.0, 1.0, 1.0]  # tips in [-0.5, 0.5]^2 x [0, 0.5]
        + [1.0, 0.0, 0.0, 0.0, 0.0, -0.16, -0.87, 0.0, 0.0, 0.0, 0.1, 0.5, 0.0, 0.0, 0.0, 0.0, 0.5]
        + [20.0, 0.0, 0.0, 0.0, 0.0, 0.16, -0.87, 0.0, 0.0, 0.0, 0.1]
    )
    np.testing.assert_allclose(vector, expected, atol=1e-5)


def test_pick_and_place_sees_its_wall_unclipped_as_causalworld_does():
    # pick_and_place.py: the wall is a static cube 0.5 x 0.015 x 0.065 m at (0, 0, 0.0325), type 10; the
    # size bounds are 0.03..0.1 (objects.py) and nothing clips: 2 (0.5 - 0.03) / 0.07 - 1 = 12.43
    entries = ov.layout("pick_and_place", 1, 1, 1, 20.0)
    wall = body((0, 0, 0.0325), UPRIGHT, (0.5, 0.015, 0.065))
    state = _state(
        [body((0, -0.09, 0.0325), UPRIGHT, CUBE)], [body((0, 0.09, 0.0325), UPRIGHT, CUBE)], [wall]
    )
    unclipped = ov.vector(entries, state, time_left=20.0, clip=False)
    np.testing.assert_allclose(
        unclipped[-11:], [10.0, 94 / 7 - 1, -3 / 7 - 1, 0.0, 0.0, 0.0, -0.87, 0, 0, 0, 0.1], atol=1e-5
    )
    assert unclipped[0] == pytest.approx(1.0) and unclipped[33] == pytest.approx(-0.18)  # tool block y
    clipped = ov.vector(entries, state, time_left=20.0)
    np.testing.assert_allclose(clipped[-10:-7], [1.0, -1.0, 0.0], atol=1e-6)


def test_reaching_reads_its_three_goal_positions_after_the_robot():
    # reaching.py defaults: goal_60 (0, 0, 0.10), goal_120 (0, 0, 0.13), goal_300 (0, 0, 0.16)
    entries = ov.layout("reaching", 0, 0, 0, 5.0)
    state = _state([], [], tip_goals=[[0, 0, 0.10], [0, 0, 0.13], [0, 0, 0.16]])
    vector = ov.vector(entries, state, time_left=5.0 - 0.012)  # after one step of 12 ms
    assert vector[0] == pytest.approx(2 * (5.0 - 0.012) / 5.0 - 1)
    np.testing.assert_allclose(vector[28:], [0, 0, -0.6, 0, 0, -0.48, 0, 0, -0.36], atol=1e-6)


def test_stacking2_lists_both_blocks_then_both_goals():
    # stacking2.py defaults: blocks at (0, 0, 0.0325) and (0.01, 0.08, 0.0325); goals at (-0.06, -0.06)
    # with heights 0.0325 and 0.0975
    entries = ov.layout("stacking2", 2, 2, 0, 20.0)
    state = _state(
        [body((0, 0, 0.0325), UPRIGHT, CUBE), body((0.01, 0.08, 0.0325), UPRIGHT, CUBE)],
        [body((-0.06, -0.06, 0.0325), UPRIGHT, CUBE), body((-0.06, -0.06, 0.0975), UPRIGHT, CUBE)],
    )
    vector = ov.vector(entries, state, time_left=20.0)
    assert [vector[i] for i in (28, 45, 62, 73)] == [1.0, 1.0, 20.0, 20.0]
    np.testing.assert_allclose(vector[49:52], [0.02, 0.16, -0.87], atol=1e-6)
    np.testing.assert_allclose(vector[77:80], [-0.12, -0.12, -0.61], atol=1e-6)
