"""What a full-history arena episode costs per turn, with and without provider prompt caching.

Why: with ``--memory full`` every turn resends every earlier frame, so the input grows linearly and
the episode's input bill quadratically; prompt caching (``agentkit.models.prompt_cache``) bills the
resent prefix at the cached rate. This plays one aai-arena episode of ``--turns`` turns (default
30) with 512 px JPEG frames through the real loop (``agentkit.loop.run_episode``; the answers are a
fixed cycle of short scripts, so no model is called), and prints per turn the request's bytes
(the JSON messages as sent) and input tokens (our count: agentkit.models.prompt_size, OpenAI's
high-detail image formula), then the episode's input cost at published prices from litellm's
bundled price map (``model_prices_and_context_window_backup.json`` of litellm 1.110.2; the prices below are the same in 1.106.2):

* Anthropic (claude-sonnet-4-5): input $3.00/Mtok, cache write $3.75/Mtok, cache read $0.30/Mtok;
  with caching, each turn reads the previous turn's prompt from the cache and writes its new part.
* OpenAI (gpt-4o): input $2.50/Mtok, cached input $1.25/Mtok, automatic, no write surcharge; the
  cached part is counted in whole 128-token blocks after the first 1,024 tokens (OpenAI's rule).

Usage: python bench/prompt_cost.py [--turns 30] [--task 01-04-03]
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # the bundled map, no network

from agentkit.config import ObserverSettings, RunConfig
from agentkit.loop import run_episode
from agentkit.models.dict_model import OpenAIDictModel
from agentkit.models.prompt_size import count_input_tokens, counter_for
from agentkit.records import ModelReply
from agentkit.runs.setup_episode import make_setup

logger = logging.getLogger("bench.prompt_cost")

ANSWERS = ("Turn(30);", "Go(2);", "Turn(-45);", "Go(1);", "Turn(60);")
ANTHROPIC = "claude-sonnet-4-5"
OPENAI = "gpt-4o"
OPENAI_MIN_CACHED = 1024  # OpenAI caches prompts of at least this many tokens ...
OPENAI_BLOCK = 128  # ... in blocks of this many


class RecordingModel:
    """Answers from a fixed cycle of scripts and keeps every request's messages (a copy)."""

    name = "recorded"

    def __init__(self) -> None:
        self.requests: list[list[dict[str, Any]]] = []
        self._answers = itertools.cycle(ANSWERS)

    def complete(self, messages: list[dict[str, Any]]) -> ModelReply:
        self.requests.append(json.loads(json.dumps(messages)))
        return ModelReply(text=next(self._answers), model=self.name)


def arena_requests(turns: int, task: str = "01-04-03", seed: int = 0) -> list[list[dict[str, Any]]]:
    """The messages of every turn of one full-history aai-arena episode with 512 px frames, played
    through the real loop; an episode ending early is followed by the next seed's, its turns
    appended to the same history (so ``turns`` requests are always returned)."""
    config = RunConfig(
        env="aai-arena",
        tasks=[task],
        model="openai/recorded",
        max_scripts=turns,
        max_parse_failures=turns,
        memory="full",
        observer=ObserverSettings(max_side=512),
        backend_options={"render_size": 512},
    )
    requests: list[list[dict[str, Any]]] = []
    while len(requests) < turns:
        model = RecordingModel()
        setup = make_setup(config, model_factory=lambda backend, recorder=model: OpenAIDictModel(recorder))
        try:
            run_episode(setup, task, seed)
        finally:
            setup.backend.close()
        if not requests:
            requests = model.requests
        else:  # continue the history: the later episode's turns after the earlier ones
            base = requests[-1]
            for messages in model.requests:
                requests.append(base + [m for m in messages if m.get("role") != "system"])
        seed += 1
    return requests[:turns]


def rates(model: str) -> dict[str, float]:
    import litellm

    entry = litellm.model_cost[model]
    return {
        "input": entry["input_cost_per_token"],
        "read": entry["cache_read_input_token_cost"],
        "write": entry.get("cache_creation_input_token_cost") or entry["input_cost_per_token"],
    }


def anthropic_costs(tokens: list[int]) -> tuple[float, float]:
    """(without, with caching): with it, turn t reads turn t-1's prompt and writes the rest."""
    r = rates(ANTHROPIC)
    without = sum(tokens) * r["input"]
    cached = 0.0
    previous = 0
    for n in tokens:
        cached += previous * r["read"] + (n - previous) * r["write"]
        previous = n
    return without, cached


def openai_costs(tokens: list[int]) -> tuple[float, float]:
    """(without, with automatic caching): turn t's prefix shared with turn t-1, in 128-token blocks."""
    r = rates(OPENAI)
    without = sum(tokens) * r["input"]
    cached = 0.0
    previous = 0
    for n in tokens:
        hit = (previous // OPENAI_BLOCK) * OPENAI_BLOCK if previous >= OPENAI_MIN_CACHED else 0
        cached += hit * r["read"] + (n - hit) * r["input"]
        previous = n
    return without, cached


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--task", default="01-04-03")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    requests = arena_requests(args.turns, args.task)
    counter = counter_for("gpt-4o")
    tokens = [count_input_tokens(m, counter) for m in requests]
    print(f"full-history aai-arena episode, task {args.task}, {len(requests)} turns, 512 px JPEG frames")
    print(f"{'turn':>4} {'request bytes':>14} {'input tokens':>13} {'images':>7}")
    for i, (messages, n) in enumerate(zip(requests, tokens), 1):
        size = len(json.dumps(messages).encode())
        images = sum(
            1
            for m in messages
            if isinstance(m.get("content"), list)
            for p in m["content"]
            if p.get("type") == "image_url"
        )
        print(f"{i:>4} {size:>14,} {n:>13,} {images:>7}")
    print(f"input tokens over the episode: {sum(tokens):,}")
    for label, (without, cached) in (
        (
            f"Anthropic {ANTHROPIC} (input $3.00, cache write $3.75, cache read $0.30 per Mtok)",
            anthropic_costs(tokens),
        ),
        (f"OpenAI {OPENAI} (input $2.50, cached input $1.25 per Mtok, automatic)", openai_costs(tokens)),
    ):
        print(
            f"{label}:\n    without caching ${without:.4f}, with caching ${cached:.4f} "
            f"(x{without / cached:.1f} cheaper, saved ${without - cached:.4f})"
        )
    print(
        "prices: litellm 1.110.2's bundled map (input_cost_per_token, cache_creation_input_token_cost, "
        "cache_read_input_token_cost); output tokens left out (the same either way)"
    )


if __name__ == "__main__":
    main()
