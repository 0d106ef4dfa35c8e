"""Render an episode's observations into OpenAI-style chat messages from Jinja templates.

A template set is a folder with ``system.j2`` (the standing instructions, rendered once per
episode) and ``turn.j2`` (the user message of one turn). The renderer resolves each template from,
in order: the user's folder (``DIR/<set>/name`` then ``DIR/name``), then the package's own set.
The resolved sources are kept so a run can store them and be replayed or re-rendered later from
exactly the text that produced its prompts.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from agentkit.observers import Observation

TEMPLATE_NAMES = ("system.j2", "turn.j2")


class TemplateError(ValueError):
    """A template is missing or fails to render; the message names the template and the line."""


def _package_templates(template_set: str) -> dict[str, str]:
    root = resources.files("agentkit.prompts").joinpath("templates", template_set)
    found: dict[str, str] = {}
    for name in TEMPLATE_NAMES:
        entry = root.joinpath(name)
        if entry.is_file():
            found[name] = entry.read_text(encoding="utf-8")
    return found


def resolve_templates(template_set: str, user_dir: str | Path | None = None) -> dict[str, str]:
    """The effective template sources: the package set overridden file by file by ``user_dir``."""
    sources = _package_templates(template_set)
    if user_dir is not None:
        base = Path(user_dir)
        if not base.is_dir():
            raise TemplateError(f"--templates {base}: not a directory")
        for name in TEMPLATE_NAMES:
            for candidate in (base / template_set / name, base / name):
                if candidate.is_file():
                    sources[name] = candidate.read_text(encoding="utf-8")
                    break
    missing = [n for n in TEMPLATE_NAMES if n not in sources]
    if missing:
        raise TemplateError(f"template set {template_set!r} lacks {', '.join(missing)}")
    return sources


def templates_hash(sources: dict[str, str]) -> str:
    digest = hashlib.sha256()
    for name in sorted(sources):
        digest.update(name.encode() + b"\0" + sources[name].encode() + b"\0")
    return digest.hexdigest()


class PromptRenderer:
    """Turns (observation, feedback) into messages. Holds compiled templates; cheap to call per turn."""

    def __init__(self, sources: dict[str, str], include_images: bool = True) -> None:
        self.sources = dict(sources)
        self.hash = templates_hash(self.sources)
        self.include_images = include_images
        self._env = ImmutableSandboxedEnvironment(
            loader=jinja2.DictLoader(self.sources),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=False,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        try:
            self._system = self._env.get_template("system.j2")
            self._turn = self._env.get_template("turn.j2")
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(f"{exc.name or exc.filename}:{exc.lineno}: {exc.message}") from exc

    @classmethod
    def from_set(cls, template_set: str, user_dir: str | Path | None = None, include_images: bool = True) -> "PromptRenderer":
        return cls(resolve_templates(template_set, user_dir), include_images=include_images)

    def _render(self, template: jinja2.Template, variables: dict[str, Any]) -> str:
        try:
            return template.render(**variables).strip()
        except jinja2.UndefinedError as exc:
            raise TemplateError(f"{template.name}: {exc.message}") from exc
        except jinja2.TemplateError as exc:
            raise TemplateError(f"{template.name}: {exc}") from exc

    def system_message(self, context: dict[str, Any]) -> dict[str, Any]:
        """The standing instructions; ``context`` holds vocabulary docs and backend variables."""
        return {"role": "system", "content": self._render(self._system, context)}

    def turn_message(
        self, observation: Observation, context: dict[str, Any], feedback: str | None, turn: int
    ) -> dict[str, Any]:
        """One user message: the rendered text, then the observation's images as image parts."""
        text = self._render(
            self._turn,
            {**context, "obs": observation, "feedback": feedback, "turn": turn, "has_images": self.include_images and bool(observation.images)},
        )
        if not (self.include_images and observation.images):
            return {"role": "user", "content": text}
        parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
        for image in observation.images:
            parts.append({"type": "image_url", "image_url": {"url": image.data_url()}})
        return {"role": "user", "content": parts}
