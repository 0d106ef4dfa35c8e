"""How long the `agentkit` command takes to start, and what it loads: `--help`, `tasks`, `tasks ENV`.

Why: a researcher types `agentkit --help` and `agentkit tasks ENV` often, and each used to pay for
every heavy library the package has (litellm, SQLAlchemy, pybullet, numpy, ...) before printing a
line. Issue 18 asks for <= 0.8 s. This times each command as a whole process (the interpreter's
start included), N runs after one warm-up, and prints per command the median wall and CPU seconds,
the peak memory, and which heavy libraries the process imported.

Figures (whole-process medians of 5-7 runs after a warm-up, 2 cores shared with five other
engineers' test runs, so wall time was 2-4x the CPU time: compare the CPU seconds):

    command                   issue 18 (before)   session start (3f421de)  item 5 (13a3373)   item 6b (7d33d48)
    agentkit --help           2.8 s, 194 MB       cpu 0.34 s, 25.5 MB      cpu 0.24 s, 29 MB  cpu 0.27 s, 29 MB
    agentkit tasks            -                   cpu 0.47 s, 39 MB        cpu 0.38 s, 39 MB  cpu 0.44 s, 39 MB (usage error)
    agentkit tasks aai-arena  -                   cpu 0.94 s, 60 MB        cpu 0.79 s, 60 MB  cpu 0.26 s, 36 MB (wall 0.39 s)
    agentkit tasks gridworld  -                   cpu 0.90 s, 76 MB        cpu 0.83 s, 77 MB  cpu 0.30 s, 36 MB (wall 0.62 s)
    agentkit tasks trifinger  -                   cpu 1.41 s, 165 MB       cpu 1.10 s, 165 MB cpu 0.28 s, 36 MB (wall 0.67 s)

(Load average ~8 during the last column; the drift of --help and bare `tasks` between columns is
the machine's, those commands did not change.) Before item 6b, `tasks aai-arena` spent its CPU
(time.process_time around each step, 13a3373) importing agentkit.cli 0.11 s; agentkit.envs 0.19 s
(envs/base.py -> observers -> numpy, PIL, pydantic); the arena backend's module 0.10 s (pybullet);
tasks() and suites() 0.01 s; then 0.25 s in the command itself, of which rich's layout of the
917-row table ~0.22 s (`--json`: 0.04 s) and the rest typer 0.29's per-parameter pydantic
TypeAdapters (`typer._adapters`); `python -X importtime` put agentkit.envs at 0.32 s cumulative and
agentkit.envs.gridworld.backend (minigrid, gymnasium, pygame, networkx) at 0.77 s.

Item 6b: `tasks ENV` reads the backend's light task catalogue (envs/registry.task_catalogue: the
Testbed's packaged file names, generated JSON for gridworld and trifinger), agentkit.envs loads its
names lazily, and a table that fits its lines is written without rich's layout when stdout is not
a terminal (agentkit/cli/_task_list.py). Now (process_time, 7d33d48): importing agentkit.cli ~0.11 s,
pydantic for typer's adapters ~0.07 s (typer coerces every non-flag parameter of the command and of
the group callback through a TypeAdapter; avoiding it would mean reaching into typer's private
_runtime_param, left alone), the command itself ~0.05 s; -X importtime: agentkit.envs.registry
2.5 ms, agentkit.cli._task_list 0.9 ms; no numpy, PIL, pybullet, minigrid, gymnasium or
trifinger-simulation (tests/test_cli_startup_imports.py). In a terminal the table still goes
through rich (its styles), so there `tasks aai-arena` costs ~0.18 s more (its layout of 900 rows).

Usage: python bench/cli_startup.py [--runs N] [--env ENV ...]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HEAVY = (
    "litellm",
    "sqlalchemy",
    "pybullet",
    "numpy",
    "PIL",
    "minigrid",
    "gymnasium",
    "jinja2",
    "pydantic",
    "yaml",
    "httpx",
    "trifinger_simulation",
    "grpc",
)

# Runs the real entry point, then reports (on stderr, after the command's own output) the heavy
# libraries it loaded. The command's exit (typer raises SystemExit) still runs atexit.
PROBE = """
import atexit, sys
heavy = {heavy!r}
atexit.register(lambda: sys.stderr.write("\\nLOADED " + ",".join(h for h in heavy if h in sys.modules) + "\\n"))
from agentkit.cli import main
sys.argv = ["agentkit", *{args!r}]
main()
"""


def timed_run(args: list[str]) -> tuple[float, float, float]:
    """(wall s, cpu s, peak RSS MB) of one `agentkit ARGS` process, its output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentkit.cli", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = 0  # reaped above; keep Popen from waiting again
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def small_store(folder: Path) -> Path:
    """A transcript database of one finished run (3 episodes of 5 turns) for the viewer to list."""
    from agentkit.messages import Message
    from agentkit.records import EndReason, EpisodeResult, TurnRecord, Usage
    from agentkit.transcripts import TranscriptStore

    db = folder / "viewer.db"
    with TranscriptStore(f"sqlite:///{db}") as store:
        run = store.create_run("aai-arena", ["01-04-03"], "bench/model", {}, {"system.j2": "s"})
        for e in range(3):
            episode = store.start_episode(run, "01-04-03", e)
            for i in range(5):
                pose = {"position": [float(i), 0.0, float(e)], "heading": 90.0}
                store.add_turn(
                    episode,
                    TurnRecord(
                        i,
                        {"step": i, "pose": pose},
                        [Message("user", f"turn {i}")],
                        "Go(1);",
                        Usage(10, 2, 0.0),
                        0.1,
                        False,
                        [{"name": "Go", "args": [1]}],
                        None,
                        None,
                        [[1, 0]],
                        0.0,
                        0.0,
                        None,
                        i == 4,
                        {"model": 0.1},
                    ),
                )
            result = EpisodeResult(
                episode, "01-04-03", e, e == 0, 1.0 if e == 0 else 0.0, EndReason.GOAL, 5, 5
            )
            store.finish_episode(episode, result)
        store.finish_run(run)
    return db


def viewer_start(db: Path) -> tuple[float, float, float]:
    """(wall s until its first page arrived, cpu s, peak RSS MB) of `agentkit view --db DB`: started
    on a free port, asked for its run listing once, then stopped with Ctrl-C as a user would."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentkit.cli", "view", "--db", f"sqlite:///{db}", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # its "viewer on URL" line arrives at once
    )
    assert proc.stdout is not None
    found = None
    while found is None:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("agentkit view stopped before naming its address")
        found = re.search(r"http://[^\s]+/", line)
    with urllib.request.urlopen(found[0], timeout=120) as page:
        page.read()
    wall = time.perf_counter() - start
    proc.send_signal(signal.SIGINT)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped above; keep Popen from waiting again
    proc.stdout.close()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def loaded_libraries(args: list[str]) -> str:
    """The heavy libraries `agentkit ARGS` imports."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY, args=args)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("LOADED ")]
    return (lines[-1].removeprefix("LOADED ") or "none") if lines else "? (the probe did not finish)"


def import_seconds() -> float:
    """Cumulative import time of agentkit.cli (python -X importtime), in seconds."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import agentkit.cli"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    for line in reversed(done.stderr.splitlines()):
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[2] == "agentkit.cli":
            return int(parts[1]) / 1e6
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="counted runs per command (after one warm-up)")
    parser.add_argument(
        "--env",
        nargs="*",
        default=["aai-arena", "gridworld", "trifinger"],
        help="backends whose `tasks ENV` to time",
    )
    args = parser.parse_args()
    commands = [["--help"], ["tasks"], ["tasks", "--help"], ["run", "--help"]]
    commands += [["tasks", env] for env in args.env]
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.runs} runs per command after a warm-up"
    )
    print(f"import agentkit.cli: {import_seconds():.3f} s (python -X importtime, cumulative)")
    print(f"{'command':<28} {'wall p50':>9} {'cpu p50':>8} {'peak MB':>8}  heavy libraries loaded")
    for command in commands:
        timed_run(command)  # warm-up: bytecode caches, page cache
        runs = [timed_run(command) for _ in range(args.runs)]
        wall, cpu, rss = (statistics.median(r[i] for r in runs) for i in range(3))
        label = "agentkit " + " ".join(command)
        print(f"{label:<28} {wall:>8.3f}s {cpu:>7.3f}s {rss:>8.1f}  {loaded_libraries(command)}")
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as taken:
        db = small_store(Path(tmp))
        viewer_start(db)  # warm-up
        runs = [viewer_start(db) for _ in range(args.runs)]
        wall, cpu, rss = (statistics.median(r[i] for r in runs) for i in range(3))
        # What it loads on the way to listening: asked for a port already taken, the command opens
        # the store and builds the server, then stops at the bind instead of serving for ever.
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        libraries = loaded_libraries(
            ["view", "--db", f"sqlite:///{db}", "--port", str(taken.getsockname()[1])]
        )
        print(f"{'agentkit view (first page)':<28} {wall:>8.3f}s {cpu:>7.3f}s {rss:>8.1f}  {libraries}")


if __name__ == "__main__":
    main()
