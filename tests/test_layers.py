"""The layers of docs/architecture.md ("The layers: which part may import which") hold: imports point one way.

Why: the table in docs/architecture.md is only a wish unless something fails when a module breaks it. This
test reads every import of every module of the project with ``ast`` (top-level ones, ones inside
functions, and ones under ``if TYPE_CHECKING:``), maps both ends to their part of the table, and
fails naming the file, the line and the forbidden direction.

Imports under ``TYPE_CHECKING`` count like any other. A type-only import is still a dependency of
the design: the annotated code speaks in the upper layer's terms, and the next engineer can turn
it into a runtime import without noticing the layer it crosses. Where a lower part needs a type
of an upper one, the type belongs lower down (``agentkit.records``).

Not counted: ``importlib.import_module("...")`` with a string. That is how the backend registry
(``envs/registry.py``) reaches the backends by name, the one allowed way for the loop and the CLI to
reach a backend.

``ALLOWED`` lists the crossings not yet fixed, each with its reason; the goal is an empty list.
An entry that no longer matches any import fails too, so the list only shrinks.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Import name -> folder of the repository (pyproject.toml's [tool.setuptools.package-dir]).
SOURCE_FOLDERS = {
    "agentkit": "agentkit",
    "agentkit.actions": "actions",
    "agentkit.prompts": "prompts",
    "agentkit.observers": "observers",
    "agentkit.memory": "memory",
    "agentkit.envs": "envs",
    "agentkit.transcripts": "transcripts",
}

# Helper packages shared by a family of backends (docs/architecture.md: "a shared helper package
# of its family"), and the backends of that family. They are rules and helpers, not backends: the upper
# layers (reports, the CLI) may read them without starting a backend.
FAMILIES: dict[str, frozenset[str]] = {
    "animalai_common": frozenset({"arena", "animalai"}),
    "pybullet_support": frozenset({"arena", "trifinger"}),
}

# The layer of a module follows from where it sits; no module is listed by name but the two shared
# types the table draws as its own boxes. The bottom: agentkit.records, agentkit.messages, and every
# module of the leaf package agentkit/leaves/ (helpers that import nothing of ours, so any part may
# use them: run_defaults holds the run's default numbers, which the model client reads there
# instead of writing them a second time). A new leaf goes in agentkit/leaves/ and is covered.
SHARED_TYPES = ("agentkit.records", "agentkit.messages")
LEAF_PACKAGE = "agentkit.leaves"

# The command line is the package agentkit/cli/: its __init__ is the entry point (the `agentkit`
# console script is agentkit.cli:main), every module with a plain name is a command module (cli/eval.py
# is `agentkit eval`, cli/tasks.py is `agentkit tasks`), and a module whose name starts
# with an underscore is a helper the command modules share (cli/_common.py, cli/_run_options.py, ...).
# Only the entry imports the command modules, which share code through the helpers, never by
# importing the entry or each other; a helper registers no command. Nothing outside the package
# imports it: the CLI is the top of the application.
CLI_ENTRY = "agentkit.cli"
CLI_MAIN = "agentkit.cli.__main__"  # `python -m agentkit.cli`: the entry run as a script


def is_cli(module: str) -> bool:
    """Whether ``module`` is the command line (its entry or any module of the agentkit/cli/ package)."""
    return module == CLI_ENTRY or module.startswith(CLI_ENTRY + ".")


def is_cli_command(module: str) -> bool:
    """Whether ``module`` is one of the command line's command modules (agentkit/cli/<name>.py, no underscore)."""
    package, _, name = module.rpartition(".")
    return package == CLI_ENTRY and not name.startswith("_")


def registers_commands(path: Path) -> bool:
    """Whether the module at ``path`` defines a top-level ``register`` (how a command module adds its verbs)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return any(isinstance(node, ast.FunctionDef) and node.name == "register" for node in tree.body)


def is_leaf(module: str) -> bool:
    """Whether ``module`` sits at the bottom of the table: a shared type or a module of agentkit/leaves/."""
    return module in SHARED_TYPES or module == LEAF_PACKAGE or module.startswith(LEAF_PACKAGE + ".")


# (importing module, imported module) -> why it is still allowed. The goal is an empty dict.
ALLOWED: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class ImportLine:
    """One import of one module: who imports what, and where."""

    importer: str  # dotted module name
    imported: str  # dotted module name (or package) imported
    path: Path
    line: int


@dataclass(frozen=True)
class Crossing:
    """An import that points the wrong way."""

    where: ImportLine
    why: str

    def __str__(self) -> str:
        w = self.where
        return f"{w.path}:{w.line}: {w.importer} imports {w.imported}: {self.why}"


def module_name(root: Path, folder: str, package: str, path: Path) -> str:
    """The dotted name of the module at ``path`` inside the folder mapped to ``package``."""
    parts = list(path.relative_to(root / folder).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([package, *parts])


def project_modules(root: Path, folders: dict[str, str]) -> dict[str, Path]:
    """Every module of the project: dotted name -> file. Nested mapped folders are not walked twice."""
    modules: dict[str, Path] = {}
    for package, folder in folders.items():
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            modules[module_name(root, folder, package, path)] = path
    return modules


def _resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module of a (possibly relative) ``from ... import``."""
    if node.level == 0:
        return node.module or ""
    parts = importer.split(".")
    if not is_package:
        parts = parts[:-1]
    if node.level > 1:
        parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def imports_of(name: str, path: Path, known: set[str]) -> list[ImportLine]:
    """All imports in one file, wherever they sit (functions, TYPE_CHECKING blocks included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: list[ImportLine] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [ImportLine(name, alias.name, path, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(name, is_package, node)
            for alias in node.names:
                # `from agentkit import loop` imports the module agentkit.loop, not a name of agentkit.
                sub = f"{base}.{alias.name}"
                found.append(ImportLine(name, sub if sub in known else base, path, node.lineno))
    return [i for i in found if i.imported == "agentkit" or i.imported.startswith("agentkit.")]


def packages_of(modules: dict[str, Path]) -> frozenset[str]:
    """The dotted names among ``modules`` that are packages (a folder with an ``__init__.py``)."""
    return frozenset(name for name, path in modules.items() if path.name == "__init__.py")


REAL_PACKAGES = packages_of(project_modules(ROOT, SOURCE_FOLDERS))


def part_of(module: str, packages: frozenset[str] = REAL_PACKAGES) -> str:
    """The part of docs/architecture.md's layer table a module belongs to, read from where it sits."""
    if is_leaf(module) or module.startswith("agentkit.records."):
        return "records"
    if is_cli(module):
        return "cli"
    for part in ("actions", "observers", "memory", "prompts", "transcripts", "models"):
        if module == f"agentkit.{part}" or module.startswith(f"agentkit.{part}."):
            return part
    if module.startswith("agentkit.envs."):
        sub = module.split(".")[2]
        if f"agentkit.envs.{sub}" in packages:  # a sub-package of envs/: a backend or a family's helpers
            return f"envs-shared:{sub}" if sub in FAMILIES else f"backend:{sub}"
    if module == "agentkit.envs" or module.startswith("agentkit.envs."):
        return "envs"  # the face: the modules directly in envs/ (base.py, registry.py, ...)
    return "app"  # the loop, the run (runs/), config, evaluations, reports, viewer, offline tools


# Which parts each part may import (besides itself), straight from docs/architecture.md's table.
_APP_MAY_IMPORT = {"records", "actions", "observers", "memory", "prompts", "envs", "transcripts", "models"}
MAY_IMPORT = {
    "records": set(),
    "actions": {"records"},
    "observers": {"records"},
    "memory": {"observers", "actions", "records"},
    "prompts": {"observers", "actions", "records"},
    "envs": {"actions", "observers", "records"},
    "transcripts": {"records", "observers"},
    "models": {"records", "prompts", "observers", "actions"},
    "app": _APP_MAY_IMPORT,
    "cli": _APP_MAY_IMPORT | {"app"},
}


def forbidden(importer: str, imported: str, packages: frozenset[str] = REAL_PACKAGES) -> str | None:
    """Why ``importer`` may not import ``imported``, or None when the table allows it."""
    src, dst = part_of(importer, packages), part_of(imported, packages)
    if (is_cli_command(imported) or imported == CLI_ENTRY) and importer not in (
        CLI_ENTRY,
        CLI_MAIN,
        imported,
    ):
        return (
            "only agentkit.cli (the entry) imports the CLI's command modules; they share code through"
            " the helpers agentkit/cli/_*.py"
        )
    if src == dst:
        return None
    if src.startswith("backend:"):
        if dst.startswith("backend:"):
            return f"{src} reaches into another backend ({dst}); share code through a family package"
        if dst.startswith("envs-shared:"):
            members = FAMILIES[dst.split(":", 1)[1]]
            if src.split(":", 1)[1] in members:
                return None
            return f"{src} is not of the family of {dst}"
        if dst in MAY_IMPORT["envs"] | {"envs"}:
            return None
        return f"a backend ({src}) must not import {dst} (the loop, run configuration, evaluations, models, transcripts)"
    if src.startswith("envs-shared:"):
        if dst in MAY_IMPORT["envs"] | {"envs"}:
            return None
        return (
            f"a family package ({src}) may import only actions, observers, records and envs.base, not {dst}"
        )
    if dst.startswith("envs-shared:") and src in ("app", "cli"):
        return None
    if importer.startswith("agentkit.evals.") and dst.startswith("backend:"):
        # An env's evaluation protocol (agentkit/evals/<env>/) uses that one backend's modules.
        if importer.split(".")[2] == dst.split(":", 1)[1]:
            return None
    if dst.startswith("backend:") or dst.startswith("envs-shared:"):
        if src == "envs" and dst.startswith("backend:"):
            return "envs' face (base, registry) reaches backends only by name through importlib"
        return f"{src} reaches a backend ({dst}) other than through envs/base.py and the registry"
    if dst in MAY_IMPORT[src]:
        return None
    return f"{src} must not import {dst} (imports point down docs/architecture.md's layer table)"


def crossings(root: Path, folders: dict[str, str] = SOURCE_FOLDERS) -> list[Crossing]:
    """Every import of the project that points the wrong way."""
    modules = project_modules(root, folders)
    known = set(modules)
    packages = packages_of(modules)
    found: dict[ImportLine, Crossing] = {}  # one entry per line and module, however many names it takes
    for name, path in modules.items():
        for line in imports_of(name, path, known):
            why = forbidden(line.importer, line.imported, packages)
            if why is not None:
                found.setdefault(line, Crossing(line, why))
    return list(found.values())


def test_no_import_points_the_wrong_way():
    found = [c for c in crossings(ROOT) if (c.where.importer, c.where.imported) not in ALLOWED]
    report = "\n".join(str(c).replace(str(ROOT) + "/", "") for c in found)
    assert not found, f"{len(found)} imports cross docs/architecture.md's layers:\n{report}"


def test_every_allowed_crossing_still_exists():
    """An allow-list entry whose import is gone is removed, so the list only shrinks."""
    present = {(c.where.importer, c.where.imported) for c in crossings(ROOT)}
    stale = [pair for pair in ALLOWED if pair not in present]
    assert not stale, f"remove these fixed entries from ALLOWED: {stale}"


def test_records_and_leaf_helpers_import_nothing_of_ours():
    modules = project_modules(ROOT, SOURCE_FOLDERS)
    leaves = sorted(name for name in modules if is_leaf(name))
    assert set(SHARED_TYPES) < set(leaves) and len(leaves) > len(SHARED_TYPES) + 1, leaves
    for name in leaves:
        assert imports_of(name, modules[name], set(modules)) == [], f"{name} must stay a leaf"


def test_no_script_in_the_packaged_data_folders():
    """Development scripts live outside the shipped package (scripts/, tests/support/), not beside its data."""
    data_folders = [
        ROOT / "prompts" / "templates",
        ROOT / "envs" / "arena" / "data",
        ROOT / "agentkit" / "presets",
        ROOT / "agentkit" / "viewer" / "static",
        ROOT / "agentkit" / "reports" / "data",
    ]
    scripts = [p.relative_to(ROOT).as_posix() for d in data_folders if d.is_dir() for p in d.rglob("*.py")]
    assert scripts == [], f"move these scripts out of the package's data folders: {scripts}"


def _write(root: Path, rel: str, text: str) -> None:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(textwrap.dedent(text), encoding="utf-8")


def test_the_check_fails_on_a_forbidden_import(tmp_path):
    """A synthetic tree with one import of each kind of crossing: each is found, with file and line."""
    for folder in (
        "agentkit",
        "agentkit/cli",
        "agentkit/leaves",
        "agentkit/runs",
        "actions",
        "envs",
        "envs/gridworld",
        "envs/arena",
        "envs/animalai_common",
        "transcripts",
        "memory",
    ):
        _write(tmp_path, f"{folder}/__init__.py", '"""A package."""\n')
    _write(tmp_path, "agentkit/records.py", '"""Leaf."""\n')
    _write(tmp_path, "agentkit/loop.py", '"""The loop."""\nfrom agentkit.envs import base\n')
    _write(tmp_path, "agentkit/config.py", '"""Config."""\n')
    _write(tmp_path, "envs/base.py", '"""Face."""\nfrom agentkit.actions import parser\n')
    _write(tmp_path, "actions/parser.py", '"""Parser."""\nfrom agentkit.records import X\n')
    _write(
        tmp_path,
        "envs/gridworld/harness.py",
        """\
        '''Reaches up, inside a function.'''
        def run():
            from agentkit.config import RunConfig
        """,
    )
    _write(
        tmp_path,
        "envs/arena/world.py",
        """\
        '''Reaches sideways only for types.'''
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from agentkit.envs.gridworld.harness import run
        from agentkit.envs.animalai_common import rules
        """,
    )
    _write(tmp_path, "envs/gridworld/rules.py", '"""Not of the family."""\nfrom ..animalai_common import x\n')
    _write(tmp_path, "transcripts/store.py", '"""Store."""\nimport agentkit.envs.arena.world\n')
    _write(tmp_path, "memory/window.py", '"""Memory."""\nfrom agentkit import loop\n')
    # A module of the leaf package reaching up (flagged), and one reading another leaf (the same part).
    _write(tmp_path, "agentkit/leaves/defaults.py", '"""Leaf."""\nfrom agentkit.config import X\n')
    _write(tmp_path, "agentkit/leaves/words.py", '"""Leaf."""\nfrom agentkit.leaves import defaults\n')
    _write(tmp_path, "agentkit/cli/eval.py", '"""Eval."""\nfrom agentkit.cli import main\n')
    _write(
        tmp_path,
        "agentkit/cli/__init__.py",
        """\
        '''Entry: imports every command module, which is allowed.'''
        from agentkit.cli.eval import register
        from agentkit.cli.fresh import register as register_fresh
        from agentkit.cli import play, task_list
        """,
    )
    # A command module named nowhere (it registers verbs), reached from a helper: flagged.
    _write(
        tmp_path,
        "agentkit/cli/fresh.py",
        '"""New verbs."""\nfrom agentkit.cli._common import out\ndef register(app):\n    pass\n',
    )
    _write(tmp_path, "agentkit/cli/_common.py", '"""Helper."""\nfrom agentkit.cli.fresh import register\n')
    # A module with a plain name is a command module even without register(), reached from a sibling
    # command: flagged.
    _write(tmp_path, "agentkit/cli/task_list.py", '"""Tasks."""\nfrom agentkit.cli._common import out\n')
    _write(tmp_path, "agentkit/cli/play.py", '"""Play."""\nfrom agentkit.cli import task_list\n')
    # The run reaching up into a helper of the command line: flagged (nothing outside agentkit/cli/ imports it).
    _write(
        tmp_path,
        "agentkit/runs/runner.py",
        '"""Runner."""\nfrom agentkit import loop\nfrom agentkit.cli._common import out\n',
    )
    _write(
        tmp_path,
        "agentkit/evals/gridworld/plan.py",
        """\
        '''An evaluation uses its own backend, not another one.'''
        from agentkit.envs.gridworld.catalogue import CATALOGUE
        from agentkit.envs.arena.world import World
        """,
    )
    _write(
        tmp_path,
        "agentkit/reports/sets.py",
        '"""Reads a family package."""\nfrom agentkit.envs.animalai_common import x\n',
    )

    found = {
        (c.where.path.relative_to(tmp_path).as_posix(), c.where.line, c.where.imported): c.why
        for c in crossings(tmp_path)
    }
    assert set(found) == {
        ("envs/gridworld/harness.py", 3, "agentkit.config"),
        ("envs/arena/world.py", 4, "agentkit.envs.gridworld.harness"),
        ("envs/gridworld/rules.py", 2, "agentkit.envs.animalai_common"),
        ("transcripts/store.py", 2, "agentkit.envs.arena.world"),
        ("memory/window.py", 2, "agentkit.loop"),
        ("agentkit/leaves/defaults.py", 2, "agentkit.config"),
        ("agentkit/cli/eval.py", 2, "agentkit.cli"),
        ("agentkit/cli/_common.py", 2, "agentkit.cli.fresh"),
        ("agentkit/cli/play.py", 2, "agentkit.cli.task_list"),
        ("agentkit/runs/runner.py", 3, "agentkit.cli._common"),
        ("agentkit/evals/gridworld/plan.py", 3, "agentkit.envs.arena.world"),
    }
    assert "another backend" in found[("envs/arena/world.py", 4, "agentkit.envs.gridworld.harness")]
    assert "must not import app" in found[("envs/gridworld/harness.py", 3, "agentkit.config")]
    assert "records must not import app" in found[("agentkit/leaves/defaults.py", 2, "agentkit.config")]
    assert "app must not import cli" in found[("agentkit/runs/runner.py", 3, "agentkit.cli._common")]
    assert "only agentkit.cli" in found[("agentkit/cli/play.py", 2, "agentkit.cli.task_list")]


def test_every_cli_module_is_a_command_or_a_helper_that_registers_nothing():
    """The CLI rule covers every module of the real agentkit/cli/, those of today and any new one."""
    modules = project_modules(ROOT, SOURCE_FOLDERS)
    cli = {name: path for name, path in modules.items() if is_cli(name) and name != CLI_ENTRY}
    helpers = {name for name in cli if not is_cli_command(name)}
    commands = set(cli) - helpers
    assert helpers and all(name.rpartition(".")[2].startswith("_") for name in helpers)
    registering = {name for name, path in cli.items() if registers_commands(path)}
    assert not registering & helpers, f"a helper registers commands: {registering & helpers}"
    entry_imports = {i.imported for i in imports_of(CLI_ENTRY, modules[CLI_ENTRY], set(modules))}
    assert registering and registering <= entry_imports, "agentkit.cli registers every command module"
    assert commands <= entry_imports, f"command modules the entry never imports: {commands - entry_imports}"
    assert registering | {"agentkit.cli.db", "agentkit.cli.play", "agentkit.cli.tasks"} <= commands
    assert "only agentkit.cli" in (forbidden("agentkit.runs.runner", "agentkit.cli.play") or "")
    assert "only agentkit.cli" in (forbidden("agentkit.cli.eval", "agentkit.cli.db") or "")
    assert "must not import cli" in (forbidden("agentkit.runs.runner", "agentkit.cli._stops") or "")
    assert forbidden("agentkit.cli.eval", "agentkit.cli._stops") is None
    assert forbidden("agentkit.cli", "agentkit.cli.tasks") is None
    assert forbidden("agentkit.cli.eval", "agentkit.runs.runner") is None


def test_the_real_tree_with_one_added_forbidden_import_fails(tmp_path):
    """Copy observers/ (a bottom layer) and add one upward import: the check names it."""
    folders = {"agentkit.observers": "observers"}
    for path in (ROOT / "observers").rglob("*.py"):
        if "__pycache__" not in path.parts:
            _write(tmp_path, f"observers/{path.relative_to(ROOT / 'observers').as_posix()}", path.read_text())
    assert crossings(tmp_path, folders) == []
    _write(
        tmp_path, "observers/leak.py", '"""Leak."""\nfrom agentkit.transcripts.store import TranscriptStore\n'
    )
    (found,) = crossings(tmp_path, folders)
    assert found.where.line == 2 and found.where.path.name == "leak.py"
    assert "observers must not import transcripts" in str(found)


def test_the_animalai_backend_reaches_the_arena_only_through_the_family_package():
    """The allow-list is empty: the Unity stand-in lives with the arena, the link's protocol in the family."""
    assert ALLOWED == {}
    assert "another backend" in forbidden("agentkit.envs.animalai.connector", "agentkit.envs.arena.backend")
    assert forbidden("agentkit.envs.arena.unity_standin", "agentkit.envs.animalai_common.protocol") is None
    assert forbidden("agentkit.envs.animalai.connector", "agentkit.envs.animalai_common.wire_read") is None


def test_the_top_level_of_agentkit_keeps_at_most_15_modules():
    """agentkit/ holds the shared types and public entries; every other module sits in its part's package."""
    top = sorted(p.stem for p in (ROOT / "agentkit").glob("*.py") if p.name != "__init__.py")
    assert len(top) <= 15, (
        f"agentkit/ has {len(top)} modules; move the ones of a part into its package: {top}"
    )
