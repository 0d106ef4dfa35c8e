"""Write scripts back as canonical action-script text, the form the parser reads most plainly.

Canonical text is what reference agents, replays and few-shot examples show the model, so it must
read back exactly: ``parse_script(format_script(s, v), v) == s`` for every valid script whose text
values have no surrounding whitespace (the parser strips it; see :mod:`agentkit.actions.parser`).
"""

from __future__ import annotations

from agentkit.actions.script import ArgValue, Command, Script
from agentkit.actions.vocabulary import ParamType, Vocabulary

__all__ = ["format_script", "format_command", "quote"]

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
    types = [p.type for p in spec.params] if spec is not None else []
    parts = [_format_value(value, types[k] if k < len(types) else None) for k, value in enumerate(command.args)]
    return f"{name}({', '.join(parts)})"


def quote(text: str) -> str:
    """Double-quote ``text`` with the escapes the parser decodes."""
    for raw, escaped in _ESCAPED:
        text = text.replace(raw, escaped)
    return f'"{text}"'


def _format_value(value: ArgValue, declared: ParamType | None) -> str:
    if declared is ParamType.BOOL or isinstance(value, bool):
        return "true" if value else "false"
    if declared in (ParamType.STR, ParamType.TEXT) or isinstance(value, str):
        return quote(str(value))
    if declared is ParamType.INT and isinstance(value, float) and value.is_integer():
        return str(int(value))
    if declared is ParamType.FLOAT or isinstance(value, float):
        return repr(float(value))  # repr round-trips exactly; a non-integral "int" stays visible
    return str(value)
