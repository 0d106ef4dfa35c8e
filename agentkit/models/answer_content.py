"""An answer whose message content is a list of parts, read as its text or refused in one line.

Why: some OpenAI-compatible servers answer ``"content": [{"type": "text", "text": "..."}]`` where
the chat format has a string. litellm cannot read that, raised "Invalid response object" with a
traceback inside its message, reported it as a server 500 and retried it: a paid answer bought again
and a message saying nothing of the cause (issue 29, row 13). Text parts are the answer's text, so
they are joined as they are (nothing lost); any other part (an image, audio) is refused in one line
naming the field and the endpoint, since the loop reads answers as text only.
"""

from __future__ import annotations

from typing import Any

from agentkit.models.answer_size import RefusedAnswer


def joined_text_parts(data: dict[str, Any], endpoint: str) -> bool:
    """Make every ``choices[i].message.content`` that is a list of text parts its joined text;
    whether anything changed. Raises :class:`RefusedAnswer` for parts that are not text."""
    choices = data.get("choices")
    if not isinstance(choices, list):
        return False
    changed = False
    for i, choice in enumerate(choices):
        message = choice.get("message") if isinstance(choice, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list) or not isinstance(message, dict):
            continue
        kinds = sorted({_kind(part) for part in content} - {"text"})
        if kinds:
            raise RefusedAnswer(
                f"the answer of {endpoint} has choices[{i}].message.content as parts of type "
                f"{', '.join(kinds)}; only text is read (a string, or parts of type text)"
            )
        message["content"] = "".join(part["text"] for part in content)
        changed = True
    return changed


def _kind(part: Any) -> str:
    """A part's type as the refusal names it: "text" only for a text part with text."""
    if not isinstance(part, dict):
        return type(part).__name__
    kind = part.get("type")
    if kind == "text" and not isinstance(part.get("text"), str):
        return "text without a text string"
    return str(kind)[:40]
