"""The renderer's typed messages (agentkit.messages) are the prompts the provider is sent: through the
model client's conversion they are the OpenAI chat dicts the templates and the worked example
describe (text, then each frame as a base64 data URL), for a plain set, a set without images and the
in-context set whose worked example carries frames."""

import base64
import hashlib
import json

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
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()


def _obs(images: bool = True) -> Observation:
    pics = [EncodedImage("camera", "image/png", PNG, hashlib.sha256(PNG).hexdigest(), 1, 1)] if images else []
    return Observation(
        step=12, images=pics, status_text="Step: 12\nHealth: 95.2", mission="go to the red ball"
    )


@pytest.mark.parametrize("template_set", ["aai-arena", "gridworld"])
def test_typed_turn_message_is_sent_as_text_then_image(template_set):
    renderer = PromptRenderer.from_set(template_set)
    typed = renderer.typed_turn_message(_obs(), CONTEXT, "unknown command Jump", 4)
    assert isinstance(typed, Message) and typed.images == (ImagePart.of(PNG, "image/png"),)
    assert "unknown command Jump" in typed.text
    assert to_openai([typed]) == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": typed.text},
                {"type": "image_url", "image_url": {"url": PNG_URL}},
            ],
        }
    ]
    system = renderer.typed_system_message(CONTEXT)
    assert "Go(n)" in system.text
    assert to_openai([system]) == [{"role": "system", "content": system.text}]
    plain = PromptRenderer.from_set(template_set, include_images=False)
    text_only = plain.typed_turn_message(_obs(), CONTEXT, None, 0)
    assert isinstance(text_only.content, str) and "Step: 12" in text_only.content
    assert to_openai([text_only]) == [{"role": "user", "content": text_only.content}]


def _example_as_sent(sources: dict[str, str], images: bool) -> list[dict]:
    """The worked example as the provider gets it, read straight from the resolved examples.json:
    user and assistant turns, the intro before the first user text, each frame's inlined data URL."""
    spec = json.loads(sources["examples.json"])
    out: list[dict] = []
    for k, turn in enumerate(spec["turns"]):
        text = f"{spec['intro']}\n\n{turn['user']}" if k == 0 and spec.get("intro") else turn["user"]
        if images and turn.get("images"):
            parts = [{"type": "text", "text": text}]
            parts += [{"type": "image_url", "image_url": {"url": url}} for url in turn["images"]]
            out.append({"role": "user", "content": parts})
        else:
            out.append({"role": "user", "content": text})
        out.append({"role": "assistant", "content": turn["assistant"]})
    return out


def test_typed_prefix_of_the_incontext_set_carries_its_example_frames_as_bytes():
    renderer = PromptRenderer(resolve_templates("aai-arena", "aai-arena-incontext"))
    typed = renderer.typed_prefix_messages(CONTEXT)
    sources = resolve_templates("aai-arena", "aai-arena-incontext")
    system = {"role": "system", "content": renderer.typed_system_message(CONTEXT).text}
    assert to_openai(typed) == [system, *_example_as_sent(sources, images=True)]
    images = [p for m in typed for p in m.images]
    assert images and all(
        p.data[:8] == b"\x89PNG\r\n\x1a\n" and p.sha256 == hashlib.sha256(p.data).hexdigest() for p in images
    )
    without = PromptRenderer(resolve_templates("aai-arena", "aai-arena-incontext"), include_images=False)
    assert to_openai(without.typed_prefix_messages(CONTEXT)) == [
        system,
        *_example_as_sent(sources, images=False),
    ]


def test_an_example_image_that_is_not_a_data_url_is_one_clear_error(tmp_path):
    (tmp_path / "examples.json").write_text(
        '{"turns": [{"user": "u", "assistant": "a", "images": ["data:image/png;base64,@@"]}]}'
    )
    renderer = PromptRenderer(resolve_templates("aai-arena", tmp_path))
    with pytest.raises(TemplateError, match="examples.json"):
        renderer.typed_example_messages()
