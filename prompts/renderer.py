"""Render an episode's observations into chat messages from Jinja templates.

The ``typed_*`` methods make typed messages (``agentkit.messages``: images as bytes with their
sha256), which only the model client turns into provider JSON and base64.

A template set is a folder with ``system.j2`` (the standing instructions, rendered once per
episode) and ``turn.j2`` (the user message of one turn). The renderer resolves each template from,
in order: the user's folder (``DIR/<set>/name`` then ``DIR/name``), then the package's own set.
The resolved sources are kept so a run can store them and be replayed or re-rendered later from
exactly the text that produced its prompts.

A set may also hold ``examples.json``: a worked example episode shown after the system message as
user/assistant turns, its frames as image parts (in-context learning). Its images are files beside
it; resolving inlines them as data URLs, so the stored sources alone re-render the same prompts.
``--templates`` takes a folder or the name of a packaged set (e.g. ``aai-arena-incontext``).
"""

from __future__ import annotations

import base64
import json
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from agentkit.messages import ImagePart, Message, Part, TextPart
from agentkit.observers import Observation
from agentkit.records import templates_hash  # the one template hash, stored with each run

if TYPE_CHECKING:  # importlib.resources.abc is Python 3.11+; importlib.abc has it from 3.10 on
    from importlib.abc import Traversable

TEMPLATE_NAMES = ("system.j2", "turn.j2")
EXAMPLES_NAME = "examples.json"
_MEDIA_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


class TemplateError(ValueError):
    """A template is missing or fails to render; the message names the template and the line."""


def _package_set(template_set: str) -> Traversable:
    return resources.files("agentkit.prompts").joinpath("templates").joinpath(template_set)


def _read_set(root: Traversable | Path) -> dict[str, str]:
    """The template files and the inlined examples a folder holds (possibly none)."""
    found: dict[str, str] = {}
    for name in TEMPLATE_NAMES:
        entry = root.joinpath(name)
        if entry.is_file():
            found[name] = entry.read_text(encoding="utf-8")
    examples = root.joinpath(EXAMPLES_NAME)
    if examples.is_file():
        found[EXAMPLES_NAME] = _inline_examples(root, examples.read_text(encoding="utf-8"))
    return found


def _inline_examples(root: Traversable | Path, text: str) -> str:
    """``examples.json`` with every image file name replaced by its data URL."""
    try:
        spec = json.loads(text)
        for turn in spec["turns"]:
            images = []
            for image in turn.get("images", []):
                if not image.startswith("data:"):
                    suffix = "." + image.rsplit(".", 1)[-1].lower()
                    if suffix not in _MEDIA_TYPES or "/" in image or "\\" in image:
                        raise TemplateError(
                            f"{EXAMPLES_NAME}: image {image!r} must be a .png or .jpg file beside it"
                        )
                    data = base64.b64encode(root.joinpath(image).read_bytes()).decode("ascii")
                    image = f"data:{_MEDIA_TYPES[suffix]};base64,{data}"
                images.append(image)
            turn["images"] = images
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise TemplateError(f"{EXAMPLES_NAME}: {exc}") from exc
    return json.dumps(spec, ensure_ascii=False)


def _package_templates(template_set: str) -> dict[str, str]:
    return _read_set(_package_set(template_set))


def resolve_templates(template_set: str, user_dir: str | Path | None = None) -> dict[str, str]:
    """The effective template sources: the package set overridden file by file by ``user_dir``."""
    sources = _package_templates(template_set)
    if user_dir is not None:
        base = Path(user_dir)
        if not base.is_dir():
            packaged = _package_set(str(user_dir)) if str(user_dir).replace("-", "").isalnum() else None
            if packaged is None or not packaged.is_dir():
                raise TemplateError(f"--templates {base}: not a directory (nor a packaged template set)")
            from agentkit.prompts.template_sets import check_for_backend

            check_for_backend(str(user_dir), template_set)  # a set written for another backend is refused
            sources.update(_read_set(packaged))
        else:
            from agentkit.prompts.template_sets import check_folder_for_backend

            check_folder_for_backend(base, template_set)  # a copied set of another backend is refused
            for folder in (base, base / template_set):  # the more specific folder wins
                if folder.is_dir():
                    sources.update(_read_set(folder))
    missing = [n for n in TEMPLATE_NAMES if n not in sources]
    if missing:
        raise TemplateError(f"template set {template_set!r} lacks {', '.join(missing)}")
    return sources


def _image_part(url: str) -> ImagePart:
    """An example's image (a ``data:<type>;base64,`` URL, as resolving inlined it) as a typed part."""
    header, comma, payload = url.partition(",")
    if not (url.startswith("data:") and comma and header.endswith(";base64")):
        raise TemplateError(f"{EXAMPLES_NAME}: an image is not an inlined data URL: {url[:40]!r}")
    try:
        data = base64.b64decode(payload, validate=True)
    except ValueError as exc:
        raise TemplateError(f"{EXAMPLES_NAME}: an image's base64 is broken: {exc}") from exc
    return ImagePart.of(data, header[len("data:") : -len(";base64")])


class _PromptSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with its verdict on each attribute remembered per (type, name).

    Why: the verdict (no private or internal attributes, no methods that change a list, dict or
    set) depends only on the object's type and the attribute's name, and checking it again on
    every access was a third of a prompt's rendering time, which ``agentkit rerender`` pays for
    every recorded turn.
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._verdicts: dict[tuple[type, str], bool] = {}

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        key = (type(obj), attr)
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = super().is_safe_attribute(obj, attr, value)
        return verdict


class PromptRenderer:
    """Turns (observation, feedback) into messages. Holds compiled templates; cheap to call per turn."""

    def __init__(self, sources: dict[str, str], include_images: bool = True) -> None:
        self.sources = dict(sources)
        self.hash = templates_hash(self.sources)
        self.include_images = include_images
        self._env = _PromptSandbox(
            loader=jinja2.DictLoader(self.sources),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=False,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self._examples: dict[str, Any] = {}
        self._typed_examples: list[Message] | None = None
        if EXAMPLES_NAME in self.sources:
            try:
                self._examples = json.loads(self.sources[EXAMPLES_NAME])
                for turn in self._examples["turns"]:
                    if not isinstance(turn["user"], str) or not isinstance(turn["assistant"], str):
                        raise TypeError("each turn needs 'user' and 'assistant' text")
            except (ValueError, KeyError, TypeError) as exc:
                raise TemplateError(f"{EXAMPLES_NAME}: {exc}") from exc
        try:
            self._system = self._env.get_template("system.j2")
            self._turn = self._env.get_template("turn.j2")
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(f"{exc.name or exc.filename}:{exc.lineno}: {exc.message}") from exc

    @classmethod
    def from_set(
        cls, template_set: str, user_dir: str | Path | None = None, include_images: bool = True
    ) -> PromptRenderer:
        return cls(resolve_templates(template_set, user_dir), include_images=include_images)

    def _render(self, template: jinja2.Template, variables: dict[str, Any]) -> str:
        try:
            return template.render(**variables).strip()
        except jinja2.UndefinedError as exc:
            raise TemplateError(f"{template.name}: {exc.message}") from exc
        except jinja2.TemplateError as exc:
            raise TemplateError(f"{template.name}: {exc}") from exc

    # --- typed messages (agentkit.messages): images as bytes with their sha256, no base64 -----------

    def typed_system_message(self, context: dict[str, Any]) -> Message:
        """The standing instructions as a typed message."""
        return Message("system", self._render(self._system, context))

    def typed_example_messages(self) -> list[Message]:
        """The set's worked example as alternating user/assistant messages (none without examples.json).

        The first user message opens with the example's ``intro``; its images (decoded once, with
        their sha256) follow each turn's text as image parts, or are left out when the run sends none.
        """
        if self._typed_examples is None:
            out: list[Message] = []
            for text, images, answer in self._example_turns():
                if images and self.include_images:
                    parts: list[Part] = [TextPart(text)]
                    parts.extend(_image_part(url) for url in images)
                    out.append(Message("user", tuple(parts)))
                else:
                    out.append(Message("user", text))
                out.append(Message("assistant", answer))
            self._typed_examples = out
        return list(self._typed_examples)

    def typed_prefix_messages(self, context: dict[str, Any]) -> list[Message]:
        """What opens every prompt of an episode, typed: the system message, then the worked example."""
        return [self.typed_system_message(context), *self.typed_example_messages()]

    def typed_turn_message(
        self, observation: Observation, context: dict[str, Any], feedback: str | None, turn: int
    ) -> Message:
        """One user message, typed: the rendered text, then the observation's images as image parts."""
        text = self._turn_text(observation, context, feedback, turn)
        if not (self.include_images and observation.images):
            return Message("user", text)
        return Message(
            "user", (TextPart(text), *(ImagePart(i.data, i.media_type, i.sha256) for i in observation.images))
        )

    def _example_turns(self) -> list[tuple[str, list[str], str]]:
        """Each example turn's user text (the intro opening the first), image data URLs and answer."""
        out = []
        for k, turn in enumerate(self._examples.get("turns", [])):
            text = (
                turn["user"]
                if k or not self._examples.get("intro")
                else f"{self._examples['intro']}\n\n{turn['user']}"
            )
            out.append((text, turn.get("images", []), turn["assistant"]))
        return out

    def _turn_text(
        self, observation: Observation, context: dict[str, Any], feedback: str | None, turn: int
    ) -> str:
        return self._render(
            self._turn,
            {
                **context,
                "obs": observation,
                "feedback": feedback,
                "turn": turn,
                "has_images": self.include_images and bool(observation.images),
            },
        )
