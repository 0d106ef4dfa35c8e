"""API calls (go_to, pickup, open, put_next_to, explore) on the real MiniGrid: they reach what was
seen, refuse what was not, and say why in words the model can act on."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.actions import Command, CompileError, Script, parse_script
from agentkit.envs.gridworld import VOCABULARY, GridworldBackend
from agentkit.envs.gridworld.api_calls import parse_target
from agentkit.envs.gridworld.api_vocabulary import API_VOCABULARY
from agentkit.envs.gridworld.seen_planner import KnownMap
from agentkit.envs.gridworld.state import DIRECTIONS, grid_view
from agentkit.observers.grid_geometry import DIRECTION_VECTORS


@pytest.fixture(scope="module")
def backend():
    b = GridworldBackend(frame="none", commands="api")
    yield b
    b.close()


def run(backend, command: Command):
    """Compile one command against the current state and step it; the last StepResult (or None)."""
    result = None
    for action in backend.compile(command):
        result = backend.step(action)
        if result.done:
            break
    return result


def attempt(backend, command: Command, max_explores: int = 25):
    """Run ``command``; while it fails for want of having seen its target, explore() and retry."""
    for _ in range(max_explores):
        try:
            return run(backend, command)
        except CompileError as exc:
            if "seen yet" not in exc.message and "cannot be reached" not in exc.message:
                raise
            result = run(backend, Command("explore"))
            if result is not None and result.done:
                return result
    raise AssertionError(f"{command} never became possible")


def test_api_vocabulary_keeps_the_primitives_and_parses_calls():
    assert set(VOCABULARY.names) <= set(API_VOCABULARY.names)
    script = parse_script(
        'go_to("red key"); pickup("blue ball"); Pickup(); open("yellow door"); '
        'put_next_to("ball", "box"); explore(); Go(2);',
        API_VOCABULARY,
    )
    assert isinstance(script, Script)
    assert [c.name for c in script] == ["go_to", "Pickup", "Pickup", "open", "put_next_to", "explore", "Go"]
    assert script.commands[2].args == ("",)
    with pytest.raises(ValueError, match="commands must be"):
        GridworldBackend(commands="macros")


def test_primitive_backend_does_not_accept_api_calls():
    assert isinstance(parse_script('go_to("red key")', VOCABULARY), type(parse_script("Fly()", VOCABULARY)))


@pytest.mark.parametrize(
    ("text", "kind", "color"),
    [
        ("red key", "key", "red"),
        ("the Yellow door", "door", "yellow"),
        ("ball", "ball", None),
        ("green goal square", "goal", "green"),
        ("gray box", "box", "grey"),
    ],
)
def test_targets_are_read_from_words(text, kind, color):
    target = parse_target(text, Command("go_to", (text,)))
    assert (target.kind, target.color) == (kind, color)


@pytest.mark.parametrize("text", ["banana", "red", "big red key", ""])
def test_unreadable_targets_say_how_to_name_things(text):
    with pytest.raises(CompileError, match='name an object as "\\[colour\\] kind"'):
        parse_target(text, Command("go_to", (text,)))


def _goto_target(mission: str) -> str:
    return re.fullmatch(r"go to (?:the|a) (.+)", mission).group(1)


@pytest.mark.parametrize("task", ["gridworld/goto-local-hard", "gridworld/goto-object-hard"])
def test_go_to_with_explore_solves_goto_levels(backend, task):
    wins = 0
    for seed in range(8):
        raw = backend.reset(task, seed)
        result = attempt(backend, Command("go_to", (_goto_target(raw.mission),)))
        wins += bool(result is not None and result.success)
    assert wins == 8


def test_pickup_open_and_go_to_solve_door_key(backend):
    for seed in range(6):
        raw = backend.reset("gridworld/door-key-hard", seed)
        color = next(o["color"] for o in raw.privileged["objects"] if o["kind"] == "key")
        attempt(backend, Command("Pickup", (f"{color} key",)))
        assert backend.observe().grid.carrying.color == color
        attempt(backend, Command("open", (f"{color} door",)))
        result = attempt(backend, Command("go_to", ("goal",)))
        assert result is not None and result.success, seed


def test_put_next_to_solves_put_next_levels(backend):
    wins = 0
    for seed in range(8):
        raw = backend.reset("gridworld/put-next-medium", seed)
        what, anchor = re.fullmatch(r"put the (.+) next to the (.+)", raw.mission).groups()
        result = attempt(backend, Command("put_next_to", (what, anchor)))
        wins += bool(result is not None and result.success)
    assert wins >= 7


def test_nothing_seen_is_an_actionable_error(backend):
    backend.reset("gridworld/reach-goal-medium", 0)
    with pytest.raises(CompileError, match="no red key seen yet; explore"):
        backend.compile(Command("go_to", ("red key",)))


def test_api_calls_never_use_unseen_cells(backend):
    """The goal exists from the start, but it must be seen before go_to can head for it."""
    raw = backend.reset("gridworld/door-key-easy", 1)
    goal = next(o["pos"] for o in raw.privileged["objects"] if o["kind"] == "goal")
    assert not raw.grid.seen[goal[1], goal[0]]
    with pytest.raises(CompileError, match="no goal square seen yet"):
        backend.compile(Command("go_to", ("goal",)))
    known = KnownMap(raw.grid)
    assert known.cell(tuple(goal)).kind == "unseen"
    # With the whole map revealed, the same call plans (so the refusal was about knowledge).
    full = grid_view(backend.unwrapped, np.ones_like(raw.grid.seen))
    from agentkit.envs.gridworld.api_calls import go_to

    with pytest.raises(CompileError, match="cannot be reached"):  # seen now, but behind the locked door
        go_to(full, Command("go_to", ("goal",)))


def test_locked_door_needs_its_key_and_full_hands_cannot_pick_up(backend):
    raw = backend.reset("gridworld/door-key-easy", 1)  # a locked yellow door and the yellow key in view
    assert raw.grid.carrying is None
    with pytest.raises(CompileError, match="locked; pick up a yellow key first"):
        backend.compile(Command("open", ("yellow door",)))
    run(backend, Command("Pickup", ("yellow key",)))
    with pytest.raises(CompileError, match="hands are full \\(you carry the yellow key\\)"):
        backend.compile(Command("Pickup", ("yellow key",)))
    with pytest.raises(CompileError, match="only pick up keys, balls and boxes"):
        backend.compile(Command("Pickup", ("yellow door",)))
    run(backend, Command("open", ("yellow door",)))
    door = backend.observe().grid
    assert any(c is not None and c.kind == "door" and c.state == "open" for row in door.cells for c in row)
    with pytest.raises(CompileError, match="already open"):
        backend.compile(Command("open", ("yellow door",)))


def test_explore_reveals_cells_until_nothing_is_left(backend):
    raw = backend.reset("gridworld/reach-goal-medium", 3)
    seen = [int(raw.grid.seen.sum())]
    for _ in range(40):
        try:
            result = run(backend, Command("explore"))
        except CompileError as exc:
            assert "everything you can reach has been seen" in exc.message
            break
        seen.append(int(backend.observe().grid.seen.sum()))
        assert seen[-1] > seen[-2]
        if result is not None and result.done:
            break
    else:
        raise AssertionError("explore() never finished")
    assert backend.observe().grid.seen.all()


def test_compile_errors_reach_the_model_through_the_loop():
    """A failing call stops the script and its message is the next turn's feedback."""
    from agentkit.loop import _execute

    b = GridworldBackend(frame="none", commands="api")
    b.reset("gridworld/reach-goal-easy", 0)
    script = parse_script('Turn(90); go_to("purple ball"); Go(1);', b.vocabulary)
    execution = _execute(b, script, [], {})
    assert execution.actions == [1]  # the turn ran, the rest did not
    assert execution.compile_error == "no purple ball seen yet; explore() or turn to look around first"
    b.close()


@pytest.mark.parametrize("task", ["gridworld/lava-crossing-hard", "gridworld/dist-shift-medium"])
def test_go_to_and_explore_never_step_into_lava(backend, task):
    for seed in range(5):
        backend.reset(task, seed)
        result = attempt(backend, Command("go_to", ("goal",)), max_explores=40)
        assert result is not None and result.success, (task, seed, result and result.end_reason)


def test_valid_commands_follow_what_is_in_front(backend):
    raw = backend.reset("gridworld/door-key-easy", 1)  # facing the yellow key
    assert raw.status["commands_useful_now"] == "Turn, Pickup, go_to, open, put_next_to, explore, Think"
    primitives = GridworldBackend(frame="none")
    assert (
        primitives.reset("gridworld/door-key-easy", 1).status["commands_useful_now"] == "Turn, Pickup, Think"
    )
    run(backend, Command("Pickup"))
    after = backend.observe().status["commands_useful_now"].split(", ")
    assert {"Go", "Drop"} <= set(after) and "Pickup" not in after
    primitives.close()


@settings(max_examples=40, deadline=None)
@given(
    task=st.sampled_from(
        ["gridworld/goto-object-hard", "gridworld/key-corridor-medium", "gridworld/synth-easy"]
    ),
    seed=st.integers(0, 10_000),
    wander=st.lists(st.sampled_from([0, 1, 2]), max_size=30),
)
def test_planned_paths_only_cross_cells_seen_when_planning(task, seed, wander):
    """Whatever was seen, every step a go_to plan takes enters a cell that was seen and free."""
    b = GridworldBackend(frame="none", commands="api")
    b.reset(task, seed)
    for action in wander:
        if b.step(action).done:
            return
    grid = b.observe().grid
    known = KnownMap(grid)
    for _pos, cell in known.things():
        name = f"{cell.color} {cell.kind}" if cell.color else cell.kind
        try:
            actions = b.compile(Command("go_to", (name,)))
        except CompileError:
            continue
        x, y = grid.agent_pos
        d = DIRECTIONS.index(grid.agent_dir)
        for action in actions:
            if action == 0:
                d = (d - 1) % 4
            elif action == 1:
                d = (d + 1) % 4
            else:
                x, y = x + DIRECTION_VECTORS[DIRECTIONS[d]][0], y + DIRECTION_VECTORS[DIRECTIONS[d]][1]
                assert grid.seen[y, x] and known.walkable((x, y)), (task, seed, name, (x, y))
    b.close()
