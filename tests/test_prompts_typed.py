"""The renderer's typed messages (agentkit.messages) are its dict messages, typed: sent through the
model client's conversion they are the very dicts ``turn_message`` and ``prefix_messages`` make,
for a plain set, a set without images and the in-context set whose worked example carries frames."""

import base64
import hashlib

import pytest

from agentkit.messages import ImagePart, Message
from agentkit.models.openai_messages import to_openai
from agentkit.observers import EncodedImage, Observation
from agentkit.prompts import PromptRenderer, TemplateError
from agentkit.prompts.renderer import resolve_templates

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
COMMANDS = [{"name": "Go", "signature": "Go(n)", "doc": "move forward n steps"}]
CONTEXT = {"commands": COMMANDS, "max_scripts": 30, "task": "01-01-01", "has_images": True}


def _obs(images: bool = True) -> Observation:
    pics = [EncodedImage("camera", "image/png", PNG, hashlib.sha256(PNG).hexdigest(), 1, 1)] if images else []
    return Observation(
        step=12, images=pics, status_text="Step: 12\nHealth: 95.2", mission="go to the red ball"
    )


@pytest.mark.parametrize("template_set", ["aai-arena", "gridworld"])
def test_typed_turn_message_is_the_dict_turn_message(template_set):
    renderer = PromptRenderer.from_set(template_set)
    typed = renderer.typed_turn_message(_obs(), CONTEXT, "unknown command Jump", 4)
    assert isinstance(typed, Message) and typed.images == (ImagePart.of(PNG, "image/png"),)
    assert to_openai([typed]) == [renderer.turn_message(_obs(), CONTEXT, "unknown command Jump", 4)]
    assert to_openai([renderer.typed_system_message(CONTEXT)]) == [renderer.system_message(CONTEXT)]
    plain = PromptRenderer.from_set(template_set, include_images=False)
    assert to_openai([plain.typed_turn_message(_obs(), CONTEXT, None, 0)]) == [
        plain.turn_message(_obs(), CONTEXT, None, 0)
    ]


def test_typed_prefix_of_the_incontext_set_carries_its_example_frames_as_bytes():
    renderer = PromptRenderer(resolve_templates("aai-arena", "aai-arena-incontext"))
    typed = renderer.typed_prefix_messages(CONTEXT)
    assert to_openai(typed) == renderer.prefix_messages(CONTEXT)
    images = [p for m in typed for p in m.images]
    assert images and all(
        p.data[:8] == b"\x89PNG\r\n\x1a\n" and p.sha256 == hashlib.sha256(p.data).hexdigest() for p in images
    )
    without = PromptRenderer(resolve_templates("aai-arena", "aai-arena-incontext"), include_images=False)
    assert to_openai(without.typed_prefix_messages(CONTEXT)) == without.prefix_messages(CONTEXT)


def test_an_example_image_that_is_not_a_data_url_is_one_clear_error(tmp_path):
    (tmp_path / "examples.json").write_text(
        '{"turns": [{"user": "u", "assistant": "a", "images": ["data:image/png;base64,@@"]}]}'
    )
    renderer = PromptRenderer(resolve_templates("aai-arena", tmp_path))
    with pytest.raises(TemplateError, match="examples.json"):
        renderer.typed_example_messages()
