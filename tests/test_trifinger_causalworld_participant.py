"""CausalWorld's actors as participants: ``--model causalworld:<actor>`` through ``agentkit run``, the
closed loop every 12 ms inside the backend, the per-step fractional success, and bad names."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agentkit.actions import Command, CompileError, parse_script
from agentkit.actions.controller_command import CONTROLLER_VOCABULARY, controller_script
from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.causalworld_actors import load_actor
from agentkit.envs.trifinger.causalworld_controller import STEP_MS, ActorController, joint_targets
from agentkit.envs.trifinger.kinematics import JOINT_HIGH, JOINT_LOW
from agentkit.envs.trifinger.vocabulary import VOCABULARY
from agentkit.models.controller_agent import ControllerAgent, is_controller_model
from agentkit.testing.cli_runner import run_cli, run_json
from agentkit.transcripts import TranscriptStore

PUSHING = "causalworld:pushing_ppo_curr1"


@pytest.fixture(scope="module")
def backend():
    backend = TriFingerBackend(cameras=False, end_on_success=False)
    yield backend
    backend.close()


def test_the_participant_answers_run_controller_which_no_model_text_can_parse_into():
    agent = ControllerAgent(PUSHING)
    answer = agent.answer([], None, VOCABULARY)  # type: ignore[arg-type]  (it reads neither)
    assert answer.reply.text == 'run_controller("causalworld:pushing_ppo_curr1", 2);'
    assert answer.script == controller_script(PUSHING, 2.0) and answer.reply.usage.cost_usd == 0.0
    assert parse_script(answer.reply.text, CONTROLLER_VOCABULARY) == answer.script
    assert parse_script(answer.reply.text, VOCABULARY).code == "unknown_command"  # not an LLM command
    assert is_controller_model(PUSHING) and not is_controller_model("ollama/llama3:8b")
    assert not is_controller_model("causalworld:") and not is_controller_model("reference")


def test_each_control_step_acts_on_the_fresh_observation_at_12_ms(backend):
    backend.reset("pushing@P0", 0)
    world = backend.world
    controller = ActorController.for_task(PUSHING, world, "pushing", 10.0)
    network = load_actor("pushing_ppo_curr1")
    targets = []
    for step in range(3):
        observation = controller.observation(world, 10.0 - world.elapsed_s)
        assert observation[0] == pytest.approx(1.0 - 2 * step * STEP_MS / 10000.0, abs=1e-6)  # time left
        expected = np.clip(joint_targets(network.act(observation)), JOINT_LOW, JOINT_HIGH)
        assert controller.run(world, STEP_MS, 10000) == 1 and world.steps == (step + 1) * STEP_MS
        np.testing.assert_allclose(world.target, expected, atol=1e-9)
        targets.append(world.target.copy())
    assert not np.allclose(targets[0], targets[2])  # each step's action follows the world as it moved


def test_a_controller_action_runs_its_span_and_records_the_fractional_success_every_step(backend):
    backend.reset("pushing@P0", 0)
    (action,) = backend.compile(Command("run_controller", (PUSHING, 0.6)))
    assert action == {"controller": PUSHING, "ms": 600}
    result = backend.step(action)
    assert backend.world.steps == 50 * STEP_MS and not result.done
    assert set(result.info) == {"fractional_success"} and 0.0 <= result.info["fractional_success"] <= 1.0
    metrics = backend.episode_metrics(None)
    assert metrics["control_step_ms"] == 12 and metrics["control_steps"] == 50
    assert metrics["last_fractional_success"] == metrics["fractional_success"]
    with pytest.raises(
        CompileError, match="reads 37 numbers .trained on reaching., but pushing.s observation has 56"
    ):
        backend.compile(Command("run_controller", ("causalworld:reaching_ppo_curr1", 1.0)))
    with pytest.raises(CompileError, match="seconds must be in"):
        backend.compile(Command("run_controller", (PUSHING, 0.0)))
    with pytest.raises(ValueError, match="controller actions are"):
        backend.step({"controller": "causalworld:other", "ms": 12})


def test_the_episode_ends_at_causalworlds_length_however_long_the_span(backend):
    backend.reset("reaching@P0", 0)
    result = backend.step(
        backend.compile(Command("run_controller", ("causalworld:reaching_ppo_curr1", 60.0)))[0]
    )
    assert result.done and result.end_reason.value == "time_limit"
    assert backend.world.steps == 5004  # 417 steps of 12 ms: the first to reach CausalWorld's 5 s
    assert backend.episode_metrics(None)["control_steps"] == 417  # CausalWorld's int(T / dt) + 1


def test_a_script_episode_records_the_series_at_the_worlds_40_ms_step(backend):
    backend.reset("pushing@P0", 0)
    backend.step({"q": list(backend.world.target), "ms": 400})
    metrics = backend.episode_metrics(None)
    assert metrics["control_step_ms"] == 40 and metrics["control_steps"] == 10


def test_agentkit_run_plays_a_short_pushing_episode_with_the_actor(tmp_path):
    db = f"sqlite:///{tmp_path / 'actor.db'}"
    args = ["run", "--env", "trifinger", "--task", "pushing@P0", "--model", PUSHING, "--max-scripts", "2"]
    data = run_json([*args, "--db", db], tmp_path)
    (episode,) = data["episodes"]
    # on CausalWorld's robot its own actor solves pushing@P0 within the first 2-s turn (ended on success)
    assert data["model"] == PUSHING and episode["end_reason"] == "goal" and episode["scripts"] == 1
    assert episode["success"] and episode["fractional_success"] == pytest.approx(1.0, abs=0.02)
    assert episode["sim_time_s"] == pytest.approx(167 * 0.012)  # one turn of 2 s, in 12-ms steps
    assert episode["control_step_ms"] == 12 and episode["control_steps"] == 167
    assert episode["fractional_success"] == episode["last_fractional_success"] and episode["cost_usd"] == 0.0
    store = TranscriptStore(db)
    try:
        turns = store.get_turns(episode["episode_id"], images="ref")
    finally:
        store.close()
    messages = [m for t in turns for m in t.messages]
    assert messages and "image" not in json.dumps(messages)  # no camera rendered, no image stored
    assert [t.answer for t in turns] == ['run_controller("causalworld:pushing_ppo_curr1", 2);']
    assert [t.actions for t in turns] == [[{"controller": PUSHING, "ms": 2000}]]
    assert all(t.compile_error is None for t in turns)


@pytest.mark.parametrize(
    "env, task, model, expected",
    [
        ("trifinger", "pushing@P0", "causalworld:nope", "no such built-in controller"),
        (
            "trifinger",
            "pushing@P0",
            "causalworld:reaching_ppo_curr1",
            "reads 37 numbers (trained on reaching)",
        ),
        ("gridworld", "empty", PUSHING, "env 'gridworld' has no such built-in controller (it runs none)"),
    ],
)
def test_a_controller_that_cannot_play_is_refused_in_one_line_before_any_episode(
    tmp_path, env, task, model, expected
):
    args = ["run", "--env", env, "--task", task, "--model", model, "--db", f"sqlite:///{tmp_path / 'x.db'}"]
    proc = run_cli(args, tmp_path, check=False)
    assert proc.returncode != 0 and expected in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_with_the_gym_env_the_actor_is_a_function_of_the_same_observation_the_backend_builds():
    from agentkit.envs.trifinger.gym_env import TriFingerGymEnv

    env = TriFingerGymEnv("pick_and_place@P0", settings="reproduce_experiments", clip_observations=False)
    try:
        observation, _ = env.reset(seed=0)
        actor = load_actor("pick_and_place_ppo_curr0")
        world = env.backend.world
        controller = ActorController.for_task(
            "causalworld:pick_and_place_ppo_curr0", world, "pick_and_place", 20.0
        )
        np.testing.assert_array_equal(observation, controller.observation(world, 20.0))
        assert observation[57] == pytest.approx(12.4286, abs=1e-4)  # the wall's width, unclipped
        for _ in range(2):
            observation, *_ = env.step(actor(observation))
        assert env.backend.world.steps == 24  # two steps of CausalWorld's 12 ms
        np.testing.assert_array_equal(observation, controller.observation(world, 20.0 - 0.024))
    finally:
        env.close()


def test_a_controller_needs_no_key_no_price_and_no_frames_and_refuses_modes_it_cannot_play():
    from pydantic import ValidationError

    from agentkit.config import RunConfig
    from agentkit.models.price_check import has_price
    from agentkit.runs.preflight import check_model_access
    from agentkit.runs.setup_episode import needs_frames
    from agentkit.runs.worker import cpu_bound

    config = RunConfig(env="trifinger", tasks=["pushing@P0"], model=PUSHING)
    assert not needs_frames(config) and cpu_bound(PUSHING) and has_price(PUSHING)
    check_model_access(PUSHING, None, "AGENTKIT_TEST_UNSET_KEY_VARIABLE")  # no key is asked for
    for option, expected in (
        ({"action_format": "tools"}, "is a built-in controller"),
        ({"control": "frame-by-frame"}, "built-in controller"),
    ):
        with pytest.raises(ValidationError, match=expected):
            RunConfig(env="trifinger", tasks=["pushing@P0"], model=PUSHING, **option)


def test_a_policy_file_in_the_actors_format_plays_as_causalworld_path(tmp_path):
    """What bench/trifinger_ppo.py writes for the agent it trains is played by the same path."""
    import shutil

    from agentkit.envs.trifinger.causalworld_actors import actor_path

    policy = tmp_path / "my_pushing_policy.zip"
    shutil.copyfile(actor_path("pushing_ppo_curr1"), policy)
    db = f"sqlite:///{tmp_path / 'file.db'}"
    model = f"causalworld:{policy}"
    args = ["run", "--env", "trifinger", "--task", "pushing@P0", "--model", model, "--max-scripts", "1"]
    data = run_json([*args, "--db", db], tmp_path)
    (episode,) = data["episodes"]
    assert data["model"] == model and episode["success"]
    missing = run_cli([*args[:6], f"causalworld:{tmp_path / 'none.zip'}", "--db", db], tmp_path, check=False)
    assert missing.returncode != 0 and "cannot read the policy file" in missing.stderr
    other_task = run_cli([*args[:4], "reaching@P0", "--model", model, "--db", db], tmp_path, check=False)
    assert other_task.returncode != 0 and "reads 56 numbers (trained on its own task)" in other_task.stderr
