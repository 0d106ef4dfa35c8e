"""The loop hands typed messages end to end: model, memory, store; OpenAI dicts only in the client.

A real arena episode (small frames) is played by a model that takes typed messages and keeps what it
was handed; the turns go to a real SQLite store. Every message the model and the store saw is an
``agentkit.messages.Message``, the images are the observer's own bytes and hashes, and what the store
reads back is exactly the OpenAI form the client would have sent.
"""

from __future__ import annotations

from typing import Any

from agentkit.config import ObserverSettings, RunConfig
from agentkit.loop import run_episode
from agentkit.messages import ImagePart, Message
from agentkit.models.openai_messages import to_openai
from agentkit.records import ModelReply, TurnRecord
from agentkit.runs.setup_episode import make_setup
from agentkit.transcripts.store import TranscriptStore

TASK = "01-01-01"


class _TypedRecorder:
    """Takes typed messages and answers a short script every turn."""

    name = "typed-recorder"

    def __init__(self) -> None:
        self.seen: list[list[Any]] = []

    def complete(self, messages: list[Any]) -> ModelReply:
        self.seen.append(list(messages))
        return ModelReply(text="Turn(30); Go(1);", model=self.name)


class _Sink:
    """Keeps each turn as the loop hands it, then writes it to the store."""

    def __init__(self, store: TranscriptStore) -> None:
        self.store = store
        self.turns: list[TurnRecord] = []

    def add_turn(self, episode_id: str, turn: TurnRecord) -> None:
        self.turns.append(turn)
        self.store.add_turn(episode_id, turn)


def test_model_memory_and_store_see_typed_messages_only(tmp_path) -> None:
    model = _TypedRecorder()
    # A model id of an API model (never called: the factory below plays), so frames are rendered.
    config = RunConfig(
        env="aai-arena",
        tasks=[TASK],
        model="openai/typed-recorder",
        api_base="http://127.0.0.1:9",
        max_scripts=3,
        memory="last-images:1",
        observer=ObserverSettings(max_side=32),
        backend_options={"render_size": 32},
    )
    setup = make_setup(config, model_factory=lambda backend: model)
    with TranscriptStore(f"sqlite:///{tmp_path / 'typed.db'}") as store:
        run = store.create_run("aai-arena", [TASK], model.name, {}, setup.renderer.sources)
        episode = store.start_episode(run, TASK, 0)
        sink = _Sink(store)
        try:
            run_episode(setup, TASK, 0, sink=sink, episode_id=episode)
        finally:
            setup.backend.close()
        stored = store.get_turns(episode)

    assert len(model.seen) == 3 == len(sink.turns) == len(stored)
    for prompt, turn, read_back in zip(model.seen, sink.turns, stored):
        assert all(isinstance(m, Message) for m in prompt)
        assert turn.messages == prompt  # the store is handed what the model was handed
        assert read_back.messages == to_openai(prompt)  # and reads back the client's OpenAI form
        (frame,) = prompt[-1].images  # this turn's frame: the observer's bytes and hash
        assert isinstance(frame, ImagePart) and frame.sha256 == turn.observation["images"][0]["sha256"]
    last = model.seen[-1]
    assert [m.role for m in last[1:-1]] == ["user", "assistant", "user", "assistant"]
    assert not last[1].images and len(last[3].images) == 1  # last-images:1 stripped the older frame
    assert last[2] == Message("assistant", "Turn(30); Go(1);")
