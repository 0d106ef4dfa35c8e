"""Each backend's light task catalogue (what `agentkit tasks ENV` lists) matches the backend's own lists.

Why: `agentkit tasks ENV` reads the catalogue instead of importing the backend (its simulator and
numpy), and for gridworld and trifinger the catalogue is a generated file; these tests fail when a
backend's tasks or suites change and the catalogue does not (rewrite it with
scripts/write_task_catalogues.py).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from agentkit.envs import registry
from agentkit.envs.registry import available_backends, catalogue_from_backend, task_catalogue
from agentkit.testing.cli_runner import cli_env


@pytest.mark.parametrize("env", available_backends())
def test_the_catalogue_lists_what_the_backend_offers(env):
    light = task_catalogue(env)
    assert light.tasks, f"{env}: no tasks listed"
    assert light == catalogue_from_backend(env), (
        f"{env}: the task catalogue no longer matches the backend; run scripts/write_task_catalogues.py"
    )


def test_every_backend_has_a_light_catalogue():
    """A backend without one would be imported by `agentkit tasks ENV` (the registry's fallback)."""
    assert set(registry._CATALOGUES) == set(available_backends())


def test_an_unknown_env_is_one_line():
    with pytest.raises(
        ValueError, match=r"^unknown env 'nope'; known: aai-arena, animalai, gridworld, trifinger$"
    ):
        task_catalogue("nope")


def test_an_unreadable_catalogue_file_names_it(monkeypatch):
    monkeypatch.setitem(registry._CATALOGUES, "gridworld", "file:gridworld/no_such_catalogue.json")
    with pytest.raises(
        ValueError, match=r"^envs/gridworld/no_such_catalogue.json: unreadable task catalogue"
    ):
        task_catalogue("gridworld")


def test_the_writer_writes_the_packaged_files():
    """scripts/write_task_catalogues.py's text is the packaged file's, byte for byte."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location(
        "write_task_catalogues", root / "scripts" / "write_task_catalogues.py"
    )
    writer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(writer)
    for env in available_backends():
        path = registry.catalogue_file(env)
        if path is not None:
            assert (root / "envs" / path).read_text(encoding="utf-8") == writer.catalogue_text(env), path


def test_a_backend_whose_extra_is_missing_gets_the_install_hint(monkeypatch):
    """Listing does not import the backend, yet still says which extra it needs (as get_backend does)."""
    monkeypatch.setitem(sys.modules, "trifinger_simulation", None)
    with pytest.raises(ValueError, match=r"pip install 'agentkit-embodied\[trifinger\]'$"):
        task_catalogue("trifinger")


@pytest.mark.parametrize("env", available_backends())
def test_the_modules_checked_are_ones_the_backend_imports(env, tmp_path):
    code = (
        "import sys; from agentkit.envs.registry import _EXTRA_MODULES, get_backend; "
        f"get_backend({env!r}); print(','.join(m for m in _EXTRA_MODULES[{env!r}] if m not in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=cli_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert registry._EXTRA_MODULES[env] and done.stdout.strip() == "", (
        f"{env} does not import {done.stdout.strip()}"
    )
