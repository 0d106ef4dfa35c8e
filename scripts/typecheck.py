"""Type-check the package as it is installed: ``mypy -p agentkit`` over the import layout.

Why a script: the repository's folders are not laid out as the package is imported. ``actions/`` is
``agentkit.actions``, ``envs/`` is ``agentkit.envs`` (pyproject.toml's
``[tool.setuptools.package-dir]``), and the editable install maps them with an import hook that mypy
cannot follow. So this script lays the package out as an installation would, as symbolic links in a
temporary folder, runs mypy there with the project's ``[tool.mypy]`` configuration, and prints each
error with the repository's own path (``actions/parser.py:12: ...``) so editors and people can jump
to it. The folder mapping is read from pyproject.toml, the one place that states it.

    .venv/bin/python scripts/typecheck.py            # exit status 0 when nothing new is found
    .venv/bin/python scripts/typecheck.py --update   # rewrite the list of known errors (see below)

Known errors: when mypy was first switched on it found some 230 errors in code written without it
(mostly annotations less precise than the code: ``tuple[float, ...]`` for a 3-tuple, an Optional
attribute read after the call that sets it, SQLAlchemy's ``__table__`` typed as a FromClause). They
were listed, one a line without line numbers, in ``scripts/typecheck_known.txt`` and have all been
fixed: the list is empty, so any error fails the check. The list stays as the ratchet (the check
names entries that no longer occur); never add lines by hand to get a change through.

mypy's cache stays in ``.mypy_cache/`` at the top of the repository (ignored by git), so a second run
checks only what changed.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: mypy brings tomli, the same parser
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "agentkit"
KNOWN = ROOT / "scripts" / "typecheck_known.txt"
_ERROR = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: (?P<text>.*)$")

log = logging.getLogger("typecheck")


def package_dirs(pyproject: Path) -> dict[str, str]:
    """Import name -> repository folder, from ``[tool.setuptools.package-dir]``."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return dict(config["tool"]["setuptools"]["package-dir"])


def lay_out(tree: Path, mapping: dict[str, str], root: Path = ROOT) -> dict[str, str]:
    """Links under ``tree`` that import as the installed package does; returns the prefix map
    (path under ``tree`` -> repository path) used to name files in mypy's report."""
    top = tree / PACKAGE
    top.mkdir()
    for entry in sorted((root / mapping[PACKAGE]).iterdir()):
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    prefixes = {}
    for name, folder in sorted(mapping.items()):
        if name == PACKAGE:
            continue
        parts = name.split(".")[1:]
        link = top.joinpath(*parts)
        if link.is_symlink():
            link.unlink()
        link.symlink_to(root / folder)
        prefixes["/".join([PACKAGE, *parts]) + "/"] = folder + "/"
    prefixes[PACKAGE + "/"] = mapping[PACKAGE] + "/"
    return prefixes


def repository_path(line: str, prefixes: dict[str, str]) -> str:
    """``agentkit/actions/parser.py:3: ...`` -> ``actions/parser.py:3: ...`` (longest prefix wins)."""
    for prefix in sorted(prefixes, key=len, reverse=True):
        if line.startswith(prefix):
            return prefixes[prefix] + line[len(prefix) :]
    return line


def run_mypy(root: Path = ROOT) -> tuple[int, list[str]]:
    """mypy's exit status and its output lines, with repository paths, for the project at ``root``."""
    mapping = package_dirs(root / "pyproject.toml")
    with tempfile.TemporaryDirectory(prefix="agentkit-typecheck-") as tmp:
        prefixes = lay_out(Path(tmp), mapping, root)
        command = [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(root / "pyproject.toml"),
            "--cache-dir",
            str(root / ".mypy_cache"),
            "-p",
            PACKAGE,
        ]
        proc = subprocess.run(
            command, cwd=tmp, capture_output=True, text=True, env={**os.environ, "MYPYPATH": ""}
        )
    return proc.returncode, [
        repository_path(line, prefixes) for line in (proc.stdout + proc.stderr).splitlines()
    ]


def error_key(line: str) -> str | None:
    """``path: message  [code]`` of an error line (no line number, so edits elsewhere keep it), or None."""
    match = _ERROR.match(line)
    return f"{match['path']}: {match['text']}" if match else None


def read_known(path: Path) -> list[str]:
    if not path.is_file():
        return []
    return [
        line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")
    ]


def compare(found: list[str], known: list[str]) -> tuple[list[str], list[str]]:
    """(new errors, known entries no longer found), each counted: two equal errors need two lines."""
    left = list(known)
    new = []
    for key in found:
        if key in left:
            left.remove(key)
        else:
            new.append(key)
    return new, left


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    parser = argparse.ArgumentParser(
        description="mypy over the package as installed, against the known errors"
    )
    parser.add_argument(
        "--update", action="store_true", help="rewrite scripts/typecheck_known.txt from this run"
    )
    args = parser.parse_args(argv)
    status, lines = run_mypy()
    found = [key for key in map(error_key, lines) if key is not None]
    if status not in (0, 1) or (status == 1 and not found):  # mypy itself failed (bad config, crash)
        sys.stdout.write("\n".join(lines) + "\n")
        return 2
    if args.update:
        header = (
            "# Known mypy errors (scripts/typecheck.py): fix one, delete its line. Never add lines by hand.\n"
        )
        KNOWN.write_text(header + "".join(f"{key}\n" for key in sorted(found)), encoding="utf-8")
        log.info("typecheck: %d known errors written to %s", len(found), KNOWN.relative_to(ROOT))
        return 0
    new, gone = compare(found, read_known(KNOWN))
    for key in gone:
        log.info("typecheck: no longer found, delete from %s: %s", KNOWN.name, key)
    if new:
        errors = [line for line in lines if error_key(line) in set(new)]
        sys.stdout.write("\n".join(errors) + "\n")
        log.error("typecheck: %d new mypy error(s) (%d known)", len(new), len(found) - len(new))
        return 1
    log.info(
        "typecheck: no new errors (%d known, %d fixed since the list was written)", len(found), len(gone)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
