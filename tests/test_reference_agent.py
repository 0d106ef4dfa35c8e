"""Acceptance: the gridworld reference agent, driven through the loop and the script language
(its answers are text that the parser reads and the backend compiles), solves >= 95% of 50 episodes."""

from __future__ import annotations

import pytest

from agentkit.actions import parse_script
from agentkit.config import ObserverSettings, RunConfig
from agentkit.loop import run_episode
from agentkit.records import EndReason
from agentkit.runs.setup_episode import make_setup


class _Answers:
    """Keeps every answer the loop saw, to check they are ordinary scripts."""

    def __init__(self) -> None:
        self.turns = []

    def add_turn(self, episode_id, turn) -> None:
        self.turns.append(turn)


@pytest.mark.parametrize("task", ["BabyAI-GoToLocal-v0", "BabyAI-PickupLoc-v0"])
def test_reference_agent_solves_95_percent_of_50_episodes(task):
    config = RunConfig(
        env="gridworld",
        tasks=[task],
        include_images=False,
        memory="markovian",
        observer=ObserverSettings(views=["ascii"]),
        backend_options={"frame": "none"},
    )
    setup = make_setup(config)
    sink = _Answers()
    results = [run_episode(setup, task, seed, sink=sink, episode_id=str(seed)) for seed in range(50)]
    setup.backend.close()
    successes = sum(r.success for r in results)
    assert successes >= 48, [(r.seed, r.end_reason.value) for r in results if not r.success]
    assert all(r.end_reason == EndReason.GOAL for r in results if r.success)
    assert all(r.scripts <= 30 for r in results)
    # every answer went through the parser as text and parsed cleanly
    assert sink.turns and all(t.parse_error is None and t.script for t in sink.turns)
    reparsed = parse_script(sink.turns[0].answer, setup.backend.vocabulary)
    assert [c.to_json() for c in reparsed] == sink.turns[0].script
