"""How much time our model client adds to a call, at turns 1, 30 and 100 of a full-history arena episode.

Why: with full history every request carries all earlier frames, and a client that copies,
validates or re-encodes the messages on every call pays for it in proportion (while holding the
interpreter lock, so threaded episodes queue on it). This measures ``LiteLLMModel.complete``
against an instant OpenAI-compatible server on 127.0.0.1 (agentkit.testing.fake_openai in its own
process, as a provider is another machine, answering without delay), beside a raw HTTP call
(httpx, one kept-alive connection) of the same JSON body to the same server, that body encoded
before the clock starts (so the raw call is the network and the server alone); the difference is
the client's own time, its encoding of the body included. Targets (issue 19): <= 2 ms at turn 1,
<= 5 ms at turn 100.

Two routes are measured in the same conditions: ``direct`` (agentkit.models.direct_chat, what an
``openai/...`` model at an ``api_base`` now takes) and ``litellm`` (the same model with
``direct.enabled = False``: litellm and the openai SDK build and send the request, as before).
Beside the wall-clock medians, "own CPU" is the CPU time this process spent per call (the client's
threads; the server is another process) minus the raw call's: on a busy machine wall-clock times
include waiting for a core, CPU times do not. Also prints the first calls' latencies as stored with
a turn (``latency_s``), for the warm-up.

The prompts are the real ones: one aai-arena episode (512 px JPEG frames) played through the loop
by bench/prompt_cost.py's recorder, given to the client as the loop gives them: typed messages
(agentkit.messages), an earlier turn's message the same object on every later turn, so the
client's conversion to OpenAI dicts is counted too (a model takes typed messages only).

Usage: python bench/model_client.py [--repeats 20] [--turns 1,30,100] [--routes direct,litellm]
[--threads 4]

With ``--threads N`` (default 4; 0 skips it) it also prints how many calls per second N threads
sharing one model make at turn 30 (the last turn measured, if fewer), the way threaded episodes
share a client: work done holding the interpreter lock makes them queue.
"""

from __future__ import annotations

import argparse
import base64
import json
import logging
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from prompt_cost import arena_requests

from agentkit.messages import ImagePart, Message, Part, TextPart
from agentkit.testing.fake_openai import server_process

logger = logging.getLogger("bench.model_client")
KEY = "sk-bench-000000000000"


def typed_prompts(requests: list[list[dict[str, Any]]]) -> list[list[Message]]:
    """The recorded OpenAI dicts as the loop's typed messages, equal messages one object."""
    made: dict[tuple[Any, ...], Message] = {}

    def typed(message: dict[str, Any]) -> Message:
        content = message["content"]
        if isinstance(content, str):
            key: tuple[Any, ...] = (message["role"], content)
        else:
            key = (message["role"], *((p.get("text"), str(p.get("image_url"))) for p in content))
        if key not in made:
            if isinstance(content, str):
                made[key] = Message(message["role"], content)
            else:
                parts: list[Part] = []
                for part in content:
                    if part["type"] == "text":
                        parts.append(TextPart(part["text"]))
                    else:
                        header, _, data = part["image_url"]["url"].partition(",")
                        parts.append(ImagePart.of(base64.b64decode(data), header[5:].split(";")[0]))
                made[key] = Message(message["role"], tuple(parts))
        return made[key]

    return [[typed(m) for m in request] for request in requests]


def timed(call: Callable[..., Any], *args: Any) -> tuple[float, float]:
    """(wall seconds, this process's CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    call(*args)
    return time.perf_counter() - wall, time.process_time() - cpu


def raw_call(client: httpx.Client, url: str, body: bytes) -> None:
    """One raw HTTP call of the body our client would send (encoded beforehand)."""
    response = client.post(
        url, content=body, headers={"content-type": "application/json", "authorization": f"Bearer {KEY}"}
    )
    response.json()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--turns", default="1,30,100")
    parser.add_argument("--routes", default="direct,litellm")
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    # the fake server's rough token counts trip the dropped-prompt check on big prompts: not news here
    logging.getLogger("agentkit.models.litellm_model").setLevel(logging.ERROR)
    turns = [int(t) for t in args.turns.split(",")]
    routes = args.routes.split(",")
    requests = arena_requests(max(turns))
    prompts = typed_prompts(requests)

    from agentkit.models.litellm_model import LiteLLMModel

    with server_process() as base_url, httpx.Client() as client:
        url = f"{base_url}/chat/completions"
        models = {}
        for route in routes:
            model = LiteLLMModel("openai/fake-model", api_base=base_url, api_key=KEY, max_retries=0)
            model.direct.enabled = route == "direct"
            first = [model.complete(prompts[0]).latency_s for _ in range(5)]
            print(
                f"{route}: stored latency of the first calls of a fresh client: "
                + ", ".join(f"{s * 1000:.1f} ms" for s in first)
            )
            models[route] = model
        print(
            f"{'route':>7} {'turn':>4} {'body bytes':>11} {'client ms':>10} {'raw HTTP ms':>12} "
            f"{'own ms':>7} {'own CPU ms':>11}  target (own ms)"
        )
        for turn in turns:
            messages = prompts[turn - 1]
            body = json.dumps(
                {
                    "model": "fake-model",
                    "messages": requests[turn - 1],
                    "temperature": 0.0,
                    "max_tokens": 1024,
                }
            ).encode()
            for route, model in models.items():
                ours, raw = [], []
                for _ in range(args.repeats):  # interleaved, so both see the same machine
                    ours.append(timed(model.complete, messages))
                    raw.append(timed(raw_call, client, url, body))
                wall = statistics.median(w for w, _ in ours) * 1000
                raw_wall = statistics.median(w for w, _ in raw) * 1000
                cpu = (statistics.median(c for _, c in ours) - statistics.median(c for _, c in raw)) * 1000
                target = 2.0 if turn == 1 else 5.0 if turn >= 100 else None
                verdict = (
                    ""
                    if target is None
                    else f"<= {target:g} ms: {'OK' if wall - raw_wall <= target else 'MISSED'}"
                )
                print(
                    f"{route:>7} {turn:>4} {len(body):>11,} {wall:>10.2f} {raw_wall:>12.2f} "
                    f"{wall - raw_wall:>7.2f} {cpu:>11.2f}  {verdict}"
                )
        if args.threads > 0:
            turn = min(30, max(turns))
            for route, model in models.items():
                rate = calls_per_second(model, prompts[turn - 1], args.threads, args.repeats)
                print(
                    f"{route:>7}: {args.threads} threads sharing the model at turn {turn}: {rate:.0f} calls/s"
                )


def calls_per_second(model: Any, messages: Any, threads: int, calls_each: int) -> float:
    """Calls per second ``threads`` threads make together, each calling ``calls_each`` times."""

    def work() -> None:
        for _ in range(calls_each):
            model.complete(messages)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return threads * calls_each / (time.perf_counter() - start)


if __name__ == "__main__":
    main()
