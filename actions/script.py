"""Typed results of parsing: a Script of Commands, or a ParseError meant for the model to read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentkit.messages import ToolCall

ArgValue = int | float | str | bool


@dataclass(frozen=True)
class Command:
    """One call in a script, with arguments already checked against the vocabulary.

    ``args`` holds the values in the order of the command's declared parameters (defaults filled in),
    so two scripts that mean the same thing compare equal however the model spelled them.
    """

    name: str
    args: tuple[ArgValue, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "args": list(self.args)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Command:
        return cls(name=data["name"], args=tuple(data.get("args", ())))


@dataclass(frozen=True)
class Script:
    """An ordered, non-empty list of commands that one model answer asked for."""

    commands: tuple[Command, ...]

    def __len__(self) -> int:
        return len(self.commands)

    def __iter__(self):
        return iter(self.commands)

    def to_json(self) -> list[dict[str, Any]]:
        return [c.to_json() for c in self.commands]

    @classmethod
    def from_json(cls, data: list[dict[str, Any]]) -> Script:
        return cls(tuple(Command.from_json(d) for d in data))


@dataclass(frozen=True)
class ParseError:
    """Why an answer could not be read as a script.

    ``message`` is addressed to the model (it is rendered into the next prompt); ``code`` is a stable
    machine-readable category for analysis; ``position`` is a character offset into the answer when
    one is known; ``snippet`` is the offending text. For an answer of tool calls, ``call`` is the
    call that was refused (``agentkit.actions.tool_calls``), so its result can say so without the
    calls being read again (``agentkit.actions.tool_results``); it is not stored (the turn keeps the
    calls and their results).
    """

    code: str
    message: str
    position: int | None = None
    snippet: str | None = None
    call: ToolCall | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "position": self.position,
            "snippet": self.snippet,
        }


@dataclass(frozen=True)
class CompileError(Exception):
    """A well-formed command that cannot be carried out in the current state (e.g. "no red key seen").

    Raised by a backend's compiler; the loop stops the script there and shows ``message`` to the model.
    """

    message: str
    command: Command | None = field(default=None)

    def __str__(self) -> str:
        return self.message
