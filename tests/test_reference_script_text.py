"""The one formatter writes reference agents' Commands exactly as each backend's own writer did.

Transcripts of the reference agent must read the same after the backends' formatters were
replaced by ``agentkit.actions.formatter``: the expected strings below are what the old writers
(``envs/gridworld/script_text.py``, ``animalai_common.reference.format_script``, TriFinger's
``format_command``) produced for these plans. And the typed Script the reference agent plays must
be what its stored text parses to, so nothing it does changed either.
"""

from __future__ import annotations

import pytest

from agentkit.actions import Command, ParseError, Script, parse_script
from agentkit.actions.formatter import format_script
from agentkit.actions.typed_commands import as_written
from agentkit.envs.animalai_common.reference import typed_commands
from agentkit.envs.animalai_common.vocabulary import VOCABULARY as AAI_VOCABULARY
from agentkit.envs.gridworld import VOCABULARY as GRID_VOCABULARY
from agentkit.envs.trifinger.vocabulary import VOCABULARY as TRI_VOCABULARY
from agentkit.models.reference_model import ReferenceAgent
from agentkit.observers import Observation
from agentkit.observers.observer import Observer, ObserverConfig

GRID_PLAN = [
    Command("Think", ('go to the "red" key \\ now',)),
    Command("Turn", (-90,)),
    Command("Go", (3,)),
    Command("Pickup"),
    Command("Toggle"),
    Command("Drop"),
]
GRID_TEXT = 'Think("go to the \\"red\\" key \\\\ now"); Turn(-90); Go(3); Pickup(); Toggle(); Drop();'

AAI_PLAN = [("Think", 'I see a "green" goal'), ("Turn", -30), ("Go", 8), ("Turn", 36.0), ("Go", -2)]
AAI_TEXT = 'Think("I see a \\"green\\" goal"); Turn(-30); Go(8); Turn(36); Go(-2);'

# TriFinger's thoughts quote with ' (the agent's own Commands carry them so); numbers keep 4 decimals.
TRI_PLAN = [
    Command("Think", ("grasp block 0 'gently'",)),
    Command("grasp", (0,)),
    Command("lift", (0.08,)),
    Command("move_to", (0.123456, -0.00001, 0.1)),
    Command("rotate", (1, 0.0)),
    Command("rotate", (0, 45)),
    Command("push", (2, 0.1, -0.05)),
    Command("place", (1.0 / 30, -0.19999)),
    Command("wait", (1.0,)),
    Command("release", ()),
    Command("home", ()),
]
TRI_TEXT = (
    "Think(\"grasp block 0 'gently'\"); grasp(0); lift(0.08); move_to(0.1235, -0, 0.1); rotate(1, 0); "
    "rotate(0, 45); push(2, 0.1, -0.05); place(0.0333, -0.2); wait(1); release(); home();"
)


@pytest.mark.parametrize(
    ("plan", "vocabulary", "text"),
    [
        (GRID_PLAN, GRID_VOCABULARY, GRID_TEXT),
        (typed_commands(AAI_PLAN), AAI_VOCABULARY, AAI_TEXT),
        (TRI_PLAN, TRI_VOCABULARY, TRI_TEXT),
    ],
    ids=["gridworld", "animal-ai", "trifinger"],
)
def test_the_one_formatter_writes_what_each_backend_wrote(plan, vocabulary, text):
    assert format_script(Script(tuple(plan)), vocabulary) == text
    assert as_written(plan, vocabulary) == parse_script(text, vocabulary)  # what is played is what is stored


def test_typed_commands_take_the_parsers_form():
    written = as_written(
        [Command("LIFT"), Command("rotate", (0, 7)), Command("move_to", (0.1, 0.0000001, 0.05))],
        TRI_VOCABULARY,
    )
    assert written == Script(
        (Command("lift", (0.08,)), Command("rotate", (0, 7.0)), Command("move_to", (0.1, 0.0, 0.05)))
    )
    assert isinstance(written.commands[1].args[1], float)


@pytest.mark.parametrize(
    "commands",
    [
        [Command("fly", (1,))],  # unknown
        [Command("grasp", ())],  # a required argument missing
        [Command("grasp", (99,))],  # out of range
        [Command("wait", (float("nan"),))],
        [],
    ],
)
def test_commands_outside_the_vocabulary_are_not_written(commands):
    assert as_written(commands, TRI_VOCABULARY) is None


class _FixedPolicy:
    def __init__(self, commands: list[Command]) -> None:
        self.commands = commands

    def next_commands(self, observation) -> list[Command]:
        return self.commands


def test_a_reference_command_outside_the_vocabulary_gets_the_parsers_error():
    answer = ReferenceAgent(_FixedPolicy([Command("fly", (1,))])).answer(
        [], Observation(step=0), TRI_VOCABULARY
    )
    assert answer.reply.text == "fly(1);"
    assert isinstance(answer.parsed, ParseError) and answer.parsed == parse_script("fly(1);", TRI_VOCABULARY)


def _played_as_stored(backend, task: str, seed: int, turns: int, views: tuple[str, ...]) -> int:
    """Turns where the reference agent's Script equals its stored text parsed (asserted); returns how many."""
    observer = Observer(ObserverConfig(views=views))
    agent = ReferenceAgent(backend.reference_policy())
    observation = observer.observe(backend.reset(task, seed))
    played = 0
    for _ in range(turns):
        answer = agent.answer([], observation, backend.vocabulary)
        assert isinstance(answer.parsed, Script)
        assert parse_script(answer.reply.text, backend.vocabulary) == answer.parsed
        played += 1
        done = False
        for command in answer.parsed:
            for action in backend.compile(command):
                if backend.step(action).done:
                    done = True
                    break
            if done:
                break
        if done:
            break
        observation = observer.observe(backend.observe())
    return played


def test_gridworld_reference_plays_what_it_stores():
    from agentkit.envs.gridworld import GridworldBackend

    backend = GridworldBackend(frame="none")
    assert (
        sum(
            _played_as_stored(backend, task, 0, 10, ("ascii",))
            for task in ("BabyAI-GoToLocal-v0", "MiniGrid-DoorKey-6x6-v0")
        )
        >= 2
    )


def test_arena_reference_plays_what_it_stores():
    from agentkit.envs.arena.backend import ArenaBackend

    backend = ArenaBackend(render_size=32, frames=False)
    try:
        assert _played_as_stored(backend, "04-03-01", 0, 4, ("structured",)) >= 1
    finally:
        backend.close()


def test_trifinger_reference_plays_what_it_stores():
    from agentkit.envs.trifinger.backend import TriFingerBackend

    backend = TriFingerBackend()
    try:
        task = backend.tasks()[0].name
        assert _played_as_stored(backend, task, 0, 3, ("structured",)) >= 1
    finally:
        backend.close()
