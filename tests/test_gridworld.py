"""The gridworld backend against the real MiniGrid/BabyAI: compiling, stepping, observing, reference."""

from __future__ import annotations

import json
import logging

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.actions import Command, CompileError, Script, format_script, parse_script
from agentkit.envs import get_backend
from agentkit.envs.gridworld import VOCABULARY, GridworldBackend, NoReferenceError
from agentkit.envs.gridworld.plan_script import actions_to_commands
from agentkit.envs.gridworld.state import DIRECTIONS
from agentkit.observers import Observation, Observer, ObserverConfig
from agentkit.records import EndReason

LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE, DONE = range(7)
CHATTY_TASK, CHATTY_SEED = "BabyAI-GoToLocal-v0", 8  # this seed rejects a sample and prints about it


@pytest.fixture(scope="module")
def backend():
    b = GridworldBackend(frame="none")
    yield b
    b.close()


@pytest.fixture(scope="module")
def text_observer() -> Observer:
    return Observer(ObserverConfig(views=("ascii", "language")))


def run(backend: GridworldBackend, *commands: Command):
    """Compile and step commands until the episode ends; the last StepResult (or None)."""
    result = None
    for command in commands:
        for action in backend.compile(command):
            result = backend.step(action)
            if result.done:
                return result
    return result


# -- registry, tasks -----------------------------------------------------------------------------


def test_registry_finds_the_backend():
    assert get_backend("gridworld") is GridworldBackend
    assert GridworldBackend.name == "gridworld" and GridworldBackend.template_set == "gridworld"


def test_every_listed_task_is_registered_and_described():
    tasks = GridworldBackend.tasks()
    assert {"BabyAI-GoToLocal-v0", "BabyAI-PickupLoc-v0", "MiniGrid-DoorKey-6x6-v0"} <= {
        t.name for t in tasks
    }
    for task in tasks:
        assert task.name in gymnasium.registry
        assert task.description and "\n" not in task.description


def test_unknown_task_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown gridworld task"):
        GridworldBackend(frame="none").reset("MiniGrid-NoSuchThing-v0", 0)


# -- compile -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "actions"),
    [
        (Command("Go", (1,)), [FORWARD]),
        (Command("Go", (3,)), [FORWARD] * 3),
        (Command("Go", (20,)), [FORWARD] * 20),
        (Command("Turn", (0,)), []),
        (Command("Turn", (90,)), [RIGHT]),
        (Command("Turn", (-90,)), [LEFT]),
        (Command("Turn", (180,)), [RIGHT, RIGHT]),
        (Command("Turn", (-180,)), [LEFT, LEFT]),
        (Command("Turn", (270,)), [LEFT]),
        (Command("Turn", (-270,)), [RIGHT]),
        (Command("Pickup"), [PICKUP]),
        (Command("Drop"), [DROP]),
        (Command("Toggle"), [TOGGLE]),
        (Command("Think", ("the key is to my left",)), []),
        (Command("go", (2,)), [FORWARD] * 2),  # names are matched as the vocabulary says: case-insensitively
    ],
)
def test_compile(backend, command, actions):
    assert backend.compile(command) == actions


@pytest.mark.parametrize(
    "command",
    [
        Command("Go", (0,)),
        Command("Go", (21,)),
        Command("Go", ("far",)),
        Command("Turn", (45,)),
        Command("Turn", (360,)),
        Command("Fly", (1,)),
    ],
)
def test_compile_rejects_what_cannot_be_done(backend, command):
    with pytest.raises(CompileError):
        backend.compile(command)


def test_vocabulary_declares_every_command_with_a_doc():
    assert VOCABULARY.names == ["Go", "Turn", "Pickup", "Drop", "Toggle", "Think"]
    assert all(entry["doc"] for entry in VOCABULARY.describe())


@pytest.mark.parametrize("degrees", [-270, -180, -90, 0, 90, 180, 270])
def test_turn_rotates_clockwise_for_positive_degrees(backend, degrees):
    raw = backend.reset("MiniGrid-Empty-8x8-v0", 0)
    before = DIRECTIONS.index(raw.grid.agent_dir)
    run(backend, Command("Turn", (degrees,)))
    after = backend.observe()
    assert after.grid.agent_dir == DIRECTIONS[(before + degrees // 90) % 4]
    assert after.step == len(backend.compile(Command("Turn", (degrees,))))


def test_go_moves_forward_and_a_right_turn_faces_south(backend):
    raw = backend.reset("MiniGrid-Empty-8x8-v0", 0)
    assert raw.grid.agent_pos == (1, 1) and raw.grid.agent_dir == "east"
    run(backend, Command("Go", (3,)), Command("Turn", (90,)), Command("Go", (2,)))
    after = backend.observe()
    assert after.grid.agent_pos == (4, 3) and after.grid.agent_dir == "south"


# -- reset, step, observe ------------------------------------------------------------------------


def test_reset_is_deterministic_per_seed(backend):
    first = backend.reset("BabyAI-GoToLocal-v0", 7).privileged
    backend.reset("BabyAI-GoToLocal-v0", 8)
    again = backend.reset("BabyAI-GoToLocal-v0", 7).privileged
    assert first == again
    others = [backend.reset("BabyAI-GoToLocal-v0", s).privileged for s in range(3)]
    assert any(o != first for o in others)


def test_fresh_backend_gives_the_same_episode():
    a = GridworldBackend(frame="none").reset("MiniGrid-DoorKey-6x6-v0", 3).privileged
    b = GridworldBackend(frame="none").reset("MiniGrid-DoorKey-6x6-v0", 3).privileged
    assert a == b


def test_stdout_stays_clean_for_a_level_that_rejects_samples(capfd, caplog):
    caplog.set_level(logging.DEBUG, logger="agentkit.envs.gridworld")
    b = GridworldBackend(frame="agent", render_size=64)
    b.reset(CHATTY_TASK, CHATTY_SEED)
    for action in (LEFT, FORWARD, RIGHT, FORWARD, TOGGLE):
        b.step(action)
    b.observe()
    b.close()
    out, _ = capfd.readouterr()
    assert out == ""
    assert any("Sampling rejected" in r.getMessage() for r in caplog.records)  # routed to the log instead


def test_observe_reports_rewards_since_last_observe(backend):
    raw = backend.reset("MiniGrid-Empty-5x5-v0", 0)
    assert raw.step == 0 and raw.reward == 0 and not raw.done and raw.success is None
    assert raw.status["carrying"] == "nothing" and raw.status["steps_left"] == 100
    # Empty-5x5: start (1, 1) facing east, goal at (3, 3).
    result = run(backend, Command("Go", (2,)), Command("Turn", (90,)), Command("Go", (2,)))
    assert result.done and result.success and result.end_reason is EndReason.GOAL
    end = backend.observe()
    assert end.done and end.success and result.reward > 0
    assert end.reward == pytest.approx(result.reward)
    assert end.total_reward == pytest.approx(result.reward)
    assert backend.observe().reward == 0  # already reported
    with pytest.raises(RuntimeError, match="episode is over"):
        backend.step(FORWARD)


def test_stepping_into_lava_is_death(backend):
    raw = backend.reset("MiniGrid-LavaCrossingS9N1-v0", 0)
    assert raw.grid.agent_pos == (1, 1) and raw.grid.agent_dir == "east"
    assert raw.grid.cells[2][2].kind == "lava"
    result = run(backend, Command("Go", (1,)), Command("Turn", (90,)), Command("Go", (1,)))
    assert result.done and not result.success and result.end_reason is EndReason.DIED


def test_running_out_of_steps_is_a_time_limit(backend):
    backend.reset("MiniGrid-Empty-5x5-v0", 0)  # max_steps 100
    results = [backend.step(LEFT) for _ in range(100)]
    assert not any(r.done for r in results[:-1])
    assert results[-1].done and results[-1].end_reason is EndReason.TIME_LIMIT and not results[-1].success


def test_picking_up_the_wrong_object_in_strict_mode_is_failure(backend):
    from minigrid.core.world_object import Ball

    raw = backend.reset("BabyAI-PickupDistDebug-v0", 0)
    assert raw.mission == "pick up the green key"
    env = backend.unwrapped
    assert env.grid.get(*env.front_pos) is None
    env.grid.set(*env.front_pos, Ball("red"))  # a wrong object right in front of the agent
    result = backend.step(PICKUP)
    assert result.done and not result.success and result.end_reason is EndReason.FAILED


def test_seen_mask_grows_and_matches_the_agents_view(backend):
    raw = backend.reset("BabyAI-GoToLocal-v0", 3)
    seen0 = raw.grid.seen.copy()
    assert seen0[raw.grid.agent_pos[1], raw.grid.agent_pos[0]]
    assert 0 < seen0.sum() < seen0.size
    backend.step(LEFT)
    backend.step(LEFT)
    seen2 = backend.observe().grid.seen
    assert (seen2 >= seen0).all() and seen2.sum() > seen0.sum()


def test_observation_privileged_state_is_json_and_complete(backend):
    raw = backend.reset("MiniGrid-DoorKey-6x6-v0", 1)
    state = json.loads(json.dumps(raw.privileged))
    kinds = {o["kind"] for o in state["objects"]}
    assert {"key", "door", "goal"} <= kinds
    assert state["agent_pos"] == list(raw.grid.agent_pos)
    assert raw.grid.width == state["width"] == 6


@pytest.mark.parametrize(("frame", "size"), [("agent", 512), ("full", 200), ("none", 512)])
def test_frames(frame, size):
    b = GridworldBackend(render_size=size, frame=frame)
    raw = b.reset("BabyAI-OpenDoor-v0", 0)  # 22x22 cells: the render has to be scaled
    if frame == "none":
        assert raw.frames == {}
    else:
        view = raw.frames["view"]
        assert view.shape == (size, size, 3) and view.dtype == np.uint8
    b.close()


def test_idle_action_is_configurable():
    assert GridworldBackend(frame="none").idle_actions() == []
    assert GridworldBackend(frame="none", idle_action=DONE).idle_actions() == [DONE]
    with pytest.raises(ValueError):
        GridworldBackend(idle_action=9)


def test_same_task_reuses_the_env(backend):
    backend.reset("BabyAI-GoToObj-v0", 0)
    env = backend.unwrapped
    backend.reset("BabyAI-GoToObj-v0", 1)
    assert backend.unwrapped is env


# -- reference agent -----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE]), max_size=40))
def test_plans_turn_into_commands_that_compile_back_exactly(actions):
    b = GridworldBackend(frame="none")
    compiled = [a for c in actions_to_commands(actions) for a in b.compile(c)]
    assert compiled == actions


def test_script_text_is_canonical():
    text = format_script(
        Script(
            (
                Command("Think", ('say "hi" \\ bye',)),
                Command("Turn", (-90,)),
                Command("Go", (3,)),
                Command("Pickup"),
            )
        ),
        VOCABULARY,
    )
    assert text == 'Think("say \\"hi\\" \\\\ bye"); Turn(-90); Go(3); Pickup();'


def reference_commands(policy, observation: Observation) -> list[Command]:
    """The reference agent's answer read exactly as a model's: its text goes through the parser."""
    text = policy.next_answer(observation)
    script = parse_script(text, VOCABULARY)
    assert isinstance(script, Script), f"reference answer did not parse: {script} in {text!r}"
    return list(script)


def play_reference(backend, policy, observer, task: str, seed: int, max_scripts: int = 30) -> bool:
    raw = backend.reset(task, seed)
    for _ in range(max_scripts):
        commands = reference_commands(policy, observer.observe(raw))
        assert commands and commands[0].name == "Think"
        result = run(backend, *commands)
        if result is not None and result.done:
            return result.success
        raw = backend.observe()
    return False


@pytest.mark.parametrize("task", ["BabyAI-GoToLocal-v0", "BabyAI-PickupLoc-v0"])
def test_reference_agent_solves_babyai_levels(backend, text_observer, task):
    policy = backend.reference_policy()
    wins = sum(play_reference(backend, policy, text_observer, task, seed) for seed in range(50))
    assert wins >= 48, f"{task}: {wins}/50"


@pytest.mark.parametrize(
    "task",
    [
        "BabyAI-PutNextLocal-v0",
        "BabyAI-UnlockLocal-v0",
        "MiniGrid-DoorKey-6x6-v0",
        "MiniGrid-LavaCrossingS9N1-v0",
    ],
)
def test_reference_agent_solves_other_tasks(backend, text_observer, task):
    policy = backend.reference_policy()
    assert all(play_reference(backend, policy, text_observer, task, seed) for seed in range(5))


def test_reference_answer_is_script_text(backend):
    backend.reset("BabyAI-GoToLocal-v0", 2)
    text = backend.reference_policy().next_answer(Observation(step=0))
    assert text.startswith('Think("') and text.endswith(";")
    assert "Go(" in text or "Turn(" in text


def test_reference_resyncs_when_the_script_was_cut_short(backend, caplog):
    """If the loop executes only part of a plan, the next plan starts from the real state."""
    caplog.set_level(logging.INFO, logger="agentkit.envs.gridworld")
    policy = backend.reference_policy()
    backend.reset("BabyAI-GoTo-v0", 1)
    for _ in range(40):
        commands = policy.next_commands()
        moves = [c for c in commands if c.name != "Think"]
        result = run(backend, *moves[: max(1, len(moves) // 2)])  # only half of each script
        if result is not None and result.done:
            break
    assert result.done and result.success
    assert any("out of sync" in r.getMessage() for r in caplog.records)


def test_tasks_without_a_reference_say_so(backend):
    backend.reset("MiniGrid-Unlock-v0", 0)  # aim: open a door, no goal square
    with pytest.raises(NoReferenceError, match="no reference agent"):
        backend.reference_policy().next_answer(Observation(step=0))


def test_local_script_text_matches_the_project_parser_and_formatter():
    commands = [
        Command("Think", ('go to the "red" key \\ now',)),
        Command("Turn", (-180,)),
        Command("Go", (4,)),
        Command("Toggle"),
    ]
    text = 'Think("go to the \\"red\\" key \\\\ now"); Turn(-180); Go(4); Toggle();'  # the old local writer's
    assert list(parse_script(text, VOCABULARY)) == commands
    assert format_script(Script(tuple(commands)), VOCABULARY) == text
