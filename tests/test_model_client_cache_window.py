"""The model client's caches hold the messages a run resends, no more (issue 29 row 14).

Before: the encoded messages (256 MiB of JSON, their keys holding every data URL besides), 2,048
typed messages with their frames' bytes, 512 data URLs and 1,024 image token counts stayed in
memory long after their episodes ended: RSS grew 12.4 MB per 100 episodes to 460 MB over a run
of 1,000 (``bench/memory_soak.py``). Now each cache is bounded by ``reuse_window``: the episodes in
flight times the messages one episode sends; an episode in flight still finds all its messages.
"""

from __future__ import annotations

import pytest

from agentkit.config import RunConfig
from agentkit.messages import ImagePart, Message, TextPart
from agentkit.models import chat_body, openai_messages, prompt_size, reuse_window
from agentkit.models.openai_messages import to_openai
from agentkit.models.prompt_size import count_input_tokens, counter_for
from agentkit.runs.setup_episode import make_setup

WINDOW = 40


def prompt(episode: int, turn: int) -> Message:
    """A user prompt with its own text and frame (bytes unique to the episode and turn)."""
    frame = ImagePart.of(f"frame {episode}/{turn}".encode() * 8, "image/png")
    return Message("user", (TextPart(f"episode {episode}, turn {turn}: what next?"), frame))


def send(messages: list[Message]) -> bytes:
    """What the client does with a prompt: OpenAI dicts, the request body, the token estimate."""
    dicts = to_openai(messages)
    count_input_tokens(dicts, counter_for("openai/fake-model"))
    body = chat_body.encode_body({"messages": dicts, "model": "fake-model"}, messages)
    assert body is not None
    return body


@pytest.fixture
def window(monkeypatch: pytest.MonkeyPatch) -> int:
    """A known window, and empty caches (other tests of this process may have filled them; a cache
    emptied costs them only an encoding again)."""
    monkeypatch.setattr(reuse_window, "_window", WINDOW)
    for cache in (
        chat_body._messages,
        chat_body._typed,
        openai_messages._data_urls,
        prompt_size._image_tokens,
    ):
        cache.clear()
    monkeypatch.setattr(chat_body, "_cached_bytes", 0)
    return WINDOW


def test_a_long_run_leaves_no_more_than_its_window_in_the_caches(window: int) -> None:
    for episode in range(12):  # 12 full-history episodes of 10 turns: 120 prompts, 3 windows' worth
        history: list[Message] = []
        for turn in range(10):
            history.append(prompt(episode, turn))
            send(history)
            history.append(Message("assistant", f"Go({turn});"))
    assert len(chat_body._messages) <= reuse_window.messages() == window
    assert len(chat_body._typed) <= window
    assert len(openai_messages._data_urls) <= reuse_window.frames()
    assert len(prompt_size._image_tokens) <= reuse_window.frames()


def test_an_episode_in_flight_finds_all_its_messages_again(window: int) -> None:
    """Two episodes in flight, full history, within the window: every earlier message is a hit."""
    histories: list[list[Message]] = [[], []]
    for turn in range(8):  # 2 episodes x (8 prompts + 8 answers) = 32 messages <= 40
        for episode, history in enumerate(histories):
            history.append(prompt(episode, turn))
            send(history)
            history.append(Message("assistant", f"Turn({turn});"))
    for history in histories:
        assert all(message in chat_body._typed for message in history[:-1])


def test_a_run_sizes_the_window_to_its_episodes_in_flight(window: int) -> None:
    config = RunConfig(
        env="gridworld", tasks=["BabyAI-GoToRedBallNoDists-v0"], max_concurrency=6, max_scripts=12
    )
    make_setup(config).backend.close()
    assert reuse_window.messages() == 6 * reuse_window.episode_messages(12) > window
    assert reuse_window.episode_messages(10_000) == reuse_window.MAX_EPISODE_MESSAGES
