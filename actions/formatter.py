"""Write scripts back as canonical action-script text, the form the parser reads most plainly.

Canonical text is what reference agents, replays and few-shot examples show the model, so it must
read back exactly: ``parse_script(format_script(s, v), v) == s`` for every valid script whose text
values have no surrounding whitespace (the parser strips it; see :mod:`agentkit.actions.parser`)
and whose numbers have no more decimals than their parameters' ``decimals``.
It is the one writer of script text: reference agents' typed commands are stored in this form.
"""

from __future__ import annotations

from agentkit.actions.script import ArgValue, Command, Script
from agentkit.actions.vocabulary import ParamSpec, ParamType, Vocabulary

__all__ = ["format_script", "format_command", "quote", "written_float"]

# Backslash first, so the backslashes added for the other characters are not doubled again.
# Line breaks are escaped to keep a script on one line (and so no line can start a code fence).
_ESCAPED = (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"))


def format_script(script: Script, vocabulary: Vocabulary) -> str:
    """One line: every command followed by ``;``, separated by a space."""
    return " ".join(format_command(command, vocabulary) + ";" for command in script.commands)


def format_command(command: Command, vocabulary: Vocabulary) -> str:
    """``Name(arg, ...)`` with positional arguments, typed by the vocabulary when it knows the command.

    A command the vocabulary does not know is still written (typed by its values), because formatting
    is for showing and logging, not for validating.
    """
    spec = vocabulary.lookup(command.name)
    name = spec.name if spec is not None else command.name
    params = spec.params if spec is not None else ()
    parts = [
        _format_value(value, params[k] if k < len(params) else None) for k, value in enumerate(command.args)
    ]
    return f"{name}({', '.join(parts)})"


def quote(text: str) -> str:
    """Double-quote ``text`` with the escapes the parser decodes."""
    for raw, escaped in _ESCAPED:
        text = text.replace(raw, escaped)
    return f'"{text}"'


def _format_value(value: ArgValue, param: ParamSpec | None) -> str:
    declared = param.type if param is not None else None
    if (
        declared is ParamType.FLOAT
        and param is not None
        and param.decimals is not None
        and not isinstance(value, bool)
    ):
        return _fixed(float(value), param.decimals)
    if declared is ParamType.BOOL or isinstance(value, bool):
        return "true" if value else "false"
    if declared in (ParamType.STR, ParamType.TEXT) or isinstance(value, str):
        return quote(str(value))
    if declared is ParamType.INT and isinstance(value, float) and value.is_integer():
        return str(int(value))
    if declared is ParamType.FLOAT or isinstance(value, float):
        return repr(float(value))  # repr round-trips exactly; a non-integral "int" stays visible
    return str(value)


def written_float(value: float, param: ParamSpec) -> float:
    """``value`` as it reads back once written for ``param`` (rounded to its ``decimals``, if any)."""
    return float(_fixed(value, param.decimals)) if param.decimals is not None else value


def _fixed(value: float, decimals: int) -> str:
    """At most ``decimals`` decimals, trailing zeros dropped (``0.08``, ``0.1235``, ``2``); zero is ``0``."""
    if not value:
        return "0"
    return f"{value:.{decimals}f}".rstrip("0").rstrip(".")
