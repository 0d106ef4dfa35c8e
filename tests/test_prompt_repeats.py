"""Every packaged template set, rendered on every backend it was written for, says each thing once
and gives each label one meaning.

Why: a prompt that repeats a line ("Mission: ..." from the template and again from the status
block), names one fact twice ("Task:" and "Mission:" with the same sentence) or uses one label for
two things ("Valid commands" for the commands useful now in the status block and for the whole
vocabulary in a parse error) wastes context and confuses the model. So each set is played through
the real loop on its real backend (pybullet arena, MiniGrid, TriFinger; the Unity backend on the
packaged stand-in build that speaks the Unity protocol) by a participant whose answers give a first
turn, a later turn and a turn after a parse error, in each control mode and answer format the set
supports. Every prompt it is sent (the system message with that turn's user message) is checked:

- no non-blank line occurs twice;
- no value stands under two labels (``Label: value`` lines);
- every label is one of ``LABELS`` below, which says what it means, and the labels whose meaning was
  once mixed up are checked against it: ``Commands`` always lists the whole vocabulary,
  ``Commands useful now`` only names commands of it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import pytest

from agentkit.config import RunConfig
from agentkit.loop import run_episode
from agentkit.messages import ToolCall
from agentkit.models.dict_model import OpenAIDictModel
from agentkit.prompts.template_sets import get_set, set_names
from agentkit.records import EndReason, ModelReply
from agentkit.runs.setup_episode import make_setup

JUNK = "I would rather not say."  # no command in it: a parse error, fed back on the next turn

# Every label a packaged prompt may use, and what it means. A new label goes here with its meaning;
# a label that means two things cannot be written down here once.
LABELS: dict[str, str] = {
    # status block (agentkit.observers.status and the backends' status fields)
    "Step": "the environment step the observation was taken at",
    "Reward since last turn": "reward gained since the previous prompt",
    "Total reward": "reward gained since the episode began",
    "Health": "the agent's health (Animal-AI)",
    "Mission": "the task's instruction in words",
    "Carrying": "what the gridworld agent holds",
    "Steps left": "gridworld steps before the world's own limit",
    "Commands useful now": "names of the commands that would change something at this moment",
    "Position": "the agent's position (Animal-AI)",
    "Velocity": "the agent's velocity (Animal-AI)",
    "Time left": "steps (Animal-AI) or seconds (TriFinger) before the episode's time runs out",
    "Lights": "whether the arena's lights are on",
    "Goal overlap": "the exact oriented overlap of blocks with the goal shape",
    "Goal overlap causalworld": "CausalWorld's axis-aligned overlap, the measure success is judged by",
    "Tip error causalworld": "CausalWorld's mean fingertip error on reaching tasks",
    "Holding": "which block the TriFinger grip holds",
    "Block N": "one block: colour, size, centre and attitude",
    "Goal N": "one goal cuboid: size, centre and yaw",
    "Fingertips": "the three fingertip positions",
    "Episode over": "the episode's outcome once it has ended",
    # the turn's own lines
    "Map": "the ASCII map of the cells seen so far",
    "Legend": "what each symbol of the map means",
    "State as JSON": "the structured view",
    "The attached pictures, in order": "the labels of the attached pictures, oldest first",
    "The attached pictures were taken meanwhile, in order": "the labels of the pictures of the start",
    "Lava": "where lava lies (the language view)",
    # the system message's sections
    "Commands": "the whole vocabulary of the script language",
    "Actions": "the primitive actions of frame-by-frame control",
    "How to answer": "the form an answer must take",
    "How the commands move you": "how the commands behave in the world",
    "How the actions move you": "how the primitive actions behave in the world",
    "Things to beware of": "dangers and habits of the arena",
    "What you will find in the arena": "the kinds of objects in an Animal-AI arena",
    "Worked example": "what the in-context example is",
}

# A sentence, not a label, even before a colon: addressed to the model, or with a verb in it.
_PROSE = re.compile(r"^(You|Your|If|Before|Every|Each)\b|\b(is|are)\b")
_LABEL_LINE = re.compile(r"^(?P<label>[A-Z][^:]{0,70}?)(?: \([^)]*\))?:(?: (?P<value>.*))?$")
_WORDY = re.compile(r"[A-Za-z]{3}")  # a line or value with a word in it (map rows and numbers may repeat)
_INLINE_LABEL = re.compile(r"(?<=[.!?`] )(?P<label>[A-Z][a-z]+(?: [a-z]+){0,3}): (?P<value>.+?)\.(?=\s|$)")


@dataclass(frozen=True)
class Case:
    """One way of playing a template set: its backend, the run's options and the answers given."""

    template_set: str
    env: str
    task: str
    answers: tuple[Any, ...]  # on the first turn, on the later turn (unreadable), after the feedback
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()) if k != "model")
        return f"{self.template_set}@{self.env}" + (f"[{extra}]" if extra else "")


def _tools(*calls: tuple[str, str]) -> ModelReply:
    return ModelReply(
        text="", tool_calls=tuple(ToolCall(n, a, f"call-{i}") for i, (n, a) in enumerate(calls))
    )


GRID_SCRIPT = ('Think("look around"); Turn(90);', JUNK, "Go(1);")
ARENA_SCRIPT = ('Think("look around"); Turn(90);', JUNK, "Go(2);")
TRIFINGER_SCRIPT = ('Think("plan"); wait(0.2);', JUNK, "wait(0.2);")
# A named model, never called (the recorder answers): with the reference agent the run would
# render no pictures and frame-by-frame control would be refused.
MODEL = {"model": "openai/recorded"}

CASES = [
    Case("gridworld", "gridworld", "BabyAI-GoToLocal-v0", GRID_SCRIPT),
    Case("gridworld", "gridworld", "gridworld/door-key-easy", GRID_SCRIPT, {"include_images": False}),
    Case(
        "gridworld",
        "gridworld",
        "BabyAI-GoToLocal-v0",
        ("left", JUNK, "forward"),
        {"control": "frame-by-frame"},
    ),
    Case(
        "gridworld",
        "gridworld",
        "BabyAI-GoToLocal-v0",
        (
            _tools(("Think", '{"text": "look"}'), ("Turn", '{"degrees": 90}')),
            JUNK,
            _tools(("Go", '{"n": 1}')),
        ),
        {"action_format": "tools"},
    ),
    Case("gridworld-react", "gridworld", "BabyAI-GoToLocal-v0", GRID_SCRIPT),
    Case("gridworld-reasoner", "gridworld", "BabyAI-GoToLocal-v0", GRID_SCRIPT),
    Case("aai-arena", "aai-arena", "01-04-03", ARENA_SCRIPT),
    Case("aai-arena", "aai-arena", "01-04-03", ARENA_SCRIPT, {"include_images": False}),
    Case("aai-arena", "aai-arena", "01-04-03", ARENA_SCRIPT, {"observe": "every:5"}),
    Case("aai-arena", "aai-arena", "01-04-03", ARENA_SCRIPT, {"protocol": "llm-aai"}),
    Case(
        "aai-arena",
        "aai-arena",
        "01-04-03",
        ("forward", JUNK, "left"),
        {"control": "frame-by-frame"},
    ),
    Case(
        "aai-arena",
        "aai-arena",
        "01-04-03",
        (
            _tools(("Think", '{"text": "look"}'), ("Turn", '{"degrees": 90}')),
            JUNK,
            _tools(("Go", '{"n": 2}')),
        ),
        {"action_format": "tools"},
    ),
    Case("aai-arena-incontext", "aai-arena", "01-04-03", ARENA_SCRIPT),
    Case("aai-arena", "animalai", "01-04-03", ARENA_SCRIPT, {"backend_options": {"aai_build": "builtin"}}),
    Case(
        "aai-arena",
        "animalai",
        "01-04-03",
        ARENA_SCRIPT,
        {"backend_options": {"aai_build": "builtin"}, "protocol": "llm-aai"},
    ),
    Case("trifinger", "trifinger", "pushing", TRIFINGER_SCRIPT),
    Case("trifinger", "trifinger", "pushing", TRIFINGER_SCRIPT, {"include_images": False}),
    Case(
        "trifinger",
        "trifinger",
        "pushing",
        (_tools(("Think", '{"text": "plan"}')), JUNK, _tools(("wait", '{"seconds": 0.2}'))),
        {"action_format": "tools"},
    ),
]


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part["text"] for part in content if part.get("type") == "text")


def _play(case: Case) -> tuple[list[list[dict[str, Any]]], set[str]]:
    """The messages of each call the loop made: the first turn, a later turn (answered with junk), and
    the turn after it, which shows the parse error; and the names of the backend's commands."""
    sent: list[list[dict[str, Any]]] = []

    class Recorder:
        name = "recorder"

        def complete(self, messages: list[dict[str, Any]]) -> ModelReply:
            sent.append(messages)
            answer = case.answers[len(sent) - 1]
            return answer if isinstance(answer, ModelReply) else ModelReply(text=answer)

    templates = None if case.template_set == _own_set(case.env) else case.template_set
    config = RunConfig(
        env=case.env, tasks=[case.task], templates_dir=templates, max_scripts=10, **MODEL, **case.options
    )
    setup = make_setup(config, model_factory=lambda backend: OpenAIDictModel(Recorder()))
    names = {spec.name for spec in setup.backend.vocabulary.commands}
    try:
        result = run_episode(
            setup, case.task, seed=0, should_stop=lambda: EndReason.CANCELLED if len(sent) == 3 else None
        )
    finally:
        setup.backend.close()
    assert len(sent) == 3, f"{case.id}: the episode ended after {len(sent)} calls ({result.end_reason})"
    return sent, names


def _own_set(env: str) -> str:
    from agentkit.envs import get_backend

    return get_backend(env).template_set


def _labels(text: str) -> list[tuple[str, str]]:
    """The ``Label: value`` pairs of a prompt: at a line's start, and inline after a sentence."""
    found = []
    for line in text.splitlines():
        if line.startswith(("- ", "  ", "{", "[")):
            continue  # list items (command docs), continuations and JSON
        match = _LABEL_LINE.match(line)
        if match and len(match["label"].split()) <= 8 and not _PROSE.search(match["label"]):
            found.append((re.sub(r"\d+", "N", match["label"]), (match["value"] or "").strip()))
        found.extend(
            (m["label"], m["value"].strip())
            for m in _INLINE_LABEL.finditer(line)
            if not _PROSE.search(m["label"])
        )
    return found


def _signatures(system: str) -> list[str]:
    return re.findall(r"^- (\S+\(.*?\)):", system, flags=re.M)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_each_prompt_says_each_line_once_and_each_label_means_one_thing(case: Case) -> None:
    calls, names = _play(case)
    system_text = _text(calls[0][0])
    assert "could not be carried out" not in _text(calls[1][-1])
    assert "could not be carried out" in _text(calls[2][-1]), case.id
    pictures = [p for p in calls[0][-1]["content"] if isinstance(p, dict) and p.get("type") == "image_url"]
    assert bool(pictures) == case.options.get("include_images", True), f"{case.id}: {len(pictures)} pictures"
    for turn, messages in enumerate(calls):
        assert messages[0]["role"] == "system" and messages[-1]["role"] == "user"
        prompt = system_text + "\n" + _text(messages[-1])
        lines = Counter(line.strip() for line in prompt.splitlines() if _WORDY.search(line))
        repeated = [line for line, n in lines.items() if n > 1]
        assert not repeated, f"{case.id} turn {turn}: repeated lines {repeated}"

        under: dict[str, set[str]] = defaultdict(set)
        for label, value in _labels(prompt):
            assert label in LABELS, (
                f"{case.id} turn {turn}: label {label!r} is not in LABELS; say what it means"
            )
            if _WORDY.search(value):
                under[value].add(label)
            if label == "Commands" and value:  # the whole vocabulary, never a part of it
                whole = ", ".join(_signatures(system_text))
                assert value == whole or not whole, f"{case.id}: Commands: {value} (the vocabulary: {whole})"
            if label == "Commands useful now":  # a part of the commands the model is told it may write
                listed = {signature.split("(")[0] for signature in _signatures(system_text)}
                assert set(value.split(", ")) <= names & listed, f"{case.id}: Commands useful now: {value}"
        twice = {value: labels for value, labels in under.items() if len(labels) > 1}
        assert not twice, f"{case.id} turn {turn}: one value under two labels {twice}"


def test_every_packaged_set_is_played_above() -> None:
    """A new set without a case here would go unchecked."""
    assert {c.template_set for c in CASES} == set(set_names())
    for case in CASES:  # each on a backend it was written for (animalai plays aai-arena's sets)
        assert get_set(case.template_set).backend == get_set(_own_set(case.env)).backend, case.id


def test_the_checks_catch_the_repeats_they_are_for() -> None:
    """The label reader sees the defects this file was written against."""
    assert ("Mission", "go to the red ball") in _labels("Mission: go to the red ball")
    assert ("Task", "go to the red ball") in _labels("Task: go to the red ball")
    parse_error = "Write commands as Name(arguments), e.g. `Go(n);`. Commands: Go(n), Turn(degrees)."
    assert ("Commands", "Go(n), Turn(degrees)") in _labels(parse_error)
    assert ("Block N", "red cube") in _labels("Block 0: red cube")
    assert ("Map", "") in _labels("Map (what you have seen so far):")
