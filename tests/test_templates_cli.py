"""`agentkit templates list|show|copy`, the documented variables, and sets refused on the wrong backend.

Why: nothing listed or copied the packaged templates, their variables were undocumented, and
`--templates gridworld` on aai-arena was accepted silently (a prompt about another world).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from agentkit.prompts.template_sets import set_names, set_variables
from agentkit.testing.cli_runner import run_cli, run_json

DOCS = Path(__file__).resolve().parents[1] / "docs" / "templates.md"


def _packaged(name: str, file: str) -> str:
    return resources.files("agentkit.prompts").joinpath("templates", name, file).read_text(encoding="utf-8")


def test_list_and_show_the_packaged_sets(tmp_path):
    sets = {s["name"]: s for s in run_json(["templates", "list"], tmp_path)}
    assert {
        "aai-arena",
        "aai-arena-incontext",
        "gridworld",
        "gridworld-react",
        "gridworld-reasoner",
        "trifinger",
    } <= set(sets)
    assert sets["aai-arena-incontext"]["backend"] == "aai-arena"
    assert "examples.json" in sets["aai-arena-incontext"]["files"]

    shown = run_json(["templates", "show", "aai-arena"], tmp_path)
    assert shown["variables"]["system.j2"] == [
        "action_format",
        "commands",
        "control",
        "has_images",
        "max_scripts",
        "protocol",
        "time_limit",
    ]
    assert {"obs", "feedback", "turn"} <= set(shown["variables"]["turn.j2"])

    proc = run_cli(["templates", "show", "aai-arena", "turn.j2"], tmp_path)
    assert proc.stdout.rstrip("\n") == _packaged("aai-arena", "turn.j2").rstrip("\n")
    assert "variables of aai-arena/turn.j2: control, feedback, has_images" in proc.stderr

    proc = run_cli(["templates", "show", "no-such-set"], tmp_path, check=False)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "no packaged template set 'no-such-set'" in proc.stderr


def test_copy_gives_a_folder_a_run_uses_and_never_overwrites(tmp_path):
    target = tmp_path / "mine"
    run_cli(["templates", "copy", "gridworld", str(target)], tmp_path)
    assert (target / "system.j2").read_text(encoding="utf-8") == _packaged("gridworld", "system.j2")
    (target / "system.j2").write_text(
        "My own instructions. {{ max_scripts }} answers at most.", encoding="utf-8"
    )
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = run_json(
        [
            "run",
            "--env",
            "gridworld",
            "--task",
            "BabyAI-GoToLocal-v0",
            "--templates",
            str(target),
            "--db",
            db,
        ],
        tmp_path,
    )
    shown = run_json(
        ["transcripts", "show", data["episodes"][0]["episode_id"], "--messages", "--db", db], tmp_path
    )
    assert "My own instructions." in json.dumps(shown)

    proc = run_cli(["templates", "copy", "gridworld", str(target)], tmp_path, check=False)
    assert proc.returncode == 2 and "already has system.j2" in proc.stderr and "--force" in proc.stderr
    assert "My own instructions." in (target / "system.j2").read_text(encoding="utf-8")


def test_a_set_of_another_backend_is_refused_with_one_line(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    proc = run_cli(
        ["run", "--env", "aai-arena", "--task", "01-04-03", "--templates", "gridworld", "--db", db],
        tmp_path,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: --templates gridworld: this template set is for the gridworld backend, not aai-arena "
        "(sets for aai-arena: aai-arena, aai-arena-incontext)"
    ]
    # a variant written for the same backend is still accepted
    data = run_json(
        [
            "run",
            "--env",
            "gridworld",
            "--task",
            "BabyAI-GoToLocal-v0",
            "--templates",
            "gridworld-react",
            "--db",
            db,
        ],
        tmp_path,
    )
    assert data["episodes"][0]["end_reason"]


def test_a_copied_set_keeps_its_backend_and_is_refused_on_another(tmp_path):
    """A copy of the gridworld set passed as a folder to an aai-arena run was accepted silently."""
    target = tmp_path / "grid-copy"
    run_cli(["templates", "copy", "gridworld", str(target)], tmp_path)
    assert json.loads((target / "set.json").read_text(encoding="utf-8"))["backend"] == "gridworld"
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    proc = run_cli(
        ["run", "--env", "aai-arena", "--task", "01-04-03", "--templates", str(target), "--db", db],
        tmp_path,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: --templates {target}: its set.json says these templates are for the gridworld backend, "
        "not aai-arena (start from a set for aai-arena: agentkit templates copy aai-arena DIR)"
    ]
    assert (
        not (tmp_path / "runs.db").exists() or run_json(["transcripts", "list", "--db", db], tmp_path) == []
    )
    # a folder of the user's own (no set.json) is not judged
    (target / "set.json").unlink()
    data = run_json(
        ["run", "--env", "aai-arena", "--task", "01-04-03", "--templates", str(target), "--db", db], tmp_path
    )
    assert data["episodes"][0]["end_reason"]


def test_every_variable_a_packaged_template_uses_is_documented():
    docs = DOCS.read_text(encoding="utf-8")
    for name in set_names():
        assert f"| {name} |" in docs, name
        for template, variables in set_variables(name).items():
            for variable in variables:
                assert f"| `{variable}` |" in docs, (
                    f"{name}/{template}: {variable} is not in docs/templates.md"
                )
