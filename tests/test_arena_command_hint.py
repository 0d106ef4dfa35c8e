"""`agentkit-arena` without the animalai extra: one line naming the install command, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("agentkit-arena")

# Runs the installed console script with the given top-level modules made unimportable, as on an
# installation without the animalai extra.
HIDE_AND_RUN = """
import importlib.abc, runpy, sys
hidden = set(sys.argv[1].split(","))
class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in hidden:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Missing())
script = sys.argv[2]
sys.argv = [script, "--help"]
runpy.run_path(script, run_name="__main__")
"""


def _run_without(modules: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", HIDE_AND_RUN, modules, str(SCRIPT)], capture_output=True, text=True, timeout=60
    )


def test_missing_grpc_gives_the_install_hint_in_one_line() -> None:
    done = _run_without("grpc")
    assert done.returncode == 2
    assert done.stderr == (
        "error: agentkit-arena needs the animalai extra (grpc is not installed): "
        "pip install 'agentkit-embodied[animalai]'\n"
    )


def test_missing_mlagents_envs_names_it() -> None:
    done = _run_without("mlagents_envs")
    assert done.returncode == 2 and "(mlagents_envs is not installed)" in done.stderr
    assert "Traceback" not in done.stderr


def test_with_the_extra_the_command_runs() -> None:
    done = subprocess.run([str(SCRIPT), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--mlagents-port" in done.stdout
