"""Which Animal-AI build to launch: a path (from ``--aai-build`` or ``AAI_BUILD``) or ``builtin``.

Why checked here, before mlagents-envs sees it: its own message for a missing build ("Provided
filename does not match any environments") names neither the option nor the variable, and a
build that is not executable fails much later. ``builtin`` is the ``agentkit-arena`` stand-in
installed beside this package.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

BUILTIN = "builtin"
ENV_VAR = "AAI_BUILD"
STAND_IN = "agentkit-arena"


class BuildError(ValueError):
    """The build cannot be launched (one line, naming the path and where it came from)."""


@dataclass(frozen=True)
class ResolvedBuild:
    path: str  # absolute path of the executable
    builtin: bool  # agentkit's arena stand-in (speaks agentkit's episode channel too)


def resolve_build(option: str | None) -> ResolvedBuild:
    """The executable to launch for ``option`` (None: the ``AAI_BUILD`` variable)."""
    source = "--aai-build"
    if not option:
        option, source = os.environ.get(ENV_VAR, ""), ENV_VAR
    if not option:
        raise BuildError(
            f"no Animal-AI build given: pass --aai-build PATH (or '{BUILTIN}' for agentkit's arena) "
            f"or set {ENV_VAR}"
        )
    if option.strip().lower() == BUILTIN:
        return ResolvedBuild(_stand_in(), builtin=True)
    path = Path(option).expanduser()
    if path.is_dir():
        path = _executable_in(path, source)
    if not path.exists():
        raise BuildError(f"Animal-AI build not found: {path} (from {source})")
    if not path.is_file() or not os.access(path, os.X_OK):
        raise BuildError(f"Animal-AI build is not an executable file: {path} (from {source}; try chmod +x)")
    return ResolvedBuild(str(path.resolve()), builtin=False)


def _executable_in(folder: Path, source: str) -> Path:
    """A Linux Unity build is a folder holding ``NAME.x86_64``; accept the folder too."""
    found = sorted(folder.glob("*.x86_64")) or sorted(folder.glob("*.x86"))
    if len(found) != 1:
        raise BuildError(
            f"Animal-AI build folder {folder} (from {source}) holds {len(found)} *.x86_64 "
            "executables; name the executable itself"
        )
    return found[0]


def _stand_in() -> str:
    """The ``agentkit-arena`` script of this installation (beside the interpreter first, then PATH)."""
    beside = Path(sys.executable).parent / STAND_IN
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(STAND_IN)
    if found is None:
        raise BuildError(
            f"the '{STAND_IN}' executable is not installed; reinstall agentkit with its "
            "animalai extra (pip install -e '.[animalai]')"
        )
    return found
