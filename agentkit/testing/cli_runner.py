"""Run the real `agentkit` command in a subprocess, as the end-to-end tests and benchmarks do."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

AGENTKIT = [sys.executable, "-m", "agentkit.cli"]


# The terminal size a test worker inherits: pytest-xdist starts its workers with COLUMNS=80 and
# LINES=24, which would lay out piped output as a terminal's only under xdist. A test that wants a
# width names it (``cli_env(COLUMNS="80")``).
_TERMINAL_SIZE = ("COLUMNS", "LINES")


def cli_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell for the command: no API keys, no inherited terminal size."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k not in _TERMINAL_SIZE}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env.update(extra)
    return env


def ctrl_c_reaches_the_command() -> None:
    """``preexec_fn`` for a command a test interrupts with SIGINT, as a user's Ctrl-C would.

    Why: a shell without job control starts a background command (``./dev test &``, a CI runner's
    step) with SIGINT ignored, pytest's workers inherit that, and so would the command: Python leaves
    an ignored SIGINT ignored, the command never sees the test's Ctrl-C and the test times out. In
    the child only, between fork and exec, SIGINT gets its default action back.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_cli(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, check: bool = True, timeout: float = 300
) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [*AGENTKIT, *args], cwd=cwd, env=env or cli_env(), capture_output=True, text=True, timeout=timeout
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"agentkit {' '.join(args)} exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    return proc


def run_json(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 300) -> dict:
    proc = run_cli([*args, "--json"], cwd, env, timeout=timeout)
    return json.loads(proc.stdout)  # stdout must be exactly one JSON document
