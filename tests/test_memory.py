"""History policies choose the right earlier messages and strip images only where asked.

The turns are typed messages, as the loop makes them; what a policy selects is read here in the
OpenAI form the model client sends (``to_openai``).
"""

import pytest

from agentkit.memory import FullHistory, LastKImages, Markovian, TurnMessages, Window, memory_policy_from_spec
from agentkit.memory.policies import IMAGE_PLACEHOLDER
from agentkit.messages import ImagePart, Message, TextPart
from agentkit.models.openai_messages import to_openai


def _turn(i: int) -> TurnMessages:
    user = Message("user", (TextPart(f"obs {i}"), ImagePart.of(bytes([i]), "image/png")))
    return TurnMessages(user=user, assistant=Message("assistant", f"answer {i}"))


TURNS = [_turn(i) for i in range(4)]


def _texts(messages):
    messages = to_openai(messages)
    return [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in messages]


def test_full_history_keeps_every_prompt_and_answer_in_order():
    assert _texts(FullHistory().select(TURNS)) == [t for i in range(4) for t in (f"obs {i}", f"answer {i}")]


def test_markovian_keeps_nothing():
    assert Markovian().select(TURNS) == []


def test_window_keeps_last_k_turns():
    assert _texts(Window(2).select(TURNS)) == ["obs 2", "answer 2", "obs 3", "answer 3"]


def test_last_k_images_keeps_text_and_drops_old_images():
    selected = to_openai(LastKImages(1).select(TURNS))
    assert len(selected) == 8
    old_parts = [p["type"] for p in selected[0]["content"]]
    assert old_parts == ["text", "text"] and selected[0]["content"][1]["text"] == IMAGE_PLACEHOLDER
    assert [p["type"] for p in selected[6]["content"]] == ["text", "image_url"]
    # the recorded turn itself is untouched
    assert to_openai([TURNS[0].user])[0]["content"][1]["type"] == "image_url"


@pytest.mark.parametrize(
    "spec,cls",
    [("full", FullHistory), ("markovian", Markovian), ("window:3", Window), ("last-images:2", LastKImages)],
)
def test_specs_parse(spec, cls):
    policy = memory_policy_from_spec(spec)
    assert isinstance(policy, cls) and policy.spec == spec


@pytest.mark.parametrize("spec", ["window", "window:0", "window:x", "everything", "full:2"])
def test_bad_specs_are_clear_errors(spec):
    with pytest.raises(ValueError, match="memory policy|window"):
        memory_policy_from_spec(spec)
