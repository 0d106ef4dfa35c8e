"""One parse: the reader an episode's replies get, chosen once at set-up, and the loop trusting it.

The reader follows from the control mode and the action format alone (``choose_reader``); the
participant reads each reply once with it, and what it returns is what the turn executes and
stores. The episodes play MiniGrid's empty room (``gridworld/reach-goal-easy``, no frames) with
recorded answers, so no model is called; the scripts and parse errors expected of them are the
ones the loop stored before the reader was chosen once (when frame-by-frame answers were read a
second time, in the loop).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentkit.actions import Command, ParseError, Script, parse_script
from agentkit.actions.tool_calls import script_from_tool_calls
from agentkit.config import ObserverSettings, RunConfig
from agentkit.control import Control, ControlMode, choose_reader, primitive_reader
from agentkit.control.primitive_answer import parse_primitive
from agentkit.envs.gridworld.primitives import PRIMITIVES
from agentkit.envs.gridworld.vocabulary import VOCABULARY
from agentkit.loop import run_episode
from agentkit.messages import ToolCall
from agentkit.models.answer_reader import SCRIPT_READER, TOOL_CALL_READER
from agentkit.models.base import ModelError
from agentkit.models.participant import Answer, ModelParticipant, Participant, as_participant
from agentkit.models.reference_model import ReferenceAgent
from agentkit.models.replay_model import ReplayModel
from agentkit.observers import Observation
from agentkit.offline.replay import HandOverModel
from agentkit.records import ModelReply, TurnRecord, Usage
from agentkit.runs.setup_episode import make_setup

TASK = "gridworld/reach-goal-easy"
NAMES = tuple(p.name for p in PRIMITIVES)
SCRIPT = Control()
FRAMES = Control(ControlMode("frame-by-frame", 1), PRIMITIVES)
SEEN = Observation(step=0)  # what a model participant is handed and never reads


def _reply(text: str = "", calls: tuple[ToolCall, ...] = ()) -> ModelReply:
    return ModelReply(text=text, usage=Usage(), latency_s=0.0, model="m", tool_calls=calls)


def _call(name: str, arguments: dict[str, Any], i: int) -> dict[str, str]:
    return {"id": f"c{i}", "name": name, "arguments": json.dumps(arguments)}


# --- the choice ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("control", "action_format", "expected"),
    [
        (SCRIPT, "text", SCRIPT_READER),
        (SCRIPT, "tools", TOOL_CALL_READER),
        (FRAMES, "text", primitive_reader(NAMES)),
        (Control(ControlMode("frame-by-frame", 4), PRIMITIVES), "text", primitive_reader(NAMES)),
    ],
)
def test_the_reader_follows_the_control_mode_and_the_action_format(control, action_format, expected):
    assert choose_reader(control, action_format) == expected


def test_tool_calls_under_frame_by_frame_control_are_refused_in_one_line():
    with pytest.raises(ValueError, match="--action-format tools is for --control script"):
        choose_reader(FRAMES, "tools")


def test_each_reader_reads_as_the_loop_read_before():
    text = "Go(2); Turn(90);"
    assert SCRIPT_READER.read(_reply(text), VOCABULARY) == parse_script(text, VOCABULARY)
    calls = (ToolCall("Go", '{"n": 2}', "c1"),)
    assert TOOL_CALL_READER.read(_reply(text, calls), VOCABULARY) == script_from_tool_calls(
        list(calls), VOCABULARY
    )
    refused = TOOL_CALL_READER.read(_reply(text), VOCABULARY)  # text is never read as a script in tools
    assert isinstance(refused, ParseError) and refused.code == "no_commands"
    frames = primitive_reader(NAMES)
    for answer in ("forward", "`Right`.", "Go(1)", ""):
        assert frames.read(_reply(answer), VOCABULARY) == parse_primitive(answer, NAMES)


def test_the_episode_setup_chooses_its_reader_from_its_run_settings():
    base = dict(env="gridworld", tasks=[TASK], model="openai/x", backend_options={"frame": "none"})
    for settings, expected in [
        ({}, SCRIPT_READER),
        ({"action_format": "tools"}, TOOL_CALL_READER),
        ({"control": "frame-by-frame:3"}, primitive_reader(NAMES)),
    ]:
        setup = make_setup(RunConfig(**base, **settings), model_factory=lambda backend: ReplayModel([]))
        try:
            assert setup.reader == expected, settings
        finally:
            setup.backend.close()


# --- who reads ----------------------------------------------------------------------------------


def test_a_model_is_wrapped_to_read_with_the_episodes_reader():
    player = as_participant(ReplayModel(["forward"]), primitive_reader(NAMES))
    assert isinstance(player, ModelParticipant) and player.reader == primitive_reader(NAMES)
    assert player.answer([], SEEN, VOCABULARY).parsed == Script((Command("forward"),))


def test_a_participant_made_before_its_episode_is_handed_the_reader():
    hand_over = HandOverModel(["junk"], ReplayModel(["left"]))
    player = as_participant(hand_over, primitive_reader(NAMES))
    first = player.answer([], SEEN, VOCABULARY)
    assert isinstance(first.parsed, ParseError) and first.parsed.code == "not_a_primitive"
    assert player.answer([], SEEN, VOCABULARY).parsed == Script((Command("left"),))


class _Still:
    """A reference policy that never moves (it is not asked here)."""

    def next_commands(self, observation: Observation) -> list[Command]:
        return []


def test_a_participant_that_writes_its_own_scripts_plays_as_it_is():
    agent = ReferenceAgent(_Still())
    assert as_participant(agent, TOOL_CALL_READER) is agent


# --- the loop uses what the participant read ---------------------------------------------------


class _Sink:
    def __init__(self) -> None:
        self.turns: list[TurnRecord] = []

    def add_turn(self, episode_id: str, turn: TurnRecord) -> None:
        self.turns.append(turn)


def _play(settings: dict[str, Any], factory: Any) -> list[TurnRecord]:
    config = RunConfig(
        env="gridworld",
        tasks=[TASK],
        model="openai/fake",
        include_images=False,
        observer=ObserverSettings(views=["ascii"]),
        backend_options={"frame": "none"},
        max_scripts=8,
        **settings,
    )
    setup = make_setup(config, model_factory=factory)
    sink = _Sink()
    try:
        run_episode(setup, TASK, 0, sink=sink)
    finally:
        setup.backend.close()
    return sink.turns


def _read(turns: list[TurnRecord]) -> list[Any]:
    """Each stored turn's script (as [name, args] pairs) or parse-error code."""
    return [
        [[c["name"], c["args"]] for c in t.script] if t.script else (t.parse_error or {})["code"]
        for t in turns
    ]


GO, RIGHT, LEFT = ["forward", []], ["right", []], ["left", []]


@pytest.mark.parametrize(
    ("settings", "factory", "stored"),
    [
        (
            {},
            lambda b: ReplayModel(["Go(1); Turn(90);", "nonsense(", "Go(2)", "forward", "Go(99)"]),
            [[["Go", [1]], ["Turn", [90]]], "no_commands", [["Go", [2]]], "no_commands", "out_of_range"],
        ),
        (
            {"action_format": "tools"},
            lambda b: ReplayModel(
                ["", "x", "", ""],
                tool_calls=[
                    [_call("Go", {"n": 1}, 1)],
                    None,
                    [_call("Fly", {}, 2)],
                    [_call("Turn", {"degrees": 90}, 3), _call("Go", {"n": 1}, 4)],
                ],
            ),
            [[["Go", [1]]], "no_commands", "unknown_command", [["Turn", [90]], ["Go", [1]]]],
        ),
        (
            {"control": "frame-by-frame"},
            lambda b: ReplayModel(["forward", "`Right`.", "Go(1)", "", "forward", "forward"]),
            [[GO], [RIGHT], "not_a_primitive", "empty_answer", [GO], [GO]],
        ),
        (
            {"control": "frame-by-frame:2"},
            lambda b: ReplayModel(["forward", "left", "walk"]),
            [[GO], [LEFT], "not_a_primitive"],
        ),
        (
            {"control": "frame-by-frame"},
            lambda b: HandOverModel(["forward", "junk"], ReplayModel(["right", "forward", "forward"])),
            [[GO], "not_a_primitive", [RIGHT], [GO], [GO]],
        ),
        (
            {"action_format": "tools"},
            lambda b: HandOverModel(
                [""],
                ReplayModel(["", ""], tool_calls=[[_call("Go", {"n": 1}, 5)], None]),
                [[_call("Turn", {"degrees": 90}, 6)]],
            ),
            [[["Turn", [90]]], [["Go", [1]]], "no_commands"],
        ),
    ],
    ids=["script-text", "script-tools", "frames", "frames-2", "hand-over-frames", "hand-over-tools"],
)
def test_a_run_stores_what_it_stored_before_for_each_way_of_reading(settings, factory, stored):
    assert _read(_play(settings, factory)) == stored


class _Insistent:
    """Answers "junk" but means ``forward``, twice: a participant's reading is the turn's, never redone."""

    name = "insistent"
    given = 0

    def answer(self, messages: Any, observation: Any, vocabulary: Any) -> Answer:
        if self.given == 2:
            raise ModelError("no more answers", transient=False)
        self.given += 1
        return Answer(_reply("junk"), Script((Command("forward"),)))


def test_the_loop_executes_and_stores_the_participants_reading_without_reading_again():
    player: Participant = _Insistent()
    turns = _play({"control": "frame-by-frame"}, lambda b: player)
    assert [t.answer for t in turns] == ["junk", "junk"]
    assert _read(turns) == [[GO], [GO]] and all(t.parse_error is None for t in turns)
    assert [t.actions for t in turns] == [[2], [2]]  # MiniGrid's forward, one step per answer
