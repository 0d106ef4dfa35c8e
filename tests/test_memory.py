"""History policies choose the right earlier messages and strip images only where asked."""

import pytest

from agentkit.memory import FullHistory, LastKImages, Markovian, TurnMessages, Window, memory_policy_from_spec
from agentkit.memory.policies import IMAGE_PLACEHOLDER


def _turn(i: int) -> TurnMessages:
    user = {
        "role": "user",
        "content": [
            {"type": "text", "text": f"obs {i}"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{i}"}},
        ],
    }
    return TurnMessages(user=user, assistant={"role": "assistant", "content": f"answer {i}"})


TURNS = [_turn(i) for i in range(4)]


def _texts(messages):
    return [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in messages]


def test_full_history_keeps_every_prompt_and_answer_in_order():
    assert _texts(FullHistory().select(TURNS)) == [t for i in range(4) for t in (f"obs {i}", f"answer {i}")]


def test_markovian_keeps_nothing():
    assert Markovian().select(TURNS) == []


def test_window_keeps_last_k_turns():
    assert _texts(Window(2).select(TURNS)) == ["obs 2", "answer 2", "obs 3", "answer 3"]


def test_last_k_images_keeps_text_and_drops_old_images():
    selected = LastKImages(1).select(TURNS)
    assert len(selected) == 8
    old_parts = [p["type"] for p in selected[0]["content"]]
    assert old_parts == ["text", "text"] and selected[0]["content"][1]["text"] == IMAGE_PLACEHOLDER
    assert [p["type"] for p in selected[6]["content"]] == ["text", "image_url"]
    # the recorded turn itself is untouched
    assert TURNS[0].user["content"][1]["type"] == "image_url"


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
