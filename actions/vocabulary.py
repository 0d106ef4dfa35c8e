"""Command vocabularies declared by backends: names, typed parameters with ranges, one-line docs.

Prompts render :meth:`Vocabulary.describe`; the parser checks arity, types and ranges against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class ParamType(str, Enum):
    INT = "int"
    FLOAT = "float"
    STR = "str"  # a short name or choice, e.g. "red key"
    TEXT = "text"  # free text, e.g. Think's thought: quotes optional, anything inside
    BOOL = "bool"


@dataclass(frozen=True)
class ParamSpec:
    """One parameter: its type, optional bounds (inclusive), choices, step, default and a doc."""

    name: str
    type: ParamType
    doc: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    multiple_of: int | None = None  # e.g. gridworld Turn takes multiples of 90
    default: Any = None
    required: bool = True
    decimals: int | None = None  # a FLOAT written as text keeps this many decimals (None: every digit)

    def signature(self) -> str:
        return self.name if self.required else f"{self.name}={self.default!r}"


@dataclass(frozen=True)
class CommandSpec:
    """A command a backend understands. ``doc`` is one line, shown to the model verbatim."""

    name: str
    params: tuple[ParamSpec, ...] = ()
    doc: str = ""

    def signature(self) -> str:
        return f"{self.name}({', '.join(p.signature() for p in self.params)})"


@dataclass(frozen=True)
class Vocabulary:
    """The set of commands of one backend (or one backend mode)."""

    commands: tuple[CommandSpec, ...]
    case_sensitive: bool = False  # tolerate `go(3)` for `Go(3)`; meaning stays strict
    _index: dict[str, CommandSpec] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for spec in self.commands:
            key = spec.name if self.case_sensitive else spec.name.lower()
            if key in self._index:
                raise ValueError(f"duplicate command {spec.name!r} in vocabulary")
            self._index[key] = spec

    def lookup(self, name: str) -> CommandSpec | None:
        return self._index.get(name if self.case_sensitive else name.lower())

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.commands]

    def describe(self) -> list[dict[str, str]]:
        """Signature and doc of every command, in declaration order, for prompt templates."""
        return [{"name": c.name, "signature": c.signature(), "doc": c.doc} for c in self.commands]
