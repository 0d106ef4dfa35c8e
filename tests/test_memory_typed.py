"""History policies keep typed messages (agentkit.messages) as they keep dicts: the same objects in
order, images replaced by the text marker only where the policy asks."""

from agentkit.memory import FullHistory, LastKImages, TurnMessages, Window
from agentkit.memory.policies import IMAGE_PLACEHOLDER, strip_images
from agentkit.messages import ImagePart, Message, TextPart


def _turn(i: int) -> TurnMessages:
    image = ImagePart.of(bytes([i]) * 64, "image/png")
    return TurnMessages(
        user=Message("user", (TextPart(f"obs {i}"), image)), assistant=Message("assistant", f"answer {i}")
    )


TURNS = [_turn(i) for i in range(4)]


def test_full_history_and_window_keep_the_very_typed_messages():
    full = FullHistory().select(TURNS)
    assert [m.text for m in full] == [t for i in range(4) for t in (f"obs {i}", f"answer {i}")]
    assert all(a is b for a, b in zip(full, [m for t in TURNS for m in (t.user, t.assistant)]))
    assert Window(1).select(TURNS) == [TURNS[-1].user, TURNS[-1].assistant]


def test_last_k_images_replaces_older_images_with_the_marker():
    out = LastKImages(1).select(TURNS)
    users = out[0::2]
    assert [len(m.images) for m in users] == [0, 0, 0, 1]
    assert users[0].content == (TextPart("obs 0"), TextPart(IMAGE_PLACEHOLDER))
    assert users[-1] is TURNS[-1].user
    assert strip_images(TURNS[0].assistant) is TURNS[0].assistant
