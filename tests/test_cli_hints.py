"""The CLI's small courtesies: install hints printed as written, and whole ids in `transcripts list`.

Why: rich took the extra of ``pip install 'agentkit-embodied[arena]'`` for markup and printed
``pip install 'agentkit-embodied'``, and the listing cut ids to "3269…" at 80 columns, so neither
could be copied into the next command.
"""

from __future__ import annotations

import subprocess
import sys

from agentkit.testing.cli_runner import cli_env, run_cli, run_json

MISSING = "import sys; sys.modules[{module!r}] = None; from agentkit.cli import main; sys.argv = ['agentkit', *{args!r}]; main()"


def _without(module: str, args: list[str], cwd) -> subprocess.CompletedProcess:
    """The real command in a Python where ``module`` cannot be imported (an extra not installed)."""
    return subprocess.run(
        [sys.executable, "-c", MISSING.format(module=module, args=args)],
        cwd=cwd,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_install_hint_names_the_extra_with_its_brackets(tmp_path):
    proc = _without("yaml", ["tasks", "aai-arena"], tmp_path)
    assert proc.returncode == 2
    assert "pip install 'agentkit-embodied[arena]'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = _without("minigrid", ["tasks", "gridworld"], tmp_path)
    assert "pip install 'agentkit-embodied[gridworld]'" in proc.stderr


def test_transcripts_list_shows_whole_ids_at_80_columns(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = run_json(
        ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--episodes", "2", "--db", db],
        tmp_path,
    )
    proc = run_cli(["transcripts", "list", "--db", db], tmp_path, env=cli_env(COLUMNS="80"))
    assert "…" not in proc.stdout
    assert data["run_id"] in proc.stdout
    for episode in data["episodes"]:
        assert episode["episode_id"] in proc.stdout
