"""The linter and the type checker run with the tests, so CI fails on what they find.

Why: a configuration nobody runs drifts (the repository once held 30 ``noqa`` for a linter it did
not have). ``ruff check`` over the whole repository is fast, so it runs here on every test run;
the full ``mypy`` pass takes a minute from a cold cache, so ``.ci/run`` runs it
(``scripts/typecheck.py``) and these tests check, on a small package laid out like ours, that the
script finds an error in a sub-package mapped from another folder, names it by its repository path,
and tells new errors from known ones.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _typecheck_module():
    spec = importlib.util.spec_from_file_location("typecheck_script", ROOT / "scripts" / "typecheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ruff_check_passes_on_the_repository():
    proc = subprocess.run(
        [str(BIN / "ruff"), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_leaves_the_repository_unchanged():
    """The tree is in ruff's format (configured in pyproject.toml): a diff is a failing test, so a
    contributor runs `ruff format .` (or the pre-commit hook) before committing."""
    proc = subprocess.run(
        [str(BIN / "ruff"), "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_uses_the_project_rules(tmp_path):
    """The pyproject rules are the ones in force: an unused import and a bare `raise` without `from`
    inside `except` are reported; an unknown rule code would have made ruff refuse the config."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        textwrap.dedent("""\
        import os


        def f():
            try:
                return 1
            except KeyError:
                raise ValueError("x")
    """)
    )
    proc = subprocess.run(
        [
            str(BIN / "ruff"),
            "check",
            "--no-cache",
            "--config",
            str(ROOT / "pyproject.toml"),
            "--output-format",
            "concise",
            str(bad),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "F401" in proc.stdout and "B904" in proc.stdout


def _fake_project(root: Path, body: str) -> None:
    """A package `agentkit` whose sub-package `agentkit.actions` lives in the folder `actions/`."""
    (root / "agentkit").mkdir()
    (root / "agentkit" / "__init__.py").write_text('"""Top."""\n')
    (root / "actions").mkdir()
    (root / "actions" / "__init__.py").write_text('"""Actions."""\n')
    (root / "actions" / "verbs.py").write_text(body)
    (root / "pyproject.toml").write_text(
        textwrap.dedent("""\
        [tool.setuptools.package-dir]
        "agentkit" = "agentkit"
        "agentkit.actions" = "actions"

        [tool.mypy]
        python_version = "3.10"
    """)
    )


def test_typecheck_finds_an_error_in_a_mapped_folder_by_its_repository_path(tmp_path):
    typecheck = _typecheck_module()
    _fake_project(tmp_path, 'def f() -> int:\n    return "not an int"\n')
    status, lines = typecheck.run_mypy(tmp_path)
    errors = [line for line in lines if ": error:" in line]
    assert status == 1 and len(errors) == 1, lines
    assert errors[0].startswith("actions/verbs.py:2: error: Incompatible return value type"), errors
    # The same key with no line number: moving code around does not turn a known error into a new one.
    assert typecheck.error_key(errors[0]).startswith("actions/verbs.py: Incompatible return value type")


def test_typecheck_passes_a_clean_mapped_folder(tmp_path):
    typecheck = _typecheck_module()
    _fake_project(tmp_path, "def f() -> int:\n    return 1\n")
    status, lines = typecheck.run_mypy(tmp_path)
    assert status == 0, lines


def test_known_errors_are_counted_and_new_or_fixed_ones_are_told_apart():
    typecheck = _typecheck_module()
    known = ["a.py: x  [misc]", "a.py: x  [misc]", "b.py: y  [arg-type]"]
    found = ["a.py: x  [misc]", "c.py: z  [operator]", "a.py: x  [misc]", "a.py: x  [misc]"]
    new, gone = typecheck.compare(found, known)
    assert new == ["c.py: z  [operator]", "a.py: x  [misc]"]  # a third copy of a known error is new
    assert gone == ["b.py: y  [arg-type]"]


def test_the_known_error_list_is_sorted_and_has_no_line_numbers():
    text = (ROOT / "scripts" / "typecheck_known.txt").read_text(encoding="utf-8")
    entries = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert entries == sorted(entries)
    assert all(typecheck_line_shape(line) for line in entries), [
        e for e in entries if not typecheck_line_shape(e)
    ]


def typecheck_line_shape(line: str) -> bool:
    """``path.py: message  [code]``: a repository path, no line number, an error code."""
    path, _, rest = line.partition(": ")
    return (
        path.endswith(".py")
        and not path.split("/")[0].startswith("/")
        and rest.endswith("]")
        and "  [" in rest
    )
