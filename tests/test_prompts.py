"""Templates render to chat messages, are overridable file by file, and fail loudly on typos."""

import pytest

from agentkit.messages import ImagePart, TextPart
from agentkit.observers import EncodedImage, Observation
from agentkit.prompts import PromptRenderer, TemplateError
from agentkit.prompts.renderer import resolve_templates, templates_hash

CONTEXT = {
    "commands": [{"name": "Go", "signature": "Go(n)", "doc": "move n cells"}],
    "max_scripts": 30,
    "task": "T",
    "has_images": True,
}


def _obs(with_image=True) -> Observation:
    images = [EncodedImage("view", "image/png", b"\x89PNGdata", "ab" * 32, 4, 4)] if with_image else []
    return Observation(
        step=3,
        images=images,
        status_text="Step: 3\nMission: go to the red ball",  # the status block carries the mission
        ascii="#.>",
        mission="go to the red ball",
    )


def test_gridworld_set_renders_system_and_turn_with_image_part():
    r = PromptRenderer.from_set("gridworld")
    system = r.typed_system_message(CONTEXT)
    assert system.role == "system" and "Go(n): move n cells" in system.content
    user = r.typed_turn_message(_obs(), CONTEXT, feedback="unknown command Jump", turn=0)
    assert user.role == "user"
    text, image = user.content
    assert (
        isinstance(text, TextPart)
        and "go to the red ball" in text.text
        and "unknown command Jump" in text.text
    )
    assert isinstance(image, ImagePart) and image.media_type == "image/png"


def test_text_only_renderer_sends_a_plain_string():
    r = PromptRenderer.from_set("gridworld", include_images=False)
    user = r.typed_turn_message(_obs(), CONTEXT, feedback=None, turn=1)
    assert isinstance(user.content, str) and "Turn 2" in user.content


def test_user_folder_overrides_one_template_and_changes_the_hash(tmp_path):
    (tmp_path / "turn.j2").write_text("Seen: {{ obs.ascii }}")
    base = resolve_templates("gridworld")
    mine = resolve_templates("gridworld", tmp_path)
    assert mine["system.j2"] == base["system.j2"] and mine["turn.j2"] == "Seen: {{ obs.ascii }}"
    assert templates_hash(mine) != templates_hash(base)
    r = PromptRenderer(mine, include_images=False)
    assert r.typed_turn_message(_obs(False), CONTEXT, None, 0).content == "Seen: #.>"


def test_undefined_variable_is_an_error_naming_the_template(tmp_path):
    (tmp_path / "turn.j2").write_text("{{ obs.no_such_view }}")
    r = PromptRenderer(resolve_templates("gridworld", tmp_path))
    with pytest.raises(TemplateError, match="turn.j2"):
        r.typed_turn_message(_obs(), CONTEXT, None, 0)


def test_syntax_error_names_template_and_line(tmp_path):
    (tmp_path / "system.j2").write_text("ok\n{% if %}")
    with pytest.raises(TemplateError, match=r"system.j2:2"):
        PromptRenderer(resolve_templates("gridworld", tmp_path))


def test_sandbox_refuses_unsafe_attribute_access(tmp_path):
    (tmp_path / "turn.j2").write_text("{{ obs.__class__.__mro__ }}")
    r = PromptRenderer(resolve_templates("gridworld", tmp_path))
    with pytest.raises(TemplateError):
        r.typed_turn_message(_obs(), CONTEXT, None, 0)


def test_missing_template_folder_is_a_clear_error(tmp_path):
    with pytest.raises(TemplateError, match="not a directory"):
        resolve_templates("gridworld", tmp_path / "nope")


def test_the_remembered_sandbox_verdicts_are_the_stock_sandboxes():
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from agentkit.prompts.renderer import _PromptSandbox

    ours, stock = _PromptSandbox(), ImmutableSandboxedEnvironment()
    probes = [
        ([], "append"),
        ([], "count"),
        ({}, "update"),
        ({}, "get"),
        (set(), "add"),
        ("s", "upper"),
        (len, "__globals__"),
        (PromptRenderer, "mro"),
        (PromptRenderer, "__subclasses__"),
        ((lambda: 0), "__code__"),
        ((x for x in ()), "gi_frame"),
        (Observation, "_private"),
    ]
    for _ in range(2):  # the second pass answers from the remembered verdicts
        for obj, attr in probes:
            value = getattr(obj, attr, None)
            assert ours.is_safe_attribute(obj, attr, value) == stock.is_safe_attribute(obj, attr, value), (
                obj,
                attr,
            )
    template = ours.from_string("{{ items.append(1) }}")
    for _ in range(2):
        with pytest.raises(Exception, match="(?i)unsafe|not safely|access"):
            template.render(items=[])
