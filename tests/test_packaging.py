"""The distribution installs one import name, `agentkit`; the repo's folders are its sub-packages."""

from __future__ import annotations

import importlib
import importlib.metadata as md
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PARTS = ["actions", "prompts", "observers", "memory", "envs", "transcripts"]


def test_parts_import_under_agentkit_from_the_repo_folders():
    for part in PARTS:
        module = importlib.import_module(f"agentkit.{part}")
        assert Path(module.__file__).resolve().parent == REPO / part


def test_distribution_declares_only_agentkit_as_top_level():
    dist = md.distribution("agentkit-embodied")
    assert (dist.read_text("top_level.txt") or "").split() == ["agentkit"]
    installed = set()
    for f in dist.files or []:
        first = f.parts[0]
        if first.endswith((".dist-info", ".egg-info")) or first == ".." or first.startswith("__editable__"):
            continue
        installed.add(first.split(".")[0])
    assert installed <= {"agentkit", "__pycache__"}, f"bare top-level modules installed: {installed}"
    assert dist.entry_points.select(group="console_scripts", name="agentkit")


def test_bare_folder_names_do_not_resolve_to_this_project():
    import importlib.util

    for part in ("actions", "envs", "memory"):
        spec = importlib.util.find_spec(part)
        if spec is not None and spec.origin:
            assert not Path(spec.origin).resolve().is_relative_to(REPO), f"bare {part!r} comes from this repo"
