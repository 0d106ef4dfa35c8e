"""Record a run that goes wrong the ways real ones do: unparseable answers and a model error.

Why: the viewer's run list counts parse-error codes and model errors per run, and its compare page
sets reward and tokens beside pass; both must be tested on what the loop and the real model client
store. So the model here is the real LiteLLM client over HTTP to the local OpenAI-shaped server
(``agentkit.testing.fake_openai``), which answers from a fixed list, some answers broken in known
ways, and refuses one request with a 400 so that one episode ends in a model error.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from viewer_sample import record_run

from agentkit.models.litellm_model import LiteLLMModel
from agentkit.testing.fake_openai import FakeOpenAIServer
from agentkit.transcripts import TranscriptStore

TASK = "BabyAI-GoToLocal-v0"
# Each answer with the parse-error code the parser gives it (None: it parses).
ANSWERS: tuple[tuple[str, str | None], ...] = (
    ("I am not sure what to do here, let me think about the mission.", "no_commands"),
    ("Turn(90);", None),
    ("Jump(2);", "unknown_command"),
    ("Go(1);", None),
    ("Turn(45);", "out_of_range"),
)
REFUSED_REQUEST = 7  # the 7th chat request is answered 400: the second episode ends in a model error


def record_problem_run(
    store: TranscriptStore, episodes: int = 3, max_scripts: int = 4, answers: Sequence[str] | None = None
) -> str:
    """A gridworld run of the real model client against the local server; returns its id."""
    texts = itertools.cycle(answers or [a for a, _ in ANSWERS])
    calls = itertools.count(1)
    holder: dict[str, FakeOpenAIServer] = {}

    def respond(_body: dict[str, Any]) -> str:
        if next(calls) == REFUSED_REQUEST - 1:
            holder["server"].fail_next(400)  # the request after this one is refused
        return next(texts)

    with FakeOpenAIServer(respond) as server:
        holder["server"] = server
        model = LiteLLMModel(
            "openai/fake-model",
            api_base=server.base_url,
            api_key="test-key",
            max_retries=0,
            warm_up=False,
            name="fake/problem-model",
        )
        return record_run(store, [TASK], episodes=episodes, model=model, max_scripts=max_scripts)


def problem_database(path: Path) -> dict[str, str]:
    """{"reference": id, "problems": id} of two runs on the same task and seeds recorded at ``path``
    (a SQLite file): the reference agent, which passes, and :func:`record_problem_run`. Recorded on
    first use and kept with its ids beside it (``<name>.json``), so test modules share one recording."""
    ids_file = path.with_suffix(".json")
    if not ids_file.exists():
        store = TranscriptStore(f"sqlite:///{path}")
        try:
            ids = {
                "reference": record_run(store, [TASK], episodes=3, max_scripts=4),
                "problems": record_problem_run(store),
            }
        finally:
            store.close()
        ids_file.write_text(json.dumps(ids))
    return json.loads(ids_file.read_text())
