"""How much time our model client adds to a call, at turns 1, 30 and 100 of a full-history arena episode.

Why: with full history every request carries all earlier frames, and a client that copies,
validates or re-encodes the messages on every call pays for it in proportion (while holding the
interpreter lock, so threaded episodes queue on it). This measures ``LiteLLMModel.complete``
against an instant OpenAI-compatible server on 127.0.0.1 (agentkit.testing.fake_openai, answering
without delay), beside a raw HTTP call (httpx, one kept-alive connection) of the same JSON body
to the same server, that body encoded before the clock starts (so the raw call is the network and
the server alone); the difference is the client's own time, its encoding of the body included. Targets (issue 19): <= 2 ms at turn
1, <= 5 ms at turn 100. Also prints the first call's latency as stored with a turn (``latency_s``)
beside the next ones, for the warm-up.

The prompts are the real ones: one aai-arena episode (512 px JPEG frames) played through the loop
by bench/prompt_cost.py's recorder.

Usage: python bench/model_client.py [--repeats 20] [--turns 1,30,100]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from prompt_cost import arena_requests

from agentkit.testing.fake_openai import FakeOpenAIServer

logger = logging.getLogger("bench.model_client")
KEY = "sk-bench-000000000000"


def raw_call(client: httpx.Client, url: str, body: bytes) -> float:
    """Seconds for one raw HTTP call of the body our client would send (encoded beforehand)."""
    start = time.perf_counter()
    response = client.post(
        url, content=body, headers={"content-type": "application/json", "authorization": f"Bearer {KEY}"}
    )
    response.json()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--turns", default="1,30,100")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    # the fake server's rough token counts trip the dropped-prompt check on big prompts: not news here
    logging.getLogger("agentkit.models.litellm_model").setLevel(logging.ERROR)
    turns = [int(t) for t in args.turns.split(",")]
    requests = arena_requests(max(turns))

    from agentkit.models.litellm_model import LiteLLMModel

    with FakeOpenAIServer(api_key=KEY, record_requests=False) as server:
        model = LiteLLMModel("openai/fake-model", api_base=server.base_url, api_key=KEY, max_retries=0)
        first = [model.complete(requests[0]).latency_s for _ in range(5)]  # type: ignore[arg-type]
        print(
            "stored latency of the first calls of a fresh client: "
            + ", ".join(f"{s * 1000:.1f} ms" for s in first)
        )
        url = f"{server.base_url}/chat/completions"
        with httpx.Client() as client:
            print(
                f"{'turn':>4} {'body bytes':>11} {'client ms':>10} {'raw HTTP ms':>12} {'own ms':>8}  target"
            )
            for turn in turns:
                messages = requests[turn - 1]
                body = json.dumps(
                    {"model": "fake-model", "messages": messages, "temperature": 0.0, "max_tokens": 1024}
                ).encode()
                ours, raw = [], []
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    model.complete(messages)
                    ours.append(time.perf_counter() - start)
                    raw.append(raw_call(client, url, body))
                mine, theirs = statistics.median(ours) * 1000, statistics.median(raw) * 1000
                target = 2.0 if turn == 1 else 5.0 if turn >= 100 else None
                verdict = (
                    ""
                    if target is None
                    else f"<= {target:g} ms: {'OK' if mine - theirs <= target else 'MISSED'}"
                )
                size = len(body)
                print(f"{turn:>4} {size:>11,} {mine:>10.2f} {theirs:>12.2f} {mine - theirs:>8.2f}  {verdict}")


if __name__ == "__main__":
    main()
