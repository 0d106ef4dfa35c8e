"""`agentkit --help` and the listing commands load only what they use (issue 18: start-up <= 0.8 s).

Why a test of imports rather than of time: the time depends on the machine, what a command imports
does not. Each heavy library (litellm alone took over a second to import) is loaded where it is
used; these runs of the real entry point, in a fresh interpreter, fail when someone moves such an
import back to the top of a module the command line reads at start-up. Timings are in
bench/cli_startup.py.
"""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from agentkit.testing.cli_runner import cli_env

# Runs the real entry point in a fresh interpreter, then prints (last, on stderr) the heavy
# libraries the command imported; the command's own exit (typer's SystemExit) still runs atexit.
PROBE = """
import atexit, sys
{preload}
heavy = {heavy!r}
atexit.register(lambda: sys.stderr.write("\\nLOADED " + ",".join(h for h in heavy if h in sys.modules) + "\\n"))
from agentkit.cli import main
sys.argv = ["agentkit", *{args!r}]
main()
"""

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
    "httpx",
    "openai",
    "tenacity",
    "rapidfuzz",
    "grpc",
    "mlagents_envs",
    "trifinger_simulation",
)


def loaded(args: list[str], tmp_path, preload: str = "") -> tuple[set[str], subprocess.CompletedProcess]:
    code = PROBE.format(heavy=HEAVY, args=args, preload=preload)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=cli_env(), capture_output=True, text=True, timeout=120
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("LOADED ")]
    assert lines, f"the probe did not finish: {done.stderr[-2000:]}"
    return set(filter(None, lines[-1].removeprefix("LOADED ").split(","))), done


def test_help_loads_no_heavy_library(tmp_path):
    found, done = loaded(["--help"], tmp_path)
    assert done.returncode == 0 and "Usage" in done.stdout and "tasks" in done.stdout
    assert found == set(), f"`agentkit --help` imported {sorted(found)}"


def test_the_probe_sees_a_heavy_import(tmp_path):
    """The check can fail: a heavy library imported on the way to the command is seen."""
    found, done = loaded(["--help"], tmp_path, preload="import sqlalchemy")
    assert done.returncode == 0 and found == {"sqlalchemy"}


@pytest.mark.parametrize(
    "args",
    [
        ["tasks", "aai-arena", "--json"],
        ["tasks", "gridworld", "--json"],
        ["run", "--help"],
        ["eval", "--help"],
        ["transcripts", "list", "--help"],
    ],
)
def test_listing_and_help_load_no_model_client_or_store(args, tmp_path):
    """No litellm, no SQLAlchemy, no Jinja: listing tasks or reading a command's help neither calls a
    model nor opens the transcript store nor renders a prompt."""
    found, done = loaded(args, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not found & {"litellm", "sqlalchemy", "jinja2", "httpx", "openai", "tenacity", "rapidfuzz"}, (
        f"`agentkit {' '.join(args)}` imported {sorted(found)}"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["tasks", "aai-arena"],
        ["tasks", "animalai", "--json"],
        ["tasks", "gridworld"],
        ["tasks", "trifinger", "--json"],
    ],
)
def test_listing_tasks_starts_no_simulator(args, tmp_path):
    """`agentkit tasks ENV` reads the backend's light task catalogue: no simulator (pybullet, minigrid,
    gymnasium, trifinger-simulation, Unity's ML-Agents), no numpy or PIL (envs/registry.py's task_catalogue)."""
    found, done = loaded(args, tmp_path)
    assert done.returncode == 0 and done.stdout, done.stderr[-2000:]
    assert not found & {
        "pybullet",
        "minigrid",
        "gymnasium",
        "trifinger_simulation",
        "mlagents_envs",
        "numpy",
        "PIL",
    }, f"`agentkit {' '.join(args)}` imported {sorted(found)}"


def test_viewer_starts_without_numpy(tmp_path):
    """`agentkit view` reads poses and world maps as plain dataclasses (observers/pose.py,
    observers/world_map.py): on its way to listening it loads no numpy, no model client and no
    simulator. Asked for a port already taken, the command opens the store and builds the server,
    then stops at the bind instead of serving."""
    from agentkit.transcripts import TranscriptStore

    db = f"sqlite:///{tmp_path / 'viewer.db'}"
    TranscriptStore(db).close()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        found, done = loaded(["view", "--db", db, "--port", str(taken.getsockname()[1])], tmp_path)
    assert done.returncode != 0 and "cannot listen" in done.stderr, done.stderr[-2000:]
    assert "sqlalchemy" in found and "jinja2" in found  # the probe saw the viewer start
    assert not found & {"numpy", "litellm", "pybullet", "minigrid", "gymnasium", "openai"}, (
        f"`agentkit view` imported {sorted(found)}"
    )
