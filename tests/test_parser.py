"""Tests of the action-script parser and formatter: tolerance of real model writing, strictness of meaning.

The vocabulary below mimics Animal-AI's (Go, Turn, Think) plus API-style calls of the gridworld and
TriFinger backends, so every parameter type, default, range, choice and step is exercised.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.actions import CommandSpec, ParamSpec, ParamType, Vocabulary
from agentkit.actions.formatter import format_command, format_script, quote
from agentkit.actions.parser import ERROR_CODES, parse_script
from agentkit.actions.script import Command, ParseError, Script

T = ParamType

VOCAB = Vocabulary(
    (
        CommandSpec("Go", (ParamSpec("n", T.INT, minimum=-100, maximum=100),), "Move forward n steps."),
        CommandSpec("Turn", (ParamSpec("degrees", T.INT, minimum=-180, maximum=180),), "Turn right."),
        CommandSpec("Think", (ParamSpec("text", T.TEXT),), "Think aloud."),
        CommandSpec("go_to", (ParamSpec("target", T.STR),), "Walk to an object."),
        CommandSpec("grasp", (ParamSpec("block", T.INT, minimum=0, maximum=5, default=0, required=False),)),
        CommandSpec("lift", (ParamSpec("height", T.FLOAT, minimum=0, maximum=0.3),)),
        CommandSpec("Pickup", ()),
        CommandSpec("Turn2", (ParamSpec("deg", T.INT, multiple_of=90),)),
        CommandSpec("paint", (ParamSpec("color", T.STR, choices=("red", "green", "blue")),)),
        CommandSpec("gripper", (ParamSpec("open", T.BOOL),)),
        CommandSpec("say", (ParamSpec("volume", T.INT, minimum=0, maximum=10), ParamSpec("text", T.TEXT))),
        CommandSpec(
            "place",
            (
                ParamSpec("x", T.FLOAT, minimum=-1, maximum=1),
                ParamSpec("y", T.FLOAT, minimum=-1, maximum=1),
                ParamSpec("gentle", T.BOOL, default=True, required=False),
            ),
        ),
    )
)


def cmd(name: str, *args) -> Command:
    return Command(name, tuple(args))


def parsed(text: str, vocabulary: Vocabulary = VOCAB) -> tuple[Command, ...]:
    """The commands of a text that must parse; fails the test with the parser's message otherwise."""
    result = parse_script(text, vocabulary)
    assert isinstance(result, Script), result
    return result.commands


def error(text: str, vocabulary: Vocabulary = VOCAB) -> ParseError:
    result = parse_script(text, vocabulary)
    assert isinstance(result, ParseError), result
    assert result.code in ERROR_CODES
    return result


# ------------------------------------------------------------------------------------------------
# Separators and prose


@pytest.mark.parametrize(
    "text",
    [
        "Turn(30); Go(5);",
        "Turn(30); Go(5)",
        "Turn(30)\nGo(5)",
        "Turn(30)\r\nGo(5)\r\n",
        "Turn(30) Go(5)",
        "Turn(30)Go(5)",
        "Turn(30);;\n\n  Go(5) ;",
        "Sure! I will turn first.\nTurn(30); Go(5);\nThat should work.",
        "Turn(30) and then, after that, Go(5).",
        "Let me turn: Turn(30), then walk: Go(5)",
        "- Turn(30)\n- Go(5)",
        "1. Turn(30)\n2. Go(5)",
        "**Turn(30)** then `Go(5)`",
        "turn(30); GO(5)",
    ],
)
def test_separators_prose_and_case_are_tolerated(text: str) -> None:
    assert parsed(text) == (cmd("Turn", 30), cmd("Go", 5))


def test_paper_example() -> None:
    text = "Sure! I will go there.\nTurn(-30); Go(8);\nThat should work."
    assert parsed(text) == (cmd("Turn", -30), cmd("Go", 8))


@pytest.mark.parametrize(
    "text",
    [
        "the ball (red) is near\nGo(5)",
        "I see the ball (red) near the wall (grey). Go(5);",
        "Note (important): the wall is close.\nGo(5)",
        "Let me think (carefully) about it.\nGo(5)",
        "I could go (slowly) but\nGo(5)",
        "Hmm (thinking)... ok\nGo(5)",
        "Step 1 (turn) is done.\nGo(5)",
    ],
)
def test_prose_with_parentheses_is_not_an_error(text: str) -> None:
    assert parsed(text) == (cmd("Go", 5),)


def test_spaced_known_call_counts_when_it_ends_a_statement() -> None:
    assert parsed("Go (5);\nTurn (30)") == (cmd("Go", 5), cmd("Turn", 30))


# ------------------------------------------------------------------------------------------------
# Code fences


@pytest.mark.parametrize(
    "text",
    [
        "```\nTurn(30); Go(5);\n```",
        "```python\nTurn(30)\nGo(5)\n```",
        "Here is my plan:\n```text\nTurn(30)\nGo(5)\n```\nI could also Go(99) later.",
        "```\nTurn(30)\n```\nand Jump(3) is prose here\n```\nGo(5)\n```",
        "```python\nTurn(30)\nGo(5)```",
        "```Turn(30); Go(5)```",
        "```\nTurn(30)\nGo(5)",
        "  ```js\r\n  Turn(30);\r\n  Go(5);\r\n  ```",
    ],
)
def test_code_fences(text: str) -> None:
    assert parsed(text) == (cmd("Turn", 30), cmd("Go", 5))


def test_only_fenced_content_is_read() -> None:
    assert error("Go(5)\n```\njust a note\n```").code == "no_commands"


def test_backticks_inside_quoted_text_do_not_close_a_fence() -> None:
    assert parsed('```\nThink("a ``` b"); Go(5)\n```') == (cmd("Think", "a ``` b"), cmd("Go", 5))


# ------------------------------------------------------------------------------------------------
# Free text (Think)


@pytest.mark.parametrize(
    ("text", "thought"),
    [
        ('Think("the ball is left")', "the ball is left"),
        ("Think('the ball is left')", "the ball is left"),
        ("Think(\u201cthe ball is left\u201d)", "the ball is left"),
        ("Think(\u2018the ball is left\u2019)", "the ball is left"),
        ("Think(\u201dthe ball is left\u201d)", "the ball is left"),
        ("Think(the ball is left)", "the ball is left"),
        ("Think(  the ball is left  )", "the ball is left"),
        ('Think(  "the ball is left"  )', "the ball is left"),
        ("Think(the ball is left (I think), so I'll turn)", "the ball is left (I think), so I'll turn"),
        ('Think("it\'s behind the wall (maybe)")', "it's behind the wall (maybe)"),
        ("Think('it's behind the wall (maybe)')", "it's behind the wall (maybe)"),
        ("Think(\u2018it\u2019s behind the wall\u2019)", "it\u2019s behind the wall"),
        ('Think("he said "go" to me")', 'he said "go" to me'),
        ('Think("a) b")', "a) b"),
        ("Think(go left; then right)", "go left; then right"),
        ("Think(text=the ball is left)", "the ball is left"),
        ('Think(text="the ball is left")', "the ball is left"),
        ("Think(x=1 means nothing)", "x=1 means nothing"),
        ('Think("first line\nsecond line")', "first line\nsecond line"),
        ("Think(I should Go(5) now)", "I should Go(5) now"),
        ("Think(caf\u00e9 \u2192 \u732b)", "caf\u00e9 \u2192 \u732b"),
    ],
)
def test_think_text(text: str, thought: str) -> None:
    assert parsed(text) == (cmd("Think", thought),)


@pytest.mark.parametrize(
    ("text", "thought"),
    [
        (r'Think("a \"quoted\" word")', 'a "quoted" word'),
        (r"Think('it\'s')", "it's"),
        (r'Think("back\\slash")', "back\\slash"),
        (r'Think("ends with backslash\\")', "ends with backslash\\"),
        (r'Think("keep \p and \d as written")', r"keep \p and \d as written"),
        (r'Think("two\nlines")', "two\nlines"),
        (r"Think(unquoted \" stays raw)", r"unquoted \" stays raw"),
    ],
)
def test_escapes_in_quoted_text(text: str, thought: str) -> None:
    assert parsed(text) == (cmd("Think", thought),)


def test_unbalanced_unquoted_text_ends_at_last_paren_of_its_statement() -> None:
    assert parsed("Think(hmm :( ); Go(5)") == (cmd("Think", "hmm :("), cmd("Go", 5))
    assert parsed("Think(a (b)\nGo(5)") == (cmd("Think", "a (b"), cmd("Go", 5))


def test_text_after_leading_parameters() -> None:
    assert parsed("say(3, hello, world (twice))") == (cmd("say", 3, "hello, world (twice)"),)
    assert parsed('say(volume=3, "hi")') == (cmd("say", 3, "hi"),)
    assert parsed('say(3, text="hi")') == (cmd("say", 3, "hi"),)


def test_empty_text_counts_as_missing() -> None:
    for text in ("Think()", 'Think("")', "Think(  )", 'Think(" ")'):
        assert error(text).code == "wrong_arity", text


# ------------------------------------------------------------------------------------------------
# Values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Go(+8)", cmd("Go", 8)),
        ("Go(-30)", cmd("Go", -30)),
        ("Go(8.0)", cmd("Go", 8)),
        ("Go(1e1)", cmd("Go", 10)),
        ("Go( 8 )", cmd("Go", 8)),
        ('Go("8")', cmd("Go", 8)),
        ("Turn(\u221230)", cmd("Turn", -30)),
        ("Go(n=8)", cmd("Go", 8)),
        ("Go(N=8)", cmd("Go", 8)),
        ("Go(8,)", cmd("Go", 8)),
        ("grasp(block=0)", cmd("grasp", 0)),
        ("grasp(3)", cmd("grasp", 3)),
        ("grasp()", cmd("grasp", 0)),
        ("lift(0.08)", cmd("lift", 0.08)),
        ("lift(height=.1)", cmd("lift", 0.1)),
        ("lift(0)", cmd("lift", 0.0)),
        ("go_to(red key)", cmd("go_to", "red key")),
        ('go_to("red key")', cmd("go_to", "red key")),
        ("go_to('red key')", cmd("go_to", "red key")),
        ("go_to('Bob's key')", cmd("go_to", "Bob's key")),
        ("go_to(target = red key)", cmd("go_to", "red key")),
        ("paint(Red)", cmd("paint", "red")),
        ("gripper(true)", cmd("gripper", True)),
        ("gripper(False)", cmd("gripper", False)),
        ("gripper(open=True)", cmd("gripper", True)),
        ("place(0.5, -0.25)", cmd("place", 0.5, -0.25, True)),
        ("place(y=0.1, x=0.2, gentle=false)", cmd("place", 0.2, 0.1, False)),
        ("place(\n  x=0.2,\n  y=0.1,\n)", cmd("place", 0.2, 0.1, True)),
        ("Pickup()", cmd("Pickup")),
        ("pickup( )", cmd("Pickup")),
        ("Turn2(-270)", cmd("Turn2", -270)),
    ],
)
def test_values(text: str, expected: Command) -> None:
    assert parsed(text) == (expected,)


def test_value_types_are_exact() -> None:
    go, lift, grasp, gripper = parsed("Go(8.0); lift(0); grasp(); gripper(true)")
    assert type(go.args[0]) is int
    assert type(lift.args[0]) is float
    assert type(grasp.args[0]) is int
    assert type(gripper.args[0]) is bool


# ------------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "no_commands"),
        ("I don't know what to do here.", "no_commands"),
        ("the ball (red) is near", "no_commands"),
        ("```\n```", "no_commands"),
        ("Jump(3)", "unknown_command"),
        ("Go(5); Jump(3)", "unknown_command"),
        ("Jump(3) Go(5)", "unknown_command"),
        ("Go(5)\nJump(high)\n", "unknown_command"),
        ("- Jump(3)", "unknown_command"),
        ("Now I will Jump(3);", "unknown_command"),
        ("Go(5", "unterminated"),
        ("Go(5\nTurn(3)", "unterminated"),
        ("Go(5; Turn(3)", "unterminated"),
        ('go_to("red key', "unterminated"),
        ("Think(the ball is", "unterminated"),
        ("Think(a; Go(5)", "unterminated"),
        ("Go(max(3, 4))", "syntax"),
        ("Go(,5)", "syntax"),
        ("grasp(block=)", "syntax"),
        ("place(x=0.1, 0.2)", "syntax"),
        ("Go(5 6)", "wrong_type"),
        ("Go()", "wrong_arity"),
        ("Go(5, 6)", "wrong_arity"),
        ("Pickup(3)", "wrong_arity"),
        ("go_to()", "wrong_arity"),
        ('go_to("")', "wrong_arity"),
        ("grasp(blok=0)", "unknown_parameter"),
        ("Pickup(what=1)", "unknown_parameter"),
        ("grasp(1, block=2)", "duplicate_parameter"),
        ("Go(five)", "wrong_type"),
        ("Go(8.5)", "wrong_type"),
        ("Go(true)", "wrong_type"),
        ("Go(0x10)", "wrong_type"),
        ("lift(high)", "wrong_type"),
        ("gripper(1)", "wrong_type"),
        ("Go(500)", "out_of_range"),
        ("Go(-101)", "out_of_range"),
        ("Turn(181)", "out_of_range"),
        ("lift(0.5)", "out_of_range"),
        ("lift(1e999)", "out_of_range"),
        ("grasp(6)", "out_of_range"),
        ("Turn2(45)", "out_of_range"),
        ("paint(purple)", "out_of_range"),
        ("Go(1e999)", "out_of_range"),
        ("Go(" + "9" * 5000 + ")", "out_of_range"),
        ("Okay: Go(500);", "out_of_range"),
        ("I will Go(five) now", "wrong_type"),
    ],
)
def test_error_codes(text: str, code: str) -> None:
    assert error(text).code == code


def test_first_error_wins_and_nothing_is_half_executed() -> None:
    result = error("Turn(30); Go(500); Jump(1)")
    assert result.code == "out_of_range"


def test_unknown_command_message_lists_valid_commands_and_suggests() -> None:
    result = error("Turn(30)\ngo_too(red key)")
    assert result.position == len("Turn(30)\n")
    assert result.snippet == "go_too(red key)"
    assert "`go_too` is not a command" in result.message
    assert "Did you mean `go_to`?" in result.message
    for signature in ("Go(n)", "Turn(degrees)", "Think(text)", "grasp(block=0)", "Pickup()"):
        assert signature in result.message


def test_no_commands_message_lists_valid_commands() -> None:
    result = error("I would rather not.")
    assert "Go(n)" in result.message and "Think(text)" in result.message
    assert result.position is None


def test_error_position_and_snippet_point_at_the_problem() -> None:
    text = "Sure.\nTurn(30); Go(500);\nDone."
    result = error(text)
    assert result.snippet == "Go(500)"
    assert result.position == text.index("500")
    assert "from -100 to 100" in result.message and "`500`" in result.message


def test_unterminated_snippet_is_rest_of_line() -> None:
    result = error("ok\nGo(5 steps\nmore")
    assert result.code == "unterminated"
    assert result.position == 3
    assert result.snippet == "Go(5 steps"


def test_messages_say_how_to_fix() -> None:
    assert "grasp(block=0)" in error("grasp(blok=0)").message
    assert "multiple of 90" in error("Turn2(45)").message
    assert '"red", "green", "blue"' in error("paint(purple)").message
    assert "whole number" in error("Go(8.5)").message
    assert "true or false" in error("gripper(yes)").message
    assert "`Pickup` takes no arguments" in error("Pickup(3)").message
    assert "missing its `target`" in error("go_to()").message


def test_case_sensitive_vocabulary() -> None:
    strict = Vocabulary(VOCAB.commands, case_sensitive=True)
    assert parsed("Go(5)", strict) == (cmd("Go", 5),)
    result = error("go(5)", strict)
    assert result.code == "unknown_command"
    assert "Did you mean `Go`?" in result.message
    assert error("grasp(Block=1)", strict).code == "unknown_parameter"
    assert error("paint(Red)", strict).code == "out_of_range"


def test_model_text_is_never_evaluated() -> None:
    text = "__import__('os').system('echo hi')\nGo(__import__('os'))"
    assert error(text).code in {"syntax", "wrong_type"}


def test_non_string_input_is_an_error_not_an_exception() -> None:
    assert isinstance(parse_script(None, VOCAB), ParseError)  # type: ignore[arg-type]


def test_lazy_package_exports() -> None:
    from agentkit.actions import format_script as exported_format
    from agentkit.actions import parse_script as exported_parse

    assert exported_parse is parse_script and exported_format is format_script


# ------------------------------------------------------------------------------------------------
# Formatter


def test_format_script_is_canonical() -> None:
    script = Script((cmd("Think", 'a "quoted" thought'), cmd("Turn", -30), cmd("Go", 8)))
    assert format_script(script, VOCAB) == r'Think("a \"quoted\" thought"); Turn(-30); Go(8);'


@pytest.mark.parametrize(
    ("command", "text"),
    [
        (cmd("lift", 0.1), "lift(0.1)"),
        (cmd("lift", 1e-05), "lift(1e-05)"),
        (cmd("lift", 0), "lift(0.0)"),
        (cmd("Go", 8.0), "Go(8)"),
        (cmd("gripper", True), "gripper(true)"),
        (cmd("place", 0.5, -0.25, False), "place(0.5, -0.25, false)"),
        (cmd("go_to", "red key"), 'go_to("red key")'),
        (cmd("go", 3), "Go(3)"),
        (cmd("Pickup"), "Pickup()"),
        (cmd("Think", "back\\slash\nnew line\r"), r'Think("back\\slash\nnew line\r")'),
        (cmd("Unknown", "x", 1.5, 2, False), 'Unknown("x", 1.5, 2, false)'),
    ],
)
def test_format_command(command: Command, text: str) -> None:
    assert format_command(command, VOCAB) == text


def test_quote_escapes_backslash_before_quote() -> None:
    assert quote('\\"') == r'"\\\""'


# ------------------------------------------------------------------------------------------------
# Properties

NAMES = [c.name for c in VOCAB.commands] + ["go", "THINK", "Jump", "foo", "text", "block"]
PIECES = [
    "(",
    ")",
    "((",
    "))",
    '"',
    "'",
    "\u201c",
    "\u201d",
    "\u2018",
    "\u2019",
    "\u201e",
    ";",
    ",",
    "=",
    "\\",
    "\\\\",
    '\\"',
    "```",
    "```python\n",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "`",
    "text=",
    "block=",
    "5",
    "-30",
    "+8",
    "8.0",
    "8.5",
    "1e3",
    "1e999",
    ".",
    "true",
    "False",
    "red key",
    "- ",
    "1. ",
    ":)",
    "\u2028",
    "\u00e9",
    "\u732b",
    "",
]
messy_text = st.lists(
    st.one_of(st.sampled_from(NAMES), st.sampled_from(PIECES), st.text(max_size=3)), max_size=40
).map("".join)


def check_result(text: str) -> None:
    """Whatever the text, a Script of valid commands or an explained ParseError; re-formatting is exact."""
    result = parse_script(text, VOCAB)
    assert isinstance(result, (Script, ParseError))
    if isinstance(result, ParseError):
        assert result.code in ERROR_CODES and result.code != "internal_error", result
        assert result.message
        assert result.position is None or 0 <= result.position <= len(text)
        return
    assert len(result) > 0
    for command in result:
        spec = VOCAB.lookup(command.name)
        assert spec is not None and spec.name == command.name
        assert len(command.args) == len(spec.params)
    assert parse_script(format_script(result, VOCAB), VOCAB) == result


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_never_raises(text: str) -> None:
    check_result(text)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messy_text)
def test_command_like_text_never_raises(text: str) -> None:
    check_result(text)


# Text values: the parser strips surrounding whitespace and treats empty text as "not given", so the
# round trip is stated for stripped, non-empty text (anything at all may appear inside it).
free_text = st.text().map(str.strip).filter(bool)


def value_strategy(param: ParamSpec) -> st.SearchStrategy:
    if param.type is T.BOOL:
        return st.booleans()
    if param.type in (T.STR, T.TEXT):
        return st.sampled_from(param.choices) if param.choices else free_text
    low = param.minimum if param.minimum is not None else -(10**6)
    high = param.maximum if param.maximum is not None else 10**6
    if param.type is T.FLOAT:
        return st.floats(low, high, allow_nan=False, allow_infinity=False)
    step = param.multiple_of or 1
    return st.integers(int(low) // step, int(high) // step).map(lambda k: k * step)


def command_strategy(spec: CommandSpec) -> st.SearchStrategy:
    return st.tuples(*(value_strategy(p) for p in spec.params)).map(lambda args: Command(spec.name, args))


scripts = st.lists(st.one_of(*(command_strategy(c) for c in VOCAB.commands)), min_size=1, max_size=6).map(
    lambda commands: Script(tuple(commands))
)


@settings(max_examples=300, deadline=None)
@given(scripts)
def test_format_then_parse_round_trips(script: Script) -> None:
    text = format_script(script, VOCAB)
    assert "\n" not in text and "\r" not in text
    assert parse_script(text, VOCAB) == script
    wrapped = f"Sure, here is my plan:\n```python\n{text}\n```\nGood luck to me!"
    assert parse_script(wrapped, VOCAB) == script
