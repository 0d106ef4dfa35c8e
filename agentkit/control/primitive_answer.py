"""Read a frame-by-frame answer: exactly one of the backend's primitive action names, nothing else.

Why strict: the answer decides the next N steps on its own, so a guess at what a rambling answer
meant would put words in the model's mouth. The spelling is forgiven (case, surrounding spaces,
quotes or backticks, a code fence, a final full stop); the meaning is not: anything but one known
name is a ParseError whose one-line message, listing the names, is shown on the next turn as a
script's parse error is. The answer is only compared with names; it is never executed.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentkit.actions import Command, ParseError, Script

_WRAPPERS = "`'\"\u2018\u2019\u201c\u201d"
_SNIPPET = 60


def _bare(text: str) -> str:
    """The answer without a code fence, quotes or backticks around it, or a final full stop."""
    core = text.strip()
    if core.startswith("```") and core.endswith("```") and len(core) >= 6:
        core = core[3:-3]
        first, newline, rest = core.partition("\n")
        if newline and first.strip().isalpha():  # a fence's language tag (```text)
            core = rest
    core = core.strip().strip(_WRAPPERS).strip()
    if core.endswith("."):
        core = core[:-1].rstrip()
    return core.strip(_WRAPPERS).strip()


def parse_primitive(text: str, names: Sequence[str]) -> Script | ParseError:
    """A one-command Script naming the primitive ``text`` answers, or a ParseError for the model."""
    wanted = _bare(text).lower()
    for name in names:
        if wanted == name.lower():
            return Script((Command(name),))
    shown = " ".join(text.split())
    shown = shown if len(shown) <= _SNIPPET else shown[: _SNIPPET - 3] + "..."
    if not shown:
        message = f"the answer was empty; answer with exactly one action name: {', '.join(names)}"
        return ParseError("empty_answer", message)
    message = f"answer with exactly one action name ({', '.join(names)}), nothing else; got {shown!r}"
    return ParseError("not_a_primitive", message, snippet=shown)
