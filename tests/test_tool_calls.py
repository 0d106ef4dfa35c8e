"""Tool calls (issue 19 item 2, begun): vocabularies as tool schemas, and tool calls read by the
script language's own rules (same Script, same refusals, same messages)."""

from __future__ import annotations

import json

import pytest

from agentkit.actions import ParseError, Script, parse_script
from agentkit.actions.tool_calls import ToolCall, script_from_tool_calls
from agentkit.actions.tool_schema import tool_schemas
from agentkit.envs.animalai_common.vocabulary import VOCABULARY as ARENA
from agentkit.envs.gridworld.api_vocabulary import API_VOCABULARY as GRID_API
from agentkit.envs.trifinger.vocabulary import VOCABULARY as TRIFINGER


def _calls(*pairs: tuple[str, dict]) -> list[ToolCall]:
    return [ToolCall(name, json.dumps(args), f"call_{k}") for k, (name, args) in enumerate(pairs)]


@pytest.mark.parametrize(
    "vocabulary", [ARENA, GRID_API, TRIFINGER], ids=["arena", "gridworld-api", "trifinger"]
)
def test_every_command_becomes_a_tool_with_its_typed_ranged_parameters(vocabulary):
    tools = tool_schemas(vocabulary)
    assert [t["function"]["name"] for t in tools] == vocabulary.names
    for tool, spec in zip(tools, vocabulary.commands):
        schema = tool["function"]["parameters"]
        assert tool["type"] == "function" and tool["function"]["description"] == spec.doc
        assert list(schema["properties"]) == [p.name for p in spec.params]
        assert schema["required"] == [p.name for p in spec.params if p.required]
        assert schema["additionalProperties"] is False
        for param in spec.params:
            prop = schema["properties"][param.name]
            assert prop["type"] == {"int": "integer", "float": "number", "bool": "boolean"}.get(
                param.type.value, "string"
            )
            assert prop.get("minimum") == param.minimum and prop.get("maximum") == param.maximum
            assert prop.get("enum") == (list(param.choices) if param.choices else None)
    json.dumps(tools)  # sendable as they are


def test_arena_tools_carry_the_script_ranges():
    go = tool_schemas(ARENA)[0]["function"]
    assert go["name"] == "Go" and go["parameters"]["properties"]["n"] == {
        "type": "integer",
        "description": "steps; negative moves backwards",
        "minimum": -100,
        "maximum": 100,
    }


CASES = [  # (tool calls, the script text that means the same)
    (
        _calls(("Think", {"text": "the ball is left"}), ("Turn", {"degrees": -12}), ("Go", {"n": 8})),
        'Think("the ball is left"); Turn(degrees=-12); Go(n=8);',
    ),
    (_calls(("Go", {"n": 800})), "Go(n=800);"),
    (_calls(("Go", {"n": 2.5})), "Go(n=2.5);"),
    (_calls(("Go", {"steps": 2})), "Go(steps=2);"),
    (_calls(("Go", {})), "Go();"),
    (_calls(("turn", {"degrees": "-90"})), 'turn(degrees="-90");'),  # names and numbers read as in text
]


@pytest.mark.parametrize("calls,text", CASES)
def test_a_tool_call_means_what_its_script_text_means(calls, text):
    from_tools, from_text = script_from_tool_calls(calls, ARENA), parse_script(text, ARENA)
    if isinstance(from_text, Script):
        assert from_tools == from_text
    else:
        assert isinstance(from_tools, ParseError)
        assert (from_tools.code, from_tools.message) == (from_text.code, from_text.message)


def test_tool_calls_no_text_could_hold_are_refused_in_one_line():
    for calls, code in (
        (_calls(("Jump", {})), "unknown_command"),
        ([ToolCall("Go", "{n: 3")], "syntax"),
        ([ToolCall("Go", "[3]")], "syntax"),
        (_calls(("Go", {"n": [3]})), "wrong_type"),
        (_calls(("Go", {"n": None})), "wrong_type"),
        ([ToolCall("Go", '{"n": ' + "1" * 70_000 + "}")], "too_long"),
        ([], "no_commands"),
    ):
        error = script_from_tool_calls(calls, ARENA)
        assert isinstance(error, ParseError) and error.code == code and "\n" not in error.message, (
            calls,
            error,
        )
    assert "the tools are: Go, Turn, Think" in script_from_tool_calls(_calls(("Jump", {})), ARENA).message


def test_gridworld_api_calls_with_choices_and_defaults():
    names = GRID_API.names
    assert "go_to" in names
    spec = GRID_API.lookup("go_to")
    param = spec.params[0]
    good = script_from_tool_calls(_calls(("go_to", {param.name: "red key"})), GRID_API)
    assert good == parse_script(f'go_to({param.name}="red key");', GRID_API)


def test_the_local_server_answers_tool_calls_through_litellm_and_they_read_as_a_script(
    fake_openai, fake_api_key
):
    """The pieces end to end over HTTP: the vocabulary's tools are sent, the local OpenAI-compatible
    server answers with tool calls, and what litellm returns reads as the script it means."""
    import litellm

    def responder(body: dict) -> dict:
        assert [t["function"]["name"] for t in body["tools"]] == ["Go", "Turn", "Think"]
        return {
            "content": None,
            "tool_calls": [
                {"name": "Think", "arguments": '{"text": "ahead"}'},
                {"name": "Go", "arguments": '{"n": 12}'},
            ],
        }

    fake_openai.responder = responder
    response = litellm.completion(
        model="openai/fake-model",
        api_base=fake_openai.base_url,
        api_key=fake_api_key,
        messages=[{"role": "user", "content": "go"}],
        tools=tool_schemas(ARENA),
        # litellm's completion(tools=...) (1.106, 1.110) imports its MCP bridge, which needs
        # the optional `mcp` package (not installed); its own switch skips the bridge
        _skip_mcp_handler=True,
    )
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls" and not choice.message.content
    calls = [ToolCall(c.function.name, c.function.arguments, c.id) for c in choice.message.tool_calls]
    assert all(c.id.startswith("call_") for c in calls)
    assert script_from_tool_calls(calls, ARENA) == parse_script('Think("ahead"); Go(12);', ARENA)
