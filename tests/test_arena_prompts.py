"""The arena's prompt templates: what they tell the model, and the in-context worked example.

The in-context set (``aai-arena-incontext``) carries an ``examples.json`` whose frames are PNG
files beside it; the renderer inlines them, and ``typed_prefix_messages`` puts the example after the
system message as user/assistant turns with image parts (typed: ``agentkit.messages``).
"""

from __future__ import annotations

import base64
import importlib.util
import json
from pathlib import Path

import pytest

from agentkit.messages import ImagePart, Message, TextPart
from agentkit.observers import EncodedImage, Observation
from agentkit.prompts import PromptRenderer, TemplateError
from agentkit.prompts.renderer import resolve_templates

REPO = Path(__file__).resolve().parents[1]
INCONTEXT = REPO / "prompts" / "templates" / "aai-arena-incontext"
HAVE_BACKEND = importlib.util.find_spec("agentkit.envs.arena.backend") is not None

COMMANDS = [
    {"name": "Go", "signature": "Go(n)", "doc": "move forward n steps (negative: backwards)"},
    {"name": "Turn", "signature": "Turn(degrees)", "doc": "turn on the spot; positive is right"},
    {"name": "Think", "signature": "Think(text)", "doc": "reason; no action"},
]
CONTEXT = {"commands": COMMANDS, "max_scripts": 30, "task": "01-01-01", "has_images": True}
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _obs(images: bool = True) -> Observation:
    pics = [EncodedImage("camera", "image/png", PNG, "cd" * 32, 1, 1)] if images else []
    return Observation(step=12, images=pics, status_text="Step: 12\nHealth: 95.2\nTotal reward: -0.048")


def test_system_prompt_explains_world_commands_and_calibration():
    system = PromptRenderer.from_set("aai-arena").typed_system_message(CONTEXT).content
    for fact in (
        "40 by 40",
        "fence",
        "first person",
        "Green sphere",
        "Yellow (gold)",
        "Red sphere",
        "Red floor zone",
        "Orange floor zone",
        "Transparent walls",
        "ramps",
        "blue platform",
        "Cardboard boxes",
        "Tunnels",
    ):
        assert fact in system, fact
    # Go(35), the 6-degree rounding and what Think does are the commands' own docs (the real
    # vocabulary's, test_templates_render_the_real_arena_observation); the template says the rest once.
    for tip in ("Go(10)", "keep rolling", "Turn(90)", "Turn(-90)", "Think("):
        assert tip in system, tip
    assert "Go(n): move forward n steps" in system and "30 scripts" in system


def test_turn_prompt_shows_turn_status_feedback_and_attaches_the_picture():
    renderer = PromptRenderer.from_set("aai-arena")
    user = renderer.typed_turn_message(_obs(), CONTEXT, feedback="unknown command Jump", turn=4)
    text, image = user.content
    assert isinstance(text, TextPart) and "Turn 5 of at most 30" in text.text and "Health: 95.2" in text.text
    assert "unknown command Jump" in text.text and "picture" in text.text
    assert isinstance(image, ImagePart) and image.media_type == "image/png" and image.data == PNG
    plain = PromptRenderer.from_set("aai-arena", include_images=False).typed_turn_message(
        _obs(), CONTEXT, None, 0
    )
    assert isinstance(plain.content, str) and "no picture" in plain.content


def test_incontext_set_is_selectable_by_folder_or_by_name():
    by_path = resolve_templates("aai-arena", INCONTEXT)
    by_name = resolve_templates("aai-arena", "aai-arena-incontext")
    assert by_path == by_name
    assert "examples.json" in by_name and "Worked example" in by_name["system.j2"]
    assert "examples.json" not in resolve_templates("aai-arena")
    with pytest.raises(TemplateError, match="not a directory"):
        resolve_templates("aai-arena", "no-such-set")


def test_incontext_example_comes_after_the_system_message_with_image_parts():
    renderer = PromptRenderer(resolve_templates("aai-arena", "aai-arena-incontext"))
    prefix = renderer.typed_prefix_messages(CONTEXT)
    assert prefix[0].role == "system"
    example = prefix[1:]
    assert len(example) >= 4 and [m.role for m in example] == ["user", "assistant"] * (len(example) // 2)
    first = example[0].content
    assert isinstance(first, tuple) and isinstance(first[0], TextPart) and "example" in first[0].text.lower()
    images = [p for m in example for p in m.images]
    assert len(images) == len(example) // 2
    for part in images:
        assert part.media_type == "image/png"
        assert part.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert all(isinstance(m.content, str) and m.content.startswith("Think(") for m in example[1::2])
    # The first turn of the real episode says the example is over.
    assert "example is over" in renderer.typed_turn_message(_obs(), CONTEXT, None, 0).content[0].text


def test_incontext_example_scripts_parse_in_the_arena_vocabulary():
    spec = json.loads((INCONTEXT / "examples.json").read_text())
    if not HAVE_BACKEND:
        pytest.skip("arena backend not built yet")
    from agentkit.actions import Script, parse_script
    from agentkit.envs.arena.backend import ArenaBackend

    backend = ArenaBackend(frames=False)
    try:
        for turn in spec["turns"]:
            assert isinstance(parse_script(turn["assistant"], backend.vocabulary), Script), turn["assistant"]
    finally:
        backend.close()


def test_examples_without_images_when_the_run_sends_none():
    renderer = PromptRenderer(resolve_templates("aai-arena", "aai-arena-incontext"), include_images=False)
    assert all(isinstance(m.content, str) for m in renderer.typed_example_messages())


def test_stored_sources_alone_rerender_the_example(tmp_path):
    """Images are inlined at resolve time, so a run's stored sources need no files to replay."""
    (tmp_path / "frame.png").write_bytes(PNG)
    (tmp_path / "examples.json").write_text(
        json.dumps(
            {
                "intro": "An example.",
                "turns": [{"user": "Turn 1.", "images": ["frame.png"], "assistant": "Go(3);"}],
            }
        )
    )
    sources = resolve_templates("aai-arena", tmp_path)
    (tmp_path / "frame.png").unlink()
    messages = PromptRenderer(dict(sources)).typed_example_messages()
    assert messages[0].content[0] == TextPart("An example.\n\nTurn 1.")
    assert messages[0].content[1] == ImagePart.of(PNG, "image/png") and messages[0].content[1].data == PNG
    assert messages[1] == Message("assistant", "Go(3);")


@pytest.mark.parametrize(
    "bad",
    [
        '{"turns": [{"user": "x"}]}',
        '{"turns": [{"user": "x", "assistant": "Go(1);", "images": ["../secret.png"]}]}',
        "not json",
    ],
)
def test_malformed_examples_are_a_template_error(tmp_path, bad):
    (tmp_path / "examples.json").write_text(bad)
    with pytest.raises(TemplateError, match="examples.json"):
        PromptRenderer(resolve_templates("aai-arena", tmp_path))


def test_sets_without_examples_have_only_the_system_message():
    renderer = PromptRenderer.from_set("aai-arena")
    assert renderer.typed_example_messages() == [] and len(renderer.typed_prefix_messages(CONTEXT)) == 1


@pytest.mark.skipif(not HAVE_BACKEND, reason="arena backend not built yet")
def test_templates_render_the_real_arena_observation():
    from agentkit.envs.arena.backend import ArenaBackend
    from agentkit.observers import Observer

    backend = ArenaBackend()
    try:
        obs = Observer().observe(backend.reset("01-01-01", 0))
        context = {
            "commands": backend.vocabulary.describe(),
            "max_scripts": 30,
            "task": "01-01-01",
            "has_images": bool(obs.images),
            **backend.prompt_context(),
        }
        for name in ("aai-arena", "aai-arena-incontext"):
            renderer = PromptRenderer(resolve_templates("aai-arena", None if name == "aai-arena" else name))
            system = renderer.typed_system_message(context).content
            assert "Go(35)" in system and "steps of 6 degrees" in system and "Turn(90)" in system
            user = renderer.typed_turn_message(obs, context, None, 0)
            assert isinstance(user.content, tuple) and isinstance(user.content[1], ImagePart)
            assert obs.status_text in user.content[0].text
    finally:
        backend.close()


@pytest.mark.skipif(not HAVE_BACKEND, reason="needs the arena extra")
def test_loop_sends_the_worked_example_between_system_message_and_first_turn():
    """The in-context example must reach the model on every call, not only in the renderer."""
    from agentkit.config import RunConfig
    from agentkit.loop import run_episode
    from agentkit.models.dict_model import OpenAIDictModel
    from agentkit.records import ModelReply
    from agentkit.runs.setup_episode import make_setup

    seen: list[list[dict]] = []

    class Recorder:
        name = "recorder"

        def complete(self, messages):
            seen.append(messages)
            return ModelReply(text="Go(1)")

    config = RunConfig(
        env="aai-arena", tasks=["01-01-01"], templates_dir="aai-arena-incontext", max_scripts=2
    )
    setup = make_setup(config, model_factory=lambda backend: OpenAIDictModel(Recorder()))
    try:
        run_episode(setup, "01-01-01", seed=0)
    finally:
        setup.backend.close()
    assert len(seen) == 2
    first = seen[0]
    assert first[0]["role"] == "system" and first[-1]["role"] == "user"
    assert [m["role"] for m in first[1:5]] == ["user", "assistant", "user", "assistant"]
    assert first[2]["content"].startswith("Think(")
    # With full history the second call repeats the prefix before the first real turn.
    assert seen[1][: len(first) - 1] == first[:-1]
