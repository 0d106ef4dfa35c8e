"""Commands a program made (a reference agent's plan) as the parser would have read them.

Why: a reference agent knows its commands already; writing them as text only to parse them back
would make the parser part of its plan. What the compiler gets must still be exactly what the
text stored in the transcript reads as, so each value is put in the form the parser gives it:
the declared command name, defaults filled in, whole numbers as ``int``, numbers with a declared
number of decimals as written (:func:`agentkit.actions.formatter.format_script`), text stripped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from agentkit.actions.formatter import written_float
from agentkit.actions.script import ArgValue, Command, Script
from agentkit.actions.vocabulary import ParamSpec, ParamType, Vocabulary

__all__ = ["as_written"]


class _Unwritable(Exception):
    """A value the vocabulary would refuse; the caller reads the text instead, for the parser's own error."""


def as_written(commands: Iterable[Command], vocabulary: Vocabulary) -> Script | None:
    """The Script that the formatted text of ``commands`` parses to, or None when some command
    falls outside the vocabulary (unknown, wrong arity, wrong type, out of range) or there is none."""
    try:
        checked = tuple(_command(command, vocabulary) for command in commands)
    except _Unwritable:
        return None
    return Script(checked) if checked else None


def _command(command: Command, vocabulary: Vocabulary) -> Command:
    spec = vocabulary.lookup(command.name)
    if spec is None or len(command.args) > len(spec.params):
        raise _Unwritable(command.name)
    values: list[ArgValue] = []
    for k, param in enumerate(spec.params):
        given = command.args[k] if k < len(command.args) else None
        if isinstance(given, str) and param.type in (ParamType.STR, ParamType.TEXT) and not given.strip():
            given = None  # the parser reads empty text as "not given"
        if given is None:
            if param.required:
                raise _Unwritable(command.name)
            values.append(param.default)
        else:
            values.append(_value(param, given, vocabulary))
    return Command(spec.name, tuple(values))


def _value(param: ParamSpec, value: ArgValue, vocabulary: Vocabulary) -> ArgValue:
    if param.type is ParamType.BOOL:
        if not isinstance(value, bool):
            raise _Unwritable(param.name)
        return value
    if param.type in (ParamType.STR, ParamType.TEXT):
        text = str(value).strip()
        if param.choices is None:
            return text
        same = (lambda a, b: a == b) if vocabulary.case_sensitive else (lambda a, b: a.lower() == b.lower())
        for choice in param.choices:
            if same(text, choice):
                return choice
        raise _Unwritable(param.name)
    if isinstance(value, (bool, str)):
        raise _Unwritable(param.name)
    number: int | float
    if param.type is ParamType.INT:
        if not float(value).is_integer():
            raise _Unwritable(param.name)
        number = int(value)
    else:
        if not math.isfinite(float(value)):
            raise _Unwritable(param.name)
        number = written_float(float(value), param)
    too_low = param.minimum is not None and number < param.minimum
    too_high = param.maximum is not None and number > param.maximum
    off_step = bool(isinstance(number, int) and param.multiple_of and number % param.multiple_of != 0)
    if too_low or too_high or off_step:
        raise _Unwritable(param.name)
    return number
