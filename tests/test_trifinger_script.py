"""The API-call vocabulary compiled into joint trajectories, on the real simulator."""

from __future__ import annotations

import numpy as np
import pytest

from agentkit.actions import Command, CompileError, Script, parse_script
from agentkit.envs.trifinger.backend import TriFingerBackend
from agentkit.envs.trifinger.causalworld_robot import REST_JOINTS
from agentkit.envs.trifinger.gym_env import TriFingerGymEnv
from agentkit.envs.trifinger.vocabulary import VOCABULARY
from agentkit.prompts import PromptRenderer


@pytest.fixture(scope="module")
def backend():
    b = TriFingerBackend(cameras=False)
    yield b
    b.close()


def run(backend: TriFingerBackend, text: str) -> None:
    script = parse_script(text, VOCABULARY)
    assert isinstance(script, Script), script
    for command in script:
        for action in backend.compile(command):
            if backend.step(action).done:
                return


def test_scripts_parse_with_keywords_and_commands_compile_to_smooth_joint_actions(backend):
    backend.reset("pushing", 0)
    script = parse_script('Think("lift it"); grasp(block=0); lift(height=0.1); wait(0.2)', VOCABULARY)
    assert [c.name for c in script] == ["Think", "grasp", "lift", "wait"]
    assert backend.compile(Command("Think", ("x",))) == []
    actions = backend.compile(script.commands[1])
    assert all(set(a) == {"q", "ms"} and len(a["q"]) == 9 for a in actions)
    steps = np.array([a["q"] for a in actions])
    assert np.abs(np.diff(steps, axis=0)).max() < 0.15  # no jumps between 20 ms waypoints
    assert isinstance(parse_script("lift(height=0.5)", VOCABULARY), type(parse_script("fly()", VOCABULARY)))


def test_grasp_lift_and_place_carry_a_block(backend):
    backend.reset("pushing", 2)
    start = backend.world.block_cuboids()[0].position
    run(backend, "grasp(block=0); lift(height=0.09)")
    lifted = backend.world.block_cuboids()[0].position
    assert backend.held_block == 0 and lifted[2] > 0.08
    run(backend, "place(0.0, 0.0)")
    placed = backend.world.block_cuboids()[0].position
    assert backend.held_block is None
    assert np.hypot(placed[0], placed[1]) < 0.015 and placed[2] < 0.04
    assert np.hypot(placed[0] - start[0], placed[1] - start[1]) > 0.03


def test_push_slides_a_block_along_the_floor(backend):
    backend.reset("pushing", 4)
    before = np.asarray(backend.world.block_cuboids()[0].position)
    direction = -before[:2] / np.linalg.norm(before[:2])  # towards the centre, where the fingers reach
    run(backend, f"push(block=0, dx={direction[0] * 0.04:.3f}, dy={direction[1] * 0.04:.3f})")
    after = np.asarray(backend.world.block_cuboids()[0].position)
    assert float(np.dot(after[:2] - before[:2], direction)) > 0.02 and after[2] < 0.04


def test_model_mistakes_are_errors_it_can_read(backend):
    backend.reset("pushing", 0)
    with pytest.raises(CompileError, match="no block is grasped"):
        backend.compile(Command("rotate", (0, 20.0)))
    with pytest.raises(CompileError, match="no block is grasped"):
        backend.compile(Command("release", ()))
    run(backend, "move_tip(finger=0, x=0.05, y=0.05, z=0.12); home()")
    assert np.abs(backend.world.target - np.asarray(REST_JOINTS)).max() < 1e-3


def test_the_reference_agent_reaches_with_each_fingertip(backend):
    backend.reset("reaching", 5)
    answer = backend.reference_policy().next_answer(None)
    assert answer.count("move_tip(") == 3
    run(backend, answer)  # ends once CausalWorld counts it reached (mean tip error under 1 cm) ...
    verdict = backend.verdict()
    assert verdict.success and verdict.value < 0.01 and verdict.measure.startswith("causalworld_reaching")


def test_templates_render_the_vocabulary_and_the_state(backend):
    raw = backend.reset("pick_and_place", 0)
    renderer = PromptRenderer.from_set("trifinger")
    context = {
        "commands": VOCABULARY.describe(),
        "max_scripts": 5,
        "has_images": True,
        **backend.prompt_context(),
        "camera_names": ["camera60", "camera180", "camera300"],
    }
    system = renderer.typed_system_message(context).content
    assert "grasp(block)" in system and "camera60, camera180, camera300" in system
    from agentkit.observers.observer import Observer, ObserverConfig

    obs = Observer(ObserverConfig(views=("language",))).observe(raw)
    turn = renderer.typed_turn_message(obs, {"max_scripts": 5}, "rotate(): no block is grasped", 0).content
    assert "Obstacle 0: fixed box" in turn and "no block is grasped" in turn and "Block 0: red cube" in turn


@pytest.mark.parametrize("mode", ["joint_positions", "joint_torques", "end_effector_positions"])
def test_gym_env_offers_the_same_tasks_in_three_action_modes(mode):
    env = TriFingerGymEnv("stacking2", action_mode=mode)
    try:
        obs, info = env.reset(seed=1)
        assert env.observation_space.contains(obs) and info["overlap"] == pytest.approx(0.0, abs=0.05)
        action = (
            env.backend.world.tips().ravel()
            if mode == "end_effector_positions"
            else env.action_space.sample()
        )
        for _ in range(3):
            obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs) and not terminated and not truncated
        assert env.backend.world.steps == 120  # 3 control steps of 10 x 4 ms (CausalWorld's timing)
    finally:
        env.close()
