"""How fast `agentkit rerender` goes through recorded turns (target: at least 5,000 turns/s).

Records a run through the real loop and store (gridworld, full-history prompts with an image per
turn, a weak scripted model with parse errors, so feedback and history are exercised), then
re-renders it three ways: unchanged templates (nothing differs), a changed turn template (every
turn differs and is diffed), and a changed history policy. Each figure is end to end: reading the
turns from SQLite, rebuilding observations, rendering, comparing, diffing and counting tokens.

    .venv/bin/python bench/rerender_speed.py [--episodes 60] [--turns 30] [--db PATH] [--workers N]

The figures are wall-clock: on a machine whose CPUs other programs keep busy they drop (and
rerender then uses fewer processes).

With --db pointing at an existing file the recording is reused (delete it to record again).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

from agentkit.offline.rerender import rerender_run, token_counter
from agentkit.transcripts import TranscriptStore

# The recorder of the viewer's test transcripts is a test fixture, kept outside the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))
from viewer_sample import ScriptedModel, record_run

TASKS = ("BabyAI-GoToLocal-v0", "BabyAI-PickupLoc-v0", "BabyAI-GoToObj-v0")
log = logging.getLogger("bench.rerender_speed")


def _recorded_run(db: Path, episodes: int, turns: int) -> str:
    store = TranscriptStore(f"sqlite:///{db}")
    try:
        runs = store.list_runs()
        if runs:
            log.info("reusing run %s in %s", runs[0].id, db)
            return runs[0].id
        per_task = max(1, episodes // len(TASKS))
        start = time.perf_counter()
        run_id = record_run(store, TASKS, episodes=per_task, model=ScriptedModel(), max_scripts=turns)
        log.info(
            "recorded %d episodes x %d turns in %.1f s",
            per_task * len(TASKS),
            turns,
            time.perf_counter() - start,
        )
        return run_id
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=60)
    parser.add_argument(
        "--turns", type=int, default=30, help="scripts per episode (all used: the model never wins)"
    )
    parser.add_argument("--db", type=Path, default=None, help="SQLite file to record into / reuse")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the best is reported")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes (default: rerender's own choice, one per idle CPU)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "bench.db"
        run_id = _recorded_run(db, args.episodes, args.turns)
        templates = Path(tmp) / "templates"
        templates.mkdir()
        (templates / "turn.j2").write_text(
            "{% if feedback %}Your last answer could not be used: {{ feedback }}\n\n{% endif %}"
            "Turn {{ turn + 1 }}/{{ max_scripts }}. Mission: {{ obs.mission }}\n{{ obs.status_text }}\n"
            "{% if obs.ascii %}\n{{ obs.ascii }}\n{% endif %}\nAnswer with a script.\n",
            encoding="utf-8",
        )
        store = TranscriptStore(f"sqlite:///{db}")
        counter = token_counter(store.get_run(run_id).model)
        cases = (
            ("unchanged templates", None, None),
            ("changed turn template", templates, None),
            ("memory full -> last-images:2", None, "last-images:2"),
        )
        print(f"token counter: {counter.name}")
        worst = float("inf")
        for name, tdir, memory in cases:
            best = None
            for _ in range(args.repeat):
                report = rerender_run(
                    store,
                    run_id,
                    templates_dir=tdir,
                    memory=memory,
                    workers=args.workers,
                    counter=token_counter(store.get_run(run_id).model),
                )
                if best is None or report.seconds < best.seconds:
                    best = report
            assert best is not None
            worst = min(worst, best.turns_per_s)
            print(
                f"{name:32s} {len(best.turns):6d} turns  {best.changed_turns:6d} changed  "
                f"tokens {best.tokens_before:>10,d} -> {best.tokens_after:>10,d}  "
                f"{best.seconds:6.3f} s  {best.turns_per_s:8,.0f} turns/s  ({best.workers} process(es))"
            )
        store.close()
        print(f"rerender speed: {worst:,.0f} turns/s (slowest case; target >= 5,000)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
