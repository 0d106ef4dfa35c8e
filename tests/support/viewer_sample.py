"""Record small but realistic transcripts without a model API, for the viewer's tests, demos and benchmarks.

Why: the viewer, the comparison and ``rerender`` must be exercised on what the loop really writes
(real gridworld observations, images, full-history prompts, parse errors and feedback, tokens,
cost and latency), and that needs episodes recorded through the real loop and store. The
reference agent gives short successful episodes; ``ScriptedModel`` gives long, partly failing ones,
like a weak model: it cycles through fixed answers, some of them unusable, and reports the token
counts and prices a paid model would.

A test fixture, so it lives under ``tests/support/`` outside the shipped package (pytest finds it
through ``pythonpath`` in pyproject.toml; ``bench/rerender_speed.py`` adds the folder itself).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentkit import __version__
from agentkit.config import ObserverSettings, RunConfig
from agentkit.loop import run_episode
from agentkit.messages import Message, TextPart
from agentkit.models.base import Model
from agentkit.records import ModelReply, Usage
from agentkit.runs.setup_episode import make_setup
from agentkit.transcripts import TranscriptStore

# A weak gridworld player: some sensible moves, some refusals to follow the format.
WANDERER_ANSWERS = (
    'Think("I should look around first"); Turn(90);',
    "Go(2)",
    "I am not sure what to do here, let me think about the mission.",
    'Think("the target may be to the left"); Turn(-90); Go(1);',
    "```\nGo(3);\n```",
    "Jump(2);",
    "Pickup();",
)
PRICE_IN, PRICE_OUT = 2.5e-6, 1.0e-5  # US dollars per token, of the order of a mid-size hosted model


class ScriptedModel:
    """Cycles through ``answers``; usage is estimated from the prompt (4 characters a token,
    85 tokens an image), cost from fixed prices, latency grows with the prompt."""

    def __init__(self, answers: Sequence[str] = WANDERER_ANSWERS, name: str = "scripted/wanderer") -> None:
        self.name = name
        self._answers = itertools.cycle(answers)

    def complete(self, messages: Sequence[Message]) -> ModelReply:
        chars = images = 0
        for m in messages:
            if isinstance(m.content, str):
                chars += len(m.content)
            else:
                for part in m.content:
                    if isinstance(part, TextPart):
                        chars += len(part.text)
                    else:
                        images += 1
        text = next(self._answers)
        tokens_in, tokens_out = chars // 4 + 85 * images, max(1, len(text) // 4)
        usage = Usage(tokens_in, tokens_out, tokens_in * PRICE_IN + tokens_out * PRICE_OUT)
        return ModelReply(text=text, usage=usage, latency_s=0.4 + tokens_in / 20000, model=self.name)


def record_run(
    store: TranscriptStore,
    tasks: Sequence[str],
    episodes: int = 2,
    seed: int = 0,
    model: str | Model = "reference",
    memory: str = "full",
    max_scripts: int = 10,
    views: Sequence[str] = ("image", "ascii", "language"),
    env: str = "gridworld",
    backend_options: dict[str, Any] | None = None,
) -> str:
    """Play ``episodes`` episodes (seeds ``seed``, ``seed + 1``, ...) of each task and store them.

    ``model`` is "reference" (the backend's planner) or a model object. Returns the run id.
    """
    config = RunConfig(
        env=env,
        tasks=list(tasks),
        model=model if isinstance(model, str) else model.name,
        episodes=episodes,
        seed=seed,
        memory=memory,
        max_scripts=max_scripts,
        observer=ObserverSettings(views=list(views)),
        backend_options=backend_options or {},
    )
    factory = None if isinstance(model, str) else (lambda backend: model)  # type: ignore[return-value]
    setup = make_setup(config, model_factory=factory)
    run_id = store.create_run(
        env=config.env,
        tasks=config.tasks,
        model=config.model,
        config={**config.model_dump(), "agentkit_version": __version__},
        templates=setup.renderer.sources,
    )
    try:
        for task, trial, episode_seed in config.episode_plan():
            episode_id = store.start_episode(run_id, task, episode_seed, trial=trial)
            result = run_episode(setup, task, episode_seed, sink=store, episode_id=episode_id)
            result.trial = trial
            store.finish_episode(episode_id, result)
    finally:
        store.finish_run(run_id)
        setup.backend.close()
    return run_id


def record_sample(
    store: TranscriptStore,
    tasks: Sequence[str] = ("BabyAI-GoToLocal-v0", "BabyAI-PickupLoc-v0"),
    episodes: int = 2,
    max_scripts: int = 8,
) -> dict[str, str]:
    """Two runs on the same tasks and seeds: the reference agent, and a weak scripted model whose
    observations also carry the structured view. Returns {"reference": run id, "scripted": run id}."""
    reference = record_run(store, tasks, episodes=episodes, max_scripts=max_scripts)
    scripted = record_run(
        store,
        tasks,
        episodes=episodes,
        model=ScriptedModel(),
        max_scripts=max_scripts,
        views=("image", "ascii", "language", "structured"),
    )
    return {"reference": reference, "scripted": scripted}


def sample_database(path: Path) -> dict[str, str]:
    """The run ids of the sample recorded at ``path`` (a SQLite file), recording it on first use.

    The ids are kept beside it as ``<name>.json``, so several test modules (or demos) share one
    recording instead of playing the same episodes again.
    """
    ids_file = path.with_suffix(".json")
    if not ids_file.exists():
        store = TranscriptStore(f"sqlite:///{path}")
        try:
            ids = record_sample(store)
        finally:
            store.close()
        ids_file.write_text(json.dumps(ids))
    return json.loads(ids_file.read_text())
