"""Tests that a runaway answer cannot make the parser slow or flood the next prompt (issue 15, item 8).

A misbehaving server once sent a 10 MB answer that took 290 s to read. The parser now refuses script
text over MAX_SCRIPT_CHARS with one explained error, reads everything below linearly, and echoes at
most 40 characters of an unknown command's name. These tests check the behaviour (codes, messages);
the speed figures are in bench/parser_speed.py.
"""

from __future__ import annotations

from agentkit.actions import CommandSpec, ParamSpec, ParamType, Vocabulary
from agentkit.actions.parser import ERROR_CODES, MAX_SCRIPT_CHARS, parse_script
from agentkit.actions.script import ParseError, Script

VOCAB = Vocabulary(
    (
        CommandSpec("Go", (ParamSpec("n", ParamType.INT, minimum=-100, maximum=100),)),
        CommandSpec("Think", (ParamSpec("text", ParamType.TEXT),)),
    )
)
MEGABYTE = 1 << 20


def test_a_one_megabyte_answer_is_refused_with_one_explained_error() -> None:
    answer = ("Go(1); " * (MEGABYTE // 7 + 1))[:MEGABYTE]
    result = parse_script(answer, VOCAB)
    assert isinstance(result, ParseError)
    assert result.code == "too_long" and result.code in ERROR_CODES
    assert f"{MAX_SCRIPT_CHARS:,}" in result.message and f"{MEGABYTE:,}" in result.message
    assert len(result.message) < 300


def test_a_long_thought_counts_toward_the_limit() -> None:
    inside = f'Think("{"x" * (MAX_SCRIPT_CHARS - 20)}"); Go(1)'
    result = parse_script(inside, VOCAB)
    assert isinstance(result, Script) and [c.name for c in result] == ["Think", "Go"]
    outside = f'Think("{"x" * MAX_SCRIPT_CHARS}"); Go(1)'
    assert parse_script(outside, VOCAB).code == "too_long"  # type: ignore[union-attr]


def test_long_prose_around_a_fenced_script_is_not_counted() -> None:
    answer = "blah " * (MEGABYTE // 5) + "\n```\nGo(3)\n```\n" + "more prose " * 1000
    result = parse_script(answer, VOCAB)
    assert isinstance(result, Script) and result.commands[0].args == (3,)


def test_a_long_unknown_command_name_is_cut_in_the_feedback() -> None:
    name = "Jump" + "x" * 50_000
    result = parse_script(f"{name}(1)", VOCAB)
    assert isinstance(result, ParseError) and result.code == "unknown_command"
    assert f"`{name[:40]}...`" in result.message
    assert len(result.message) < 400 and len(result.snippet or "") <= 80


def test_adversarial_answers_just_under_the_limit_still_read_to_an_answer() -> None:
    """Shapes that used to make every look-ahead scan to the end of the answer."""
    for piece, code in (("Turn ( x ", "no_commands"), ("abc(", "no_commands"), ("think (x ", "no_commands")):
        answer = (piece * (MAX_SCRIPT_CHARS // len(piece)))[: MAX_SCRIPT_CHARS - 1]
        result = parse_script(answer, VOCAB)
        assert isinstance(result, ParseError) and result.code == code, (piece, result)
    many = "Go(1); " * (MAX_SCRIPT_CHARS // 8)
    result = parse_script(many, VOCAB)
    assert isinstance(result, Script) and len(result) == MAX_SCRIPT_CHARS // 8
