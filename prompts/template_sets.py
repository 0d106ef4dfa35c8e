"""The packaged template sets: what each is for, which backend it was written for, what it uses.

Why: a researcher adapting a prompt starts from a packaged set (``agentkit templates copy``) and
needs to know which variables a template can use; and a set written for one backend renders
nonsense, or fails mid-run, on another (``--templates gridworld`` on aai-arena was accepted
silently). Each set folder holds a small ``set.json`` manifest, ``{"backend": ..., "description":
...}``; the variables are read from the templates themselves (Jinja's undeclared names). A copy
(``agentkit templates copy``) keeps the manifest, so a copied folder passed to a run of another
backend is refused as the packaged set is.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
from jinja2 import meta

from agentkit.prompts.renderer import EXAMPLES_NAME, TEMPLATE_NAMES, TemplateError

if TYPE_CHECKING:  # importlib.resources.abc is Python 3.11+; importlib.abc has it from 3.10 on
    from importlib.abc import Traversable

MANIFEST = "set.json"
_COPIED_SUFFIXES = (".j2", ".json", ".png", ".jpg", ".jpeg")  # what a set is made of (not its helper scripts)


@dataclass(frozen=True)
class TemplateSet:
    name: str
    backend: str
    description: str
    files: tuple[str, ...]  # the files a copy gets, templates first


def _root() -> Traversable:
    return resources.files("agentkit.prompts").joinpath("templates")


def set_names() -> list[str]:
    """The packaged sets, sorted."""
    return sorted(
        entry.name for entry in _root().iterdir() if entry.is_dir() and entry.joinpath(MANIFEST).is_file()
    )


def get_set(name: str) -> TemplateSet:
    """The packaged set ``name``; ``TemplateError`` naming the known ones otherwise."""
    folder = _root().joinpath(name)
    if not name.replace("-", "").replace("_", "").isalnum() or not folder.joinpath(MANIFEST).is_file():
        raise TemplateError(f"no packaged template set {name!r} (sets: {', '.join(set_names())})")
    try:
        manifest = json.loads(folder.joinpath(MANIFEST).read_text(encoding="utf-8"))
        backend, description = str(manifest["backend"]), str(manifest.get("description", ""))
    except (ValueError, KeyError, TypeError) as exc:
        raise TemplateError(f"template set {name!r}: {MANIFEST} is malformed ({exc})") from None
    names = sorted(
        e.name
        for e in folder.iterdir()
        if e.is_file() and e.name != MANIFEST and e.name.lower().endswith(_COPIED_SUFFIXES)
    )
    ordered = [n for n in TEMPLATE_NAMES if n in names] + [n for n in names if n not in TEMPLATE_NAMES]
    return TemplateSet(name, backend, description, tuple(ordered))


def read_file(name: str, file: str) -> str:
    """The text of one template (or ``examples.json``) of a packaged set."""
    template_set = get_set(name)
    if file not in template_set.files or not file.endswith((".j2", ".json")):
        texts = [f for f in template_set.files if f.endswith((".j2", ".json"))]
        raise TemplateError(
            f"template set {name!r} has no text file {file!r} (its files: {', '.join(texts)})"
        )
    return _root().joinpath(name).joinpath(file).read_text(encoding="utf-8")


def template_variables(source: str) -> list[str]:
    """The variables a Jinja template reads from its context (the names it does not set itself), sorted."""
    try:
        return sorted(meta.find_undeclared_variables(jinja2.Environment().parse(source)))
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"line {exc.lineno}: {exc.message}") from None


def set_variables(name: str) -> dict[str, list[str]]:
    """Per template of a packaged set, the variables it uses."""
    return {
        file: template_variables(read_file(name, file))
        for file in get_set(name).files
        if file.endswith(".j2")
    }


def check_for_backend(name: str, default_set: str) -> None:
    """Refuse a packaged set written for another backend than the one whose own set is ``default_set``."""
    wanted, own = get_set(name).backend, get_set(default_set).backend
    if wanted != own:
        raise TemplateError(
            f"--templates {name}: this template set is for the {wanted} backend, not {own} "
            f"(sets for {own}: {', '.join(n for n in set_names() if get_set(n).backend == own)})"
        )


def check_folder_for_backend(folder: Path, default_set: str) -> None:
    """Refuse a template folder whose ``set.json`` (kept by ``copy_set``) names another backend than
    the one whose own set is ``default_set``; a folder without one is the user's and is not judged."""
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return
    try:
        wanted = str(json.loads(manifest.read_text(encoding="utf-8"))["backend"])
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise TemplateError(f"--templates {folder}: {MANIFEST} is malformed ({exc})") from None
    own = get_set(default_set).backend
    if wanted != own:
        raise TemplateError(
            f"--templates {folder}: its {MANIFEST} says these templates are for the {wanted} backend, "
            f"not {own} (start from a set for {own}: agentkit templates copy {default_set} DIR)"
        )


def copy_set(name: str, target: Path, force: bool = False) -> list[Path]:
    """Copy a packaged set's files and its ``set.json`` into ``target`` (made if missing), for editing
    and ``--templates``. An existing file is never overwritten unless ``force``."""
    template_set = get_set(name)
    if target.exists() and not target.is_dir():
        raise TemplateError(f"{target} is a file, not a folder")
    clashes = [f for f in (*template_set.files, MANIFEST) if (target / f).exists()]
    if clashes and not force:
        raise TemplateError(f"{target} already has {', '.join(clashes)} (--force overwrites)")
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for file in template_set.files:
        with resources.as_file(_root().joinpath(name).joinpath(file)) as source:
            shutil.copyfile(source, target / file)
        written.append(target / file)
    with resources.as_file(_root().joinpath(name).joinpath(MANIFEST)) as source:
        shutil.copyfile(source, target / MANIFEST)  # the backend it was written for, checked on use
    return written


__all__ = [
    "EXAMPLES_NAME",
    "MANIFEST",
    "TemplateSet",
    "check_folder_for_backend",
    "check_for_backend",
    "copy_set",
    "get_set",
    "read_file",
    "set_names",
    "set_variables",
    "template_variables",
]
