"""Native tool calls end to end (``--action-format tools``, issue 19 item 2): a gridworld and a
TriFinger episode whose model answers with tool calls over HTTP, stored, then replayed exactly.

The model is the local OpenAI-compatible server (agentkit.testing.fake_openai) answering with
``tool_calls``; HTTP is recorded in cassettes (``tests/cassettes/test_tool_calls_episodes/``).
Re-record: ``.venv/bin/pytest tests/test_tool_calls_episodes.py --record-mode=rewrite``.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from agentkit.config import ObserverSettings, RunConfig
from agentkit.inspect_tasks.export_log import run_as_eval_log
from agentkit.offline.replay import replay_episode
from agentkit.offline.rerender import rerender_run
from agentkit.records import EndReason
from agentkit.runs.runner import execute_run
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore
from agentkit.transcripts.tables import run_tables
from agentkit.viewer import ViewerApp, open_readonly

TEST_API_KEY = "sk-test-not-a-real-key-000000"
GRID_TASK = "BabyAI-GoToRedBallNoDists-v0"
_CENTRE = r"centre \(([-\d.]+), ([-\d.]+), ([-\d.]+)\)"


def _call(name: str, **arguments: Any) -> dict[str, str]:
    return {"name": name, "arguments": json.dumps(arguments)}


def _last_user_text(body: dict[str, Any]) -> str:
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    content = user["content"]
    return (
        content if isinstance(content, str) else "\n".join(p["text"] for p in content if p["type"] == "text")
    )


def grid_walker(body: dict[str, Any]) -> dict[str, Any]:
    """First answer: an out-of-range Go beside a Think (refused); then a Think, a turn and a step."""
    if sum(m["role"] == "assistant" for m in body["messages"]) == 0:
        return {"content": None, "tool_calls": [_call("Think", text="far away"), _call("Go", n=999)]}
    return {
        "content": "The ball is somewhere ahead.",
        "tool_calls": [_call("Think", text="try the right"), _call("Turn", degrees=90), _call("Go", n=1)],
    }


def picker(body: dict[str, Any]) -> dict[str, Any]:
    """TriFinger picking as tool calls: read the goal from the prompt, grasp, lift and move there."""
    text = _last_user_text(body)
    gx, gy, gz = (float(v) for v in re.search(r"Goal 0: [^\n]*" + _CENTRE, text).groups())
    if "Holding: block 0" in text:
        return {"content": None, "tool_calls": [_call("move_to", x=gx, y=gy, z=gz)]}
    return {
        "content": None,
        "tool_calls": [
            _call("Think", text="the red cube must rise into the goal"),
            _call("grasp", block=0),
            _call("lift", height=gz),
            _call("move_to", x=gx, y=gy, z=gz),
        ],
    }


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def endpoint(record_mode: str, request: pytest.FixtureRequest) -> Iterator[str]:
    if record_mode == "none":
        yield f"http://127.0.0.1:{_closed_port()}/v1"
        return
    with FakeOpenAIServer(request.param, api_key=TEST_API_KEY) as server:
        yield server.base_url


def _play_and_store(config: RunConfig, db: str) -> tuple[Any, str, TranscriptStore]:
    """Run ``config`` (one episode) as ``agentkit run`` does, into the store at ``db``."""
    store = TranscriptStore(db)
    summary = execute_run(config, store, api_key=TEST_API_KEY, show_progress=False)
    (result,) = summary.episodes
    assert store.get_run(summary.run_id).config["action_format"] == "tools"  # stored with the run
    return result, result.episode_id, store


def _requests(vcr: Any) -> list[dict[str, Any]]:
    bodies = [json.loads(r.body) for r in vcr.requests]
    return [b for b in bodies if b["messages"][0]["content"] != "warm-up"]


@pytest.mark.vcr
@pytest.mark.parametrize("endpoint", [grid_walker], indirect=True)
def test_a_gridworld_tool_call_episode_feeds_back_bad_arguments_and_replays_exactly(endpoint, vcr, tmp_path):
    config = RunConfig(
        env="gridworld",
        tasks=[GRID_TASK],
        model="openai/fake-model",
        api_base=endpoint,
        action_format="tools",
        max_scripts=3,
        observer=ObserverSettings(views=["ascii", "language"]),
    )
    result, episode_id, store = _play_and_store(config, f"sqlite:///{tmp_path / 't.db'}")
    assert result.scripts == 3 and result.end_reason == EndReason.SCRIPT_LIMIT

    # the request offers the vocabulary as tools, with the script language's ranges
    first = _requests(vcr)[0]
    tools = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert first["tool_choice"] == "auto" and {"Go", "Turn", "Think"} <= set(tools)
    assert tools["Go"]["parameters"]["properties"]["n"]["maximum"] == 20
    assert "Call the tools, one call per command" in first["messages"][0]["content"]

    with store:
        turns = store.get_turns(episode_id)
        # turn 0: refused, nothing ran; the calls are stored with the turn
        assert turns[0].parse_error["code"] == "out_of_range" and turns[0].script is None
        assert [c["name"] for c in turns[0].tool_calls] == ["Think", "Go"]
        # turn 1's prompt carries the answer's calls, then one tool result per call, paired by id
        history = turns[1].messages[1:-1]
        assert [m["role"] for m in history] == ["user", "assistant", "tool", "tool"]
        calls = history[1]["tool_calls"]
        assert [c["function"]["name"] for c in calls] == ["Think", "Go"]
        assert [m["tool_call_id"] for m in history[2:]] == [c["id"] for c in calls]
        assert history[2]["content"].startswith("Not run")
        assert "`n` must be from 1 to 20, but you wrote `999`" in history[3]["content"]
        # the refusal went back as the tool result only, not again in the next user message
        assert "999" not in _text(turns[1].messages[-1])
        # turn 1 ran: a Think, a right turn and one step, its text kept as the answer
        assert turns[1].script == [
            {"name": "Think", "args": ["try the right"]},
            {"name": "Turn", "args": [90]},
            {"name": "Go", "args": [1]},
        ]
        assert turns[1].answer == "The ball is somewhere ahead." and turns[1].actions
        assert [m["content"] for m in turns[2].messages if m["role"] == "tool"][-3:] == ["Done."] * 3

        report = replay_episode(store, episode_id)
        assert report.matches, report.mismatches
        # re-rendered with its own templates, every prompt (calls and results included) is the one sent
        run_id = store.get_episode(episode_id).run_id
        rerendered = rerender_run(store, run_id, workers=1)
        assert rerendered.turns and rerendered.changed_turns == 0
        # templates that ask for text scripts cannot re-render tool calls: refused in one line
        text_only = tmp_path / "text-only"
        text_only.mkdir()
        (text_only / "system.j2").write_text("Write a script.\n")
        with pytest.raises(ValueError, match="never reads the variable action_format"):
            rerender_run(store, run_id, templates_dir=text_only)
        # the exported turn table has the calls beside the answer
        _, rows = run_tables(store, run_id)
        assert json.loads(rows[0]["tool_calls"]) == turns[0].tool_calls and rows[0]["answer"] == ""
        # and Inspect's log of the run has the calls on the answers and their results after them
        (sample,) = run_as_eval_log(store, run_id).samples
        roles = [m.role for m in sample.messages[1:]]
        assert roles[:6] == ["user", "assistant", "tool", "tool", "user", "assistant"]
        answer, refused = sample.messages[2], sample.messages[4]
        assert [c.function for c in answer.tool_calls] == ["Think", "Go"] and answer.tool_calls[
            1
        ].arguments == {"n": 999}
        assert refused.tool_call_id == answer.tool_calls[1].id and "999" in refused.text

    # the viewer shows the answer's calls as calls, and the history's results as results of a call
    page = ViewerApp(open_readonly(f"sqlite:///{tmp_path / 't.db'}")).handle(
        "GET", f"/episodes/{episode_id}?turn=1"
    )
    html = page.body.decode()
    assert 'id="tool-calls"' in html and "Turn({&#34;degrees&#34;: 90})  [call_" in html
    assert "Go({&#34;n&#34;: 999})" in html and "· result of call_" in html


@pytest.mark.vcr
@pytest.mark.parametrize("endpoint", [picker], indirect=True)
def test_a_trifinger_tool_call_episode_picks_the_cube_and_replays_exactly(endpoint, vcr, tmp_path):
    config = RunConfig(
        env="trifinger",
        tasks=["picking"],
        model="openai/fake-model",
        api_base=endpoint,
        action_format="tools",
        max_scripts=3,
        include_images=False,
        observer=ObserverSettings(views=["language"]),
    )
    result, episode_id, store = _play_and_store(config, f"sqlite:///{tmp_path / 't.db'}")
    assert result.success and result.end_reason == EndReason.GOAL
    first = _requests(vcr)[0]
    assert {"grasp", "lift", "move_to", "Think"} <= {t["function"]["name"] for t in first["tools"]}
    with store:
        turns = store.get_turns(episode_id)
        assert [c["name"] for c in turns[0].tool_calls] == ["Think", "grasp", "lift", "move_to"]
        assert turns[0].script[1] == {"name": "grasp", "args": [0]}
        report = replay_episode(store, episode_id)
    assert report.matches, report.mismatches
    assert vcr.all_played or vcr.record_mode != "none"


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    return (
        content if isinstance(content, str) else "\n".join(p["text"] for p in content if p["type"] == "text")
    )
