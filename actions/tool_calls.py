"""Tool calls read as a Script, by the same rules as script text (``--action-format tools``).

Why the same rules: a tool call is the model's answer in another form, so it must mean what the
equivalent text would mean and be refused for what the text would be refused for (unknown
command, unknown or missing parameter, wrong type, out of range), with the same message shown to
the model (as the tool result). Each argument's JSON value is handed to the parser's own binding
(``agentkit.actions.parser``) as the text it would have been written as, so a tool call can never
be read more leniently or more strictly than the script. Arguments are data: nothing is executed.
"""

from __future__ import annotations

import json
import math
from typing import Any

from agentkit.actions.parser import _bind, _RawArg, _Reject
from agentkit.actions.script import Command, ParseError, Script
from agentkit.actions.vocabulary import Vocabulary
from agentkit.messages import (
    ToolCall,
    has_lone_surrogate,
)  # the typed call of an answer (one type, shared with the models)

__all__ = ["ToolCall", "script_from_tool_calls"]

_MAX_ARGUMENTS_CHARS = 65_536  # as the parser refuses over 64 Ki of script text


def _as_text(value: Any) -> str | None:
    """A JSON value as the parser's argument text, or None for one no script could hold (a list,
    an object, null, a number that is not finite)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, str):
        return value
    return None


def _holds_lone_surrogate(value: Any) -> bool:
    """Whether the decoded arguments hold a lone surrogate in a key or text value (JSON's ``\\ud800``
    decodes to one): quoted back in a refusal or a result, it would make the next request unsendable.
    A walk with its own stack: nested values are as deep as 64 Ki of JSON allows."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if has_lone_surrogate(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _command(call: ToolCall, vocabulary: Vocabulary) -> Command:
    spec = vocabulary.lookup(call.name)
    if spec is None:
        known = ", ".join(vocabulary.names)
        raise _Reject(
            ParseError("unknown_command", f"There is no tool `{call.name[:40]}`; the tools are: {known}.")
        )
    if len(call.arguments) > _MAX_ARGUMENTS_CHARS:
        raise _Reject(
            ParseError(
                "too_long",
                f"The arguments of `{spec.name}` are over {_MAX_ARGUMENTS_CHARS:,} "
                "characters; give short values.",
            )
        )
    try:
        given = json.loads(call.arguments or "{}")
    except (ValueError, RecursionError):  # RecursionError: lists nested thousands deep
        raise _Reject(
            ParseError(
                "syntax",
                f"The arguments of `{spec.name}` are not valid JSON; give an object "
                f'such as {{"{spec.params[0].name if spec.params else "x"}": ...}}.',
            )
        ) from None
    if _holds_lone_surrogate(given):
        raise _Reject(
            ParseError(
                "syntax",
                f"The arguments of `{spec.name}` hold a lone surrogate (an escape such as \\ud800 "
                "alone), which is no character; write plain text.",
            )
        )
    if not isinstance(given, dict):
        raise _Reject(
            ParseError(
                "syntax",
                f"The arguments of `{spec.name}` must be a JSON object of named values: {spec.signature()}.",
            )
        )
    raw = []
    for name, value in given.items():
        text = _as_text(value)
        if text is None:
            raise _Reject(
                ParseError(
                    "wrong_type",
                    f"`{spec.name}`'s `{str(name)[:40]}` must be a single number, "
                    f"text or true/false: {spec.signature()}.",
                )
            )
        raw.append(_RawArg(keyword=str(name), value=text, position=0))
    return Command(spec.name, _bind(spec, raw, vocabulary))


def script_from_tool_calls(calls: list[ToolCall], vocabulary: Vocabulary) -> Script | ParseError:
    """The Script the calls mean, in order, or the ParseError of the first call that cannot be read,
    naming that call (its message is what the model is told, as the result of that call)."""
    if not calls:
        return ParseError(
            "no_commands", "The answer called no tool; call one of: " + ", ".join(vocabulary.names) + "."
        )
    commands = []
    for call in calls:
        try:
            commands.append(_command(call, vocabulary))
        except _Reject as problem:  # the refused call travels with its error, for its tool result
            return ParseError(problem.error.code, problem.error.message, None, problem.error.snippet, call)
    return Script(tuple(commands))
