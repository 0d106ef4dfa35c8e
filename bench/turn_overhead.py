"""How much time agentkit itself adds to a turn, on BabyAI-GoToLocal-v0 with the ASCII observation.

Prints p50/p95 of:
  (a) the framework's own time per turn — render, parse, compile, store, observe (the backend's
      state snapshot and the ASCII/status views), each and in total; model and env time excluded;
  (b) the whole turn, wall clock, with a zero-latency model answering one primitive command per
      turn and transcripts written to a SQLite file;
  (c) encoding one 512x512 gridworld frame for the prompt (JPEG, the default; PNG for reference).
Targets: (a) <= 0.5 ms, (b) <= 0.7 ms, (c) <= 2 ms. Beside (b), the process's CPU time per turn
(episode resets included), the figure to compare on a machine shared with other work.

Usage: python bench/turn_overhead.py [--turns N] [--memory full|markovian|window:K]
"""

from __future__ import annotations

import argparse
import itertools
import logging
import tempfile
import time
from pathlib import Path

import numpy as np

from agentkit.config import ObserverSettings, RunConfig
from agentkit.loop import run_episode
from agentkit.observers.image_encoding import encode_image
from agentkit.records import ModelReply, TurnRecord
from agentkit.runs.setup_episode import make_setup
from agentkit.transcripts import TranscriptStore

TASK = "BabyAI-GoToLocal-v0"


class ZeroLatencyModel:
    """Answers instantly with one primitive command per turn, cycling so episodes run long."""

    name = "zero-latency"

    def __init__(self) -> None:
        self._answers = itertools.cycle(["Go(1);", "Turn(90);", "Go(1);", "Go(1);", "Turn(-90);"])

    def complete(self, messages) -> ModelReply:
        return ModelReply(text=next(self._answers), model=self.name)


class TimedStore:
    """Wraps the store's add_turn to time it and to timestamp the end of every turn."""

    def __init__(self, store: TranscriptStore) -> None:
        self.store = store
        self.store_s: list[float] = []
        self.turn_ends: list[tuple[str, float]] = []
        self.records: list[TurnRecord] = []

    def add_turn(self, episode_id: str, turn: TurnRecord) -> None:
        start = time.perf_counter()
        self.store.add_turn(episode_id, turn)
        end = time.perf_counter()
        self.store_s.append(end - start)
        self.turn_ends.append((episode_id, end))
        self.records.append(turn)


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000.0, q))


def line(name: str, values: list[float], target: float | None = None) -> str:
    p50, p95 = pct(values, 50), pct(values, 95)
    verdict = "" if target is None else (f"  target <= {target} ms: {'OK' if p50 <= target else 'MISSED'}")
    return f"{name:<34} p50={p50:7.4f} ms  p95={p95:7.4f} ms{verdict}"


def bench_turns(turns: int, memory: str) -> None:
    config = RunConfig(
        env="gridworld",
        tasks=[TASK],
        max_scripts=200,
        memory=memory,
        include_images=False,
        observer=ObserverSettings(views=["ascii"]),
        backend_options={"frame": "none"},
    )
    setup = make_setup(config, model_factory=lambda backend: ZeroLatencyModel())
    with tempfile.TemporaryDirectory() as tmp:
        store = TranscriptStore(f"sqlite:///{Path(tmp) / 'bench.db'}")
        run_id = store.create_run(
            env="gridworld",
            tasks=[TASK],
            model="zero-latency",
            config=config.model_dump(),
            templates=setup.renderer.sources,
        )
        sink = TimedStore(store)
        seed = 0
        cpu_start = time.process_time()
        while len(sink.records) < turns:
            episode_id = store.start_episode(run_id, TASK, seed)
            result = run_episode(setup, TASK, seed, sink=sink, episode_id=episode_id)
            store.finish_episode(episode_id, result)
            seed += 1
        cpu = time.process_time() - cpu_start
        store.close()
    setup.backend.close()

    phases = {
        name: [r.timings[name] for r in sink.records] for name in ("render", "parse", "compile", "observe")
    }
    phases["store"] = sink.store_s
    own = [sum(values) for values in zip(*phases.values())]
    whole = [
        end - prev_end
        for (ep, end), (prev_ep, prev_end) in zip(sink.turn_ends[1:], sink.turn_ends[:-1])
        if ep == prev_ep
    ]  # first turn of an episode includes the reset; left out
    env = [r.timings["env"] for r in sink.records]
    print(
        f"turn overhead on {TASK}: {len(sink.records)} turns in {seed} episodes, memory={memory}, ASCII view, "
        f"one primitive command per turn"
    )
    print("(a) framework time per turn")
    for name, values in phases.items():
        print("    " + line(name, values))
    print("    " + line("total (a)", own, 0.5))
    print("    " + line("[env step, excluded from (a)]", env))
    print(line("(b) whole turn, zero-latency model", whole, 0.7))
    print(
        f"{'(b) the same in CPU time':<34} mean={cpu / len(sink.records) * 1000:7.4f} ms  "
        "(this process, resets and env steps included; on a shared machine the wall figures "
        "above count the other processes too)"
    )


def bench_encoding(repeats: int = 300) -> None:
    from agentkit.envs.gridworld.backend import GridworldBackend

    backend = GridworldBackend(render_size=512, frame="full")
    raw = backend.reset(TASK, 0)
    frame = next(iter(raw.frames.values()))
    backend.close()
    assert frame.shape[:2] == (512, 512), frame.shape
    for fmt in ("jpeg", "png"):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            image = encode_image(frame, "view", fmt=fmt, max_side=512, quality=85)
            times.append(time.perf_counter() - start)
        target = 2.0 if fmt == "jpeg" else None
        print(line(f"(c) encode 512x512 frame, {fmt}", times, target) + f"  ({len(image.data)} bytes)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=3000)
    parser.add_argument("--memory", default="markovian")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    bench_turns(args.turns, args.memory)
    bench_encoding()


if __name__ == "__main__":
    main()
