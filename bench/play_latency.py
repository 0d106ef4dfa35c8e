"""Key-to-frame latency and frames per second of `agentkit play` (keyboard mode) at 256 and 512 px.

Why: a participant holds an arrow key and expects the picture to follow; Animal-AI's rate is one
step per 0.06 s (16.7 steps a second). This drives a real play server over HTTP on 127.0.0.1 as
the page does (a request with the held keys, the next one 0.06 s after the previous one began, or
at once if it took longer) and prints, per frame size: the latency from sending the keys to
holding the JPEG frame that follows (median, 90th percentile, worst), the steps per second
reached, and the server's own share (the pace wait excluded). The arena is the children40 task
01-04-03 (no goal in the first few hundred steps when turning on the spot), turning left all
along so the episode does not end; transcripts go to a temporary SQLite store as in a sitting.

Usage: python bench/play_latency.py [--steps 150] [--sizes 256,512]
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path

from agentkit.play import PlayOptions, PlayServer
from agentkit.play.session import STEP_S
from agentkit.transcripts import TranscriptStore

log = logging.getLogger("bench.play_latency")
TASK = "01-04-03"


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def measure(size: int, steps: int, folder: Path) -> dict[str, float]:
    store = TranscriptStore(f"sqlite:///{folder / f'play-{size}.db'}")
    server = PlayServer(
        store, PlayOptions(participant=f"bench{size}", tasks=[TASK], tutorial=None, size=size)
    )
    url = server.start()
    try:
        token = _post(url + "api/session", {})["session"]
        latencies: list[float] = []
        frame_bytes = 0
        started = time.perf_counter()
        for _ in range(steps):
            sent = time.perf_counter()
            state = _post(url + "api/step", {"session": token, "keys": ["ArrowLeft"]})
            latencies.append(time.perf_counter() - sent)
            frame_bytes += len(state["frame"]) * 3 // 4  # base64 to bytes
            wait = STEP_S - (time.perf_counter() - sent)
            if wait > 0:
                time.sleep(wait)
        elapsed = time.perf_counter() - started
    finally:
        server.close()
        store.close()
    ordered = sorted(latencies)
    return {
        "size": size,
        "steps": steps,
        "fps": steps / elapsed,
        "latency_median_ms": 1000 * statistics.median(ordered),
        "latency_p90_ms": 1000 * ordered[int(0.9 * (len(ordered) - 1))],
        "latency_max_ms": 1000 * ordered[-1],
        "frame_kb": frame_bytes / steps / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--sizes", default="256,512")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as folder:
        for size in (int(s) for s in args.sizes.split(",")):
            r = measure(size, args.steps, Path(folder))
            print(
                f"{r['size']:>4} px: {r['fps']:5.1f} frames/s (Animal-AI: {1 / STEP_S:.1f}); key-to-frame latency "
                f"median {r['latency_median_ms']:.0f} ms, p90 {r['latency_p90_ms']:.0f} ms, "
                f"max {r['latency_max_ms']:.0f} ms; {r['frame_kb']:.1f} KB a JPEG frame over {r['steps']} steps"
            )


if __name__ == "__main__":
    main()
