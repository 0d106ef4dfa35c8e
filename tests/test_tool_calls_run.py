"""``--action-format tools`` around the episode: the run option and its refusals, the typed tool
messages and their OpenAI form, the history policies keeping calls and results together, the store
keeping both, and the replay model giving recorded calls back (issue 19 item 2)."""

from __future__ import annotations

import pytest

from agentkit.actions import Script
from agentkit.actions.script import ParseError
from agentkit.actions.tool_calls import script_from_tool_calls
from agentkit.actions.tool_results import NOT_RUN, RAN, tool_results
from agentkit.cli._run_options import COMMON_FLAGS, RunFlags
from agentkit.config import RunConfig
from agentkit.envs.gridworld.vocabulary import VOCABULARY
from agentkit.memory import TurnMessages, memory_policy_from_spec
from agentkit.messages import ImagePart, Message, TextPart, ToolCall
from agentkit.models.answer_reader import TOOL_CALL_READER
from agentkit.models.openai_messages import to_openai, typed_request_key
from agentkit.models.participant import ModelParticipant
from agentkit.models.replay_model import ReplayModel
from agentkit.records import TurnRecord, Usage
from agentkit.runs.experiment import load_experiment
from agentkit.runs.setup_episode import check_tool_templates
from agentkit.testing.cli_runner import cli_env, run_cli, run_json
from agentkit.transcripts import TranscriptStore

TEST_API_KEY = "sk-test-not-a-real-key-000000"  # the fake server's (tests/conftest.py)
GO_FAR = ToolCall("Go", '{"n": 999}', "call_2")
THINK = ToolCall("Think", '{"text": "hm"}', "call_1")


def test_the_option_is_refused_in_one_line_where_it_cannot_work():
    base = {"env": "gridworld", "tasks": ["BabyAI-GoToRedBallNoDists-v0"], "action_format": "tools"}
    for extra, words in (
        ({"model": "reference"}, "the reference agent writes scripts"),
        ({"model": "human"}, "a person types scripts"),
        ({"model": "openai/x", "control": "frame-by-frame"}, "is for --control script"),
        ({"model": "openai/x", "cache": True}, "cannot use --cache"),
        ({"model": "openai/x", "action_format": "json"}, "'text' or 'tools'"),
    ):
        with pytest.raises(ValueError, match=words):
            RunConfig(**{**base, **extra})
    assert RunConfig(**{**base, "model": "openai/x"}).action_format == "tools"
    assert RunConfig(env="gridworld", tasks=["t"]).action_format == "text"  # the default


def test_the_flag_sets_the_run_option_and_the_cli_refuses_the_reference_agent(tmp_path):
    config = RunConfig(env="gridworld", tasks=["BabyAI-GoToRedBallNoDists-v0"], model="openai/x")
    given = RunFlags({"action_format": "tools"}, COMMON_FLAGS).apply(config)
    assert given.action_format == "tools"
    proc = run_cli(
        ["run", "--env", "gridworld", "--task", "BabyAI-GoToRedBallNoDists-v0", "--action-format", "tools"],
        tmp_path,
        check=False,
    )
    assert (
        proc.returncode == 2 and "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    )
    assert "--action-format tools needs a model that makes tool calls" in proc.stderr


def test_templates_that_never_read_action_format_are_refused():
    check_tool_templates({"system.j2": '{% if action_format == "tools" %}call{% endif %}'})
    with pytest.raises(ValueError, match="never reads the variable action_format"):
        check_tool_templates({"system.j2": "Write a script."})


def test_tool_messages_become_openai_dicts_only_in_the_client():
    answer = Message("assistant", "", (THINK, GO_FAR))
    result = Message("tool", "refused", tool_call_id="call_2")
    assert to_openai([answer, result]) == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "Think", "arguments": '{"text": "hm"}'},
                },
                {"id": "call_2", "type": "function", "function": {"name": "Go", "arguments": '{"n": 999}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_2", "content": "refused"},
    ]
    # the calls are part of the message's value: another call is another message and another cache key
    other = Message("assistant", "", (THINK, ToolCall("Go", '{"n": 1}', "call_2")))
    assert answer != other and hash(answer) != hash(other)
    assert typed_request_key("m", {}, [answer]) != typed_request_key("m", {}, [other])


def test_a_refused_call_gets_the_parse_error_and_the_others_are_told_they_did_not_run():
    vocabulary = VOCABULARY
    parsed = script_from_tool_calls([THINK, GO_FAR], vocabulary)
    results = tool_results((THINK, GO_FAR), parsed)
    assert [(m.role, m.tool_call_id) for m in results] == [("tool", "call_1"), ("tool", "call_2")]
    assert results[0].text == NOT_RUN and results[1].text == parsed.message and "999" in results[1].text
    fine = (THINK, ToolCall("Go", '{"n": 2}', "call_3"))
    parsed = script_from_tool_calls(list(fine), vocabulary)
    assert isinstance(parsed, Script)
    assert [m.text for m in tool_results(fine, parsed)] == [RAN, RAN]


def test_the_results_follow_the_call_the_parse_named_without_reading_the_calls_again():
    parsed = script_from_tool_calls([THINK, GO_FAR, THINK], VOCABULARY)
    assert isinstance(parsed, ParseError) and parsed.call == GO_FAR  # named where the calls were read
    results = tool_results((THINK, GO_FAR, THINK), parsed)
    assert [m.text for m in results] == [NOT_RUN, parsed.message, NOT_RUN]
    # the error alone says which call was refused: a call that reads fine is not read again to find it
    named = ParseError("unknown_command", "refused here", call=THINK)
    assert [m.text for m in tool_results((GO_FAR, THINK), named)] == [NOT_RUN, "refused here"]
    unnamed = ParseError("no_commands", "call a tool")  # made elsewhere: the first call carries it
    assert [m.text for m in tool_results((GO_FAR, THINK), unnamed)] == ["call a tool", NOT_RUN]


def _turn(i: int) -> TurnMessages:
    call = ToolCall("Go", '{"n": 1}', f"call_{i}")
    image = ImagePart.of(bytes([i]) * 8, "image/png")
    return TurnMessages(
        user=Message("user", (TextPart(f"turn {i}"), image)),
        assistant=Message("assistant", "", (call,)),
        results=(Message("tool", RAN, tool_call_id=call.id),),
    )


@pytest.mark.parametrize("spec", ["full", "window:2", "last-images:1", "markovian"])
def test_every_history_policy_keeps_each_call_with_its_result(spec):
    selected = memory_policy_from_spec(spec).select([_turn(i) for i in range(4)])
    calls = [c.id for m in selected for c in m.tool_calls]
    answered = [m.tool_call_id for m in selected if m.role == "tool"]
    assert calls == answered  # no result without its call, no call without its result
    for i, m in enumerate(selected):
        if m.role == "tool":  # right after its call (or an earlier result of the same answer)
            assert selected[i - 1].role in ("assistant", "tool")
    assert len(calls) == {"full": 4, "window:2": 2, "last-images:1": 4, "markovian": 0}[spec]


def test_the_replay_model_gives_the_recorded_calls_back_and_the_participant_reads_them():
    model = ReplayModel(["", "Go(1)"], tool_calls=[[GO_FAR.to_json(), THINK.to_json()], None])
    player = ModelParticipant(model, TOOL_CALL_READER)
    first = player.answer([], None, VOCABULARY)
    assert first.reply.tool_calls == (GO_FAR, THINK) and first.parse_error.code == "out_of_range"
    second = player.answer([], None, VOCABULARY)
    assert second.parse_error.code == "no_commands"  # text is never read as a script in tools mode
    with pytest.raises(ValueError, match="one list of tool calls"):
        ReplayModel(["a", "b"], tool_calls=[None])


def test_the_store_keeps_the_calls_and_the_results_paired_in_the_history(tmp_path):
    url = f"sqlite:///{tmp_path / 't.db'}"
    history = [
        Message("system", "sys"),
        Message("user", "turn 0"),
        Message("assistant", "thinking aloud", (THINK, GO_FAR)),
        Message("tool", NOT_RUN, tool_call_id="call_1"),
        Message("tool", "out of range", tool_call_id="call_2"),
        Message("user", "turn 1"),
    ]
    with TranscriptStore(url) as store:
        run = store.create_run("gridworld", ["t"], "openai/x", {"action_format": "tools"}, {})
        episode = store.start_episode(run, "t", 0)
        for i, messages in enumerate((history[:2], history)):
            store.add_turn(
                episode,
                TurnRecord(
                    index=i,
                    observation={},
                    messages=messages,
                    answer="thinking aloud",
                    usage=Usage(),
                    latency_s=0.0,
                    cached=False,
                    script=None,
                    parse_error=None,
                    compile_error=None,
                    actions=[],
                    reward=0.0,
                    total_reward=0.0,
                    health=None,
                    done=False,
                    timings={},
                    tool_calls=[THINK.to_json(), GO_FAR.to_json()] if i == 0 else None,
                ),
            )
        first, second = store.get_turns(episode)
    assert first.tool_calls == [THINK.to_json(), GO_FAR.to_json()] and second.tool_calls is None
    assert second.messages == to_openai(history)  # read back as the client sent them


def test_an_experiment_file_sets_it_and_eval_has_the_flag(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text(
        "env: gridworld\ntasks: [BabyAI-GoToRedBallNoDists-v0]\nmodels: [openai/x]\naction_format: tools\n",
        encoding="utf-8",
    )
    _, (config,) = load_experiment(path)
    assert config.action_format == "tools"
    path.write_text(
        "env: gridworld\ntasks: [BabyAI-GoToRedBallNoDists-v0]\nmodels: [reference]\naction_format: tools\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="action_format.*needs a model that makes tool calls"):
        load_experiment(path)
    help_text = run_cli(["eval", "--help-all"], tmp_path, env=cli_env(COLUMNS="200")).stdout
    assert "--action-format" in help_text


def test_the_run_flag_reaches_the_stored_config_and_the_model_is_sent_tools(tmp_path, fake_openai):
    fake_openai.responder = lambda body: {
        "content": None,
        "tool_calls": [{"name": "Go", "arguments": '{"n": 1}'}],
    }
    db = f"sqlite:///{tmp_path / 'r.db'}"
    data = run_json(
        [
            "run",
            "--env",
            "gridworld",
            "--task",
            "BabyAI-GoToRedBallNoDists-v0",
            "--model",
            "openai/fake-model",
            "--api-base",
            fake_openai.base_url,
            "--action-format",
            "tools",
            "--max-scripts",
            "2",
            "--db",
            db,
            "--json",
        ],
        tmp_path,
        cli_env(OPENAI_API_KEY=TEST_API_KEY),
    )
    with TranscriptStore(db) as store:
        assert store.get_run(data["run_id"]).config["action_format"] == "tools"
    probes = [b for b in fake_openai.requests if b.get("max_tokens") == 1]  # the endpoint check's
    assert [b for b in probes if b.get("tools")]  # it asked whether the server takes tools
    sent = [b for b in fake_openai.requests if b["messages"][0]["content"] != "warm-up" and b not in probes]
    assert len(sent) == 2 and all(b["tool_choice"] == "auto" for b in sent)
    assert sent[1]["messages"][-2] == {
        "role": "tool",
        "tool_call_id": sent[1]["messages"][-3]["tool_calls"][0]["id"],
        "content": RAN,
    }


def test_the_client_sends_the_tools_and_types_the_calls_it_gets_back(fake_openai):
    from types import SimpleNamespace

    from agentkit.actions.tool_schema import tool_schemas
    from agentkit.models.litellm_model import LiteLLMModel, _tool_calls

    fake_openai.responder = lambda body: {
        "content": "so",
        "tool_calls": [{"name": "Go", "arguments": '{"n": 2}'}],
    }
    model = LiteLLMModel(
        "openai/fake-model",
        api_base=fake_openai.base_url,
        api_key=TEST_API_KEY,
        tools=tool_schemas(VOCABULARY),
    )
    reply = model.complete([Message("user", "go")])
    assert reply.text == "so" and [(c.name, c.arguments) for c in reply.tool_calls] == [("Go", '{"n": 2}')]
    assert reply.tool_calls[0].id.startswith("call_")
    sent = fake_openai.requests[-1]
    assert (
        sent["tool_choice"] == "auto" and [t["function"]["name"] for t in sent["tools"]] == VOCABULARY.names
    )
    # a provider's object arguments are kept as JSON text; a call without an id is still named
    odd = SimpleNamespace(
        tool_calls=[SimpleNamespace(id=None, function=SimpleNamespace(name="Go", arguments={"n": 3}))]
    )
    assert _tool_calls(odd) == (ToolCall("Go", '{"n": 3}', "call_0"),)
