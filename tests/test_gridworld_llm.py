"""A model behind litellm plays the gridworld, with API calls and with primitive moves.

HTTP is recorded in cassettes (``tests/cassettes/test_gridworld_llm/``) from a local
OpenAI-compatible server whose "model" reads the prompt it is sent: in API mode it asks to
``go_to`` what the mission names and answers an actionable error ("... seen yet") with
``explore()``; in primitive mode it walks the fixed start of the empty room to its goal.
Re-record: ``.venv/bin/pytest tests/test_gridworld_llm.py --record-mode=rewrite``.
"""

from __future__ import annotations

import re
import socket
from dataclasses import replace
from typing import Any

import pytest

from agentkit.config import ObserverSettings, RunConfig
from agentkit.loop import run_episode
from agentkit.models.openai_messages import to_openai
from agentkit.records import EndReason
from agentkit.runs.setup_episode import make_setup
from agentkit.testing.fake_openai import FakeOpenAIServer

API_KEY = "sk-test-not-a-real-key-000000"
# litellm's import triggers a pydantic notice about its own TypedDicts; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*qualifier:UserWarning")


def _last_user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def api_player(body: dict[str, Any]) -> str:
    text = _last_user_text(body)
    if "could not be carried out" in text and "seen yet" in text:
        return 'Think("I have not seen it; look around"); explore();'
    target = re.search(r"Mission: go to (?:the|a) ([a-z ]+)", text).group(1)
    return f'Think("the mission names the {target}"); go_to("{target}");'


def primitive_player(body: dict[str, Any]) -> str:
    text = _last_user_text(body)
    assert "facing east, at x=1, y=1" in text  # the empty room always starts here
    return 'Think("the goal is two cells right and two down"); Go(2); Turn(90); Go(2);'


def _endpoint(record_mode: str, responder) -> tuple[str, FakeOpenAIServer | None]:
    if record_mode == "none":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return f"http://127.0.0.1:{s.getsockname()[1]}/v1", None
    server = FakeOpenAIServer(responder, api_key=API_KEY).start()
    return server.base_url, server


class _Turns:
    def __init__(self) -> None:
        self.turns = []

    def add_turn(self, episode_id, turn) -> None:
        # The loop hands typed messages; this test reads them as the model client sends them.
        self.turns.append(replace(turn, messages=to_openai(turn.messages)))


def _play(record_mode: str, responder, task: str, seed: int, commands: str):
    base_url, server = _endpoint(record_mode, responder)
    try:
        config = RunConfig(
            env="gridworld",
            tasks=[task],
            model="openai/fake-model",
            api_base=base_url,
            include_images=False,
            memory="markovian",
            max_scripts=12,
            observer=ObserverSettings(views=["ascii", "language"]),
            backend_options={"frame": "none", "commands": commands},
        )
        setup = make_setup(config, api_key=API_KEY)
        sink = _Turns()
        result = run_episode(setup, task, seed, sink=sink)
        setup.backend.close()
        return result, sink.turns
    finally:
        if server is not None:
            server.stop()


@pytest.mark.vcr
def test_llm_plays_with_api_calls(record_mode):
    result, turns = _play(record_mode, api_player, "gridworld/goto-object-hard", 3, "api")
    assert result.success and result.end_reason == EndReason.GOAL
    names = [c["name"] for t in turns for c in (t.script or [])]
    assert "go_to" in names and "explore" in names  # the target was out of sight at first
    failed = [t for t in turns if t.compile_error]
    assert failed and all("seen yet" in t.compile_error for t in failed)
    assert "go_to(target)" in turns[0].messages[0]["content"]  # the API calls are in the system prompt


@pytest.mark.vcr
def test_llm_plays_with_primitive_moves(record_mode):
    result, turns = _play(record_mode, primitive_player, "gridworld/reach-goal-easy", 0, "primitives")
    assert result.success and len(turns) == 1
    assert turns[0].actions == [2, 2, 1, 2, 2]
    assert "go_to" not in turns[0].messages[0]["content"]
