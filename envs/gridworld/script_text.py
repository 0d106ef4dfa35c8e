"""Commands as canonical script text (``Turn(-90); Go(3); Pickup();``) for the reference agent.

The reference agent answers with text, like a model does, so its answers travel through the same
parser. This is a deliberately tiny local writer of the canonical form; the project-wide formatter
lives in ``agentkit.actions.formatter`` and should produce the same text.
"""

from __future__ import annotations

from collections.abc import Iterable

from agentkit.actions import Command
from agentkit.actions.script import ArgValue


def _literal(value: ArgValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def format_commands(commands: Iterable[Command]) -> str:
    """``Name(arg, ...)`` per command, ``; ``-separated, with a trailing ``;``."""
    parts = [f"{c.name}({', '.join(_literal(a) for a in c.args)});" for c in commands]
    return " ".join(parts)
