"""How fast the transcript store writes turns that carry a fresh 512x512 image each.

Every turn is what the loop hands the store in an Animal-AI episode: a system message, the user message with its
text and one new first-person frame (JPEG, 512x512, as the observer encodes it; a different
frame every turn, so every image is a new blob; the loop passes the encoded frame along, so the
store takes its bytes and hash instead of decoding the data URL), the answer, the parsed script, actions and
timings. Frames are encoded before timing starts: only ``TranscriptStore.add_turn`` is timed,
into a SQLite file in WAL mode. Also reports full-history prompts (every earlier turn resent),
where images already stored are recognised by hash and not written again, and (schema 2) each
message row is written once per episode: a turn writes only its new messages and names the spans
of the episode's rows it sent. The message rows each mode wrote are printed beside the figures.
Messages are typed (``agentkit.messages``: the frame an image part with its bytes and sha256), the
only form the store takes. Beside the wall time of ``add_turn``, the writer
thread's CPU time and the load average are printed: on a shared machine the wall figure mostly
measures the other processes. The store copies its write-ahead log back into the database on a
thread of its own (``agentkit.transcripts.wal_checkpointer``), so the CPU figure counts only the
writer's own work; ``--inline-checkpoints`` runs the store as it was before, with the checkpoint
inside whichever commit crossed the threshold, for comparison. Image bytes go to the pack files
beside the database (``agentkit.transcripts.image_packs``, the store's default on a SQLite file),
written before the transaction, inside the timed ``add_turn``; each mode is also run with
``image_files=False`` (bytes in the database, a single-file store) for comparison.

Targets: >= 2,000 turns/s with images; >= 5,000 turns/s with full-history prompts (issue 18; the
full-history figure cannot exceed the one-image one, which writes the same image and commit).

Usage: python bench/store_speed.py [--turns 2000] [--episodes 20] [--inline-checkpoints]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from agentkit.messages import ImagePart, Message, TextPart
from agentkit.observers import EncodedImage
from agentkit.observers.image_encoding import encode_image
from agentkit.records import TurnRecord, Usage
from agentkit.transcripts import TranscriptStore

SYSTEM = Message("system", "You are an agent in a 40 by 40 arena. " * 40)


def frames(n: int, size: int = 512) -> list[EncodedImage]:
    """``n`` distinct frames looking roughly like arena views (sky, floor, a few coloured blobs)."""
    rng = np.random.default_rng(0)
    y = np.linspace(0, 1, size)[:, None]
    urls = []
    for i in range(n):
        img = np.empty((size, size, 3), np.uint8)
        img[:] = (
            np.concatenate([np.full((size // 2, 1), 170), np.full((size - size // 2, 1), 90)]) + 30 * y
        ).astype(np.uint8)[:, :, None]
        for _ in range(4):
            x0, y0 = rng.integers(0, size - 80, 2)
            img[y0 : y0 + rng.integers(20, 80), x0 : x0 + rng.integers(20, 80)] = rng.integers(0, 255, 3)
        img = np.clip(img.astype(np.int16) + rng.integers(-6, 7, img.shape), 0, 255).astype(np.uint8)
        urls.append(encode_image(img, "camera"))
        del i
    return urls


def turn(index: int, image: EncodedImage, history: list[Message]) -> TurnRecord:
    """A turn as the loop hands it over: typed messages, the frame an image part (bytes and sha256)."""
    text = f"Turn {index + 1} of at most 30. Health: 98.4. Reward so far: -0.012."
    user = Message("user", (TextPart(text), ImagePart(image.data, image.media_type, image.sha256)))
    return TurnRecord(
        index=index,
        observation={"step": index * 10, "status_text": "Health: 98.4", "images": ["camera"]},
        messages=[SYSTEM, *history, user],
        answer='Think("the green ball is ahead"); Turn(-12); Go(8);',
        usage=Usage(1200, 30, 0.004),
        latency_s=1.2,
        cached=False,
        script=[
            {"name": "Think", "args": ["the green ball is ahead"]},
            {"name": "Turn", "args": [-12]},
            {"name": "Go", "args": [8]},
        ],
        parse_error=None,
        compile_error=None,
        actions=[[0, 2]] * 2 + [[1, 0]] * 8,
        reward=-0.001,
        total_reward=-0.012,
        health=98.4,
        done=False,
        timings={"render": 1e-4, "model": 1.2, "parse": 5e-5, "env": 0.01},
    )


def measure(
    urls: list[EncodedImage],
    episodes: int,
    full_history: bool,
    folder: Path,
    inline: bool = False,
    image_files: bool = True,
) -> tuple[float, list[float], list[float], int]:
    """Wall time of the whole run, and per turn the wall and CPU (this thread's) time of add_turn."""
    per_episode = len(urls) // episodes
    times: list[float] = []
    cpu: list[float] = []
    name = f"{'full' if full_history else 'markov'}-{image_files}.db"
    url = f"sqlite:///{folder / name}"
    with TranscriptStore(url, background_checkpoints=not inline, image_files=image_files) as store:
        run = store.create_run("aai-arena", ["bench"], "bench-model", {}, {"system.j2": "x"})
        start = time.perf_counter()
        for e in range(episodes):
            episode = store.start_episode(run, "bench", e)
            history: list[Message] = []
            for i in range(per_episode):
                record = turn(i, urls[e * per_episode + i], history if full_history else [])
                c0, t0 = time.thread_time(), time.perf_counter()
                store.add_turn(episode, record)
                times.append(time.perf_counter() - t0)
                cpu.append(time.thread_time() - c0)
                if full_history:
                    history = [*history, record.messages[-1], Message("assistant", record.answer)]
        wall = time.perf_counter() - start
        with store.engine.connect() as conn:
            rows = sum(
                conn.exec_driver_sql(f"SELECT count(*) FROM {t}").scalar_one()
                for t in ("messages", "episode_messages")
            )
    return wall, times, cpu, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument(
        "--inline-checkpoints",
        action="store_true",
        help="no checkpoint thread: SQLite checkpoints inside the commit that crosses its threshold",
    )
    args = parser.parse_args()
    urls = frames(args.turns)
    size_kb = statistics.mean(len(u.data) for u in urls) / 1024
    print(
        f"{len(urls)} distinct 512x512 JPEG frames, mean {size_kb:.1f} KB; "
        f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for full, packs in [(False, True), (True, True), (False, False), (True, False)]:
            wall, times, cpu, rows = measure(
                urls, args.episodes, full, Path(tmp), args.inline_checkpoints, packs
            )
            ms = sorted(t * 1000 for t in times)
            label = f"{'full history' if full else 'one image per turn'}, {'packs' if packs else 'in db'}"
            print(
                f"{label:>35}: {len(times) / sum(times):7.0f} turns/s in add_turn "
                f"(p50 {ms[len(ms) // 2]:.3f} ms, p95 {ms[int(len(ms) * 0.95)]:.3f} ms; "
                f"{len(times) / sum(cpu):.0f} turns/s of CPU time; "
                f"{len(times) / wall:.0f} turns/s wall incl. episode rows; {rows} message rows)"
            )
    print(
        "targets: >= 2000 turns/s with images, >= 5000 turns/s with full-history prompts "
        "(the store's default: images in packs)"
    )


if __name__ == "__main__":
    main()
