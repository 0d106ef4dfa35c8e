"""The action-script language: what a model writes, parsed (never executed) into typed commands.

Backends declare a :class:`Vocabulary`; :func:`parse_script` turns free model text into a
:class:`Script` or a :class:`ParseError` whose message is shown to the model on its next turn.
"""

from agentkit.actions.script import Command, CompileError, ParseError, Script
from agentkit.actions.vocabulary import CommandSpec, ParamSpec, ParamType, Vocabulary

__all__ = [
    "Command",
    "Script",
    "ParseError",
    "CompileError",
    "ParamSpec",
    "CommandSpec",
    "Vocabulary",
    "ParamType",
    "parse_script",
    "format_script",
]


def __getattr__(name: str):  # lazy: the parser module is imported only when used
    if name == "parse_script":
        from agentkit.actions.parser import parse_script

        return parse_script
    if name == "format_script":
        from agentkit.actions.formatter import format_script

        return format_script
    raise AttributeError(name)
