"""Harness presets (memory policy + template set) drive real episodes through the loop."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agentkit.config import ObserverSettings, RunConfig
from agentkit.evals.gridworld.harness import HARNESSES, apply_harness, harness_names, harness_preset
from agentkit.loop import run_episode
from agentkit.models.openai_messages import to_openai
from agentkit.runs.setup_episode import make_setup

TASK, SEED = "gridworld/key-corridor-medium", 5  # the reference agent needs several scripts here


class _Turns:
    def __init__(self) -> None:
        self.turns = []

    def add_turn(self, episode_id, turn) -> None:
        # The loop hands typed messages; this test reads them as the model client sends them.
        self.turns.append(replace(turn, messages=to_openai(turn.messages)))


def _play(harness: str):
    base = RunConfig(
        env="gridworld",
        tasks=[TASK],
        include_images=False,
        observer=ObserverSettings(views=["ascii"]),
        backend_options={"frame": "none"},
    )
    setup = make_setup(apply_harness(base, harness))
    sink = _Turns()
    result = run_episode(setup, TASK, SEED, sink=sink)
    setup.backend.close()
    return result, sink.turns


@pytest.mark.parametrize(
    ("harness", "history_of_turn"),
    [
        ("markovian", lambda k: 0),
        ("markovian-reasoner", lambda k: 0),
        ("react", lambda k: 2 * k),
        ("window-2", lambda k: 2 * min(k, 2)),
    ],
)
def test_preset_sets_memory_and_prompt(harness, history_of_turn):
    result, turns = _play(harness)
    assert result.success and len(turns) >= 3
    for k, turn in enumerate(turns):
        assert len(turn.messages) == 1 + history_of_turn(k) + 1  # system, history, this turn
    system = turns[0].messages[0]["content"]
    if harness == "markovian-reasoner":
        assert "at most three sentences" in system
    elif harness == "react":
        assert "thought, action and observation" in system
    else:
        assert "at most three sentences" not in system and "thought, action" not in system


def test_presets_are_named_and_checked():
    assert set(HARNESSES) <= set(harness_names())
    assert harness_preset("window-8") == {"memory": "window:8", "templates_dir": None}
    assert harness_preset("react")["memory"] == "full"
    for bad in ("window-0", "window-x", "chain-of-thought"):
        with pytest.raises(ValueError, match="unknown harness"):
            harness_preset(bad)
