"""Fold the system message into the first user message, for models that have no system role.

Why: some models (Gemma's chat template, several local servers, early o1 models) refuse a system
message or silently drop it, and the model then plays without its instructions. With
``fold_system`` (``--fold-system``, an experiment file's ``fold_system: true``) the client sends
the same text as the opening of the first user message instead. Only the request changes: the
store keeps the messages as rendered, and the run's config records that they were folded.
"""

from __future__ import annotations

from typing import Any

SEPARATOR = "\n\n"


def fold_system_message(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` without system messages, their text put before the first user message's content
    (as a text part when that content is a list of parts). Without a user message the system
    text becomes one. The input is not changed."""
    system = [m for m in messages if m.get("role") == "system"]
    if not system:
        return messages
    text = SEPARATOR.join(_text(m.get("content")) for m in system)
    rest = [m for m in messages if m.get("role") != "system"]
    for i, message in enumerate(rest):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                folded: Any = [{"type": "text", "text": text}, *content]
            else:
                folded = f"{text}{SEPARATOR}{content or ''}"
            return [*rest[:i], {**message, "content": folded}, *rest[i + 1 :]]
    return [{"role": "user", "content": text}, *rest]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # a system message of parts: its text parts, in order
        return "\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return "" if content is None else str(content)
