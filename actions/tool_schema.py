"""A backend's command vocabulary as provider tool schemas (``--action-format tools``, issue 19 item 2).

Why: modern chat APIs take actions as typed tool calls rather than free text. The vocabulary
already declares every command's name, one-line doc and typed parameters with ranges, so the
schemas are derived from it, never written by hand: a model offered ``Go`` as a tool is held to
the same ``n`` in -100..100 that the script language holds it to. The shape is OpenAI's
``{"type": "function", "function": {"name", "description", "parameters"}}``, which litellm
translates for other providers.
"""

from __future__ import annotations

from typing import Any

from agentkit.actions.vocabulary import CommandSpec, ParamSpec, ParamType, Vocabulary

__all__ = ["tool_schemas", "tool_schema"]

_JSON_TYPES = {
    ParamType.INT: "integer",
    ParamType.FLOAT: "number",
    ParamType.STR: "string",
    ParamType.TEXT: "string",
    ParamType.BOOL: "boolean",
}


def _parameter(param: ParamSpec) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": _JSON_TYPES[param.type]}
    if param.doc:
        schema["description"] = param.doc
    if param.minimum is not None:
        schema["minimum"] = param.minimum
    if param.maximum is not None:
        schema["maximum"] = param.maximum
    if param.multiple_of:
        schema["multipleOf"] = param.multiple_of
    if param.choices is not None:
        schema["enum"] = list(param.choices)
    if not param.required and param.default is not None:
        schema["default"] = param.default
    return schema


def tool_schema(spec: CommandSpec) -> dict[str, Any]:
    """One command as a function tool: its doc as the description, its parameters as a JSON schema
    (required ones listed; no others accepted)."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.doc,
            "parameters": {
                "type": "object",
                "properties": {p.name: _parameter(p) for p in spec.params},
                "required": [p.name for p in spec.params if p.required],
                "additionalProperties": False,
            },
        },
    }


def tool_schemas(vocabulary: Vocabulary) -> list[dict[str, Any]]:
    """Every command of ``vocabulary`` as a tool, in declaration order (``Think`` becomes a think tool)."""
    return [tool_schema(spec) for spec in vocabulary.commands]
