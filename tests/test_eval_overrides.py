"""`agentkit eval` narrowed from the command line (--tasks, --trials, --limit) and presets by name.

The overrides must reach the stored run config (what was actually played), and a preset shipped in
the package must be found by its name from any folder.
"""

from __future__ import annotations

import fnmatch
import json
import subprocess
import sys

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]
from pathlib import Path

import pytest

from agentkit.runs.experiment import Experiment, ExperimentError, load_experiment
from agentkit.runs.preset_files import experiment_path, presets
from agentkit.transcripts import TranscriptStore

REPO = Path(__file__).resolve().parents[1]
AGENTKIT = Path(sys.executable).with_name("agentkit")


def _agentkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AGENTKIT), *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_eval_preset_by_name_with_tasks_trials_and_limit_records_what_was_played(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'e.db'}"
    done = _agentkit(
        "eval",
        "llm-aai-exp1",
        "--tasks",
        "02-02-01,aai-children40",
        "--limit",
        "1",
        "--trials",
        "2",
        "--db",
        db,
        "--json",
        cwd=tmp_path,
    )  # another folder: the preset comes from the package
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert [(e["task"], e["trial"]) for e in document["episodes"]] == [("02-02-01", 0), ("02-02-01", 1)]
    store = TranscriptStore(db)
    try:
        config = store.get_run(document["run_id"]).config
    finally:
        store.close()
    assert config["tasks"] == ["02-02-01"] and config["episodes"] == 2
    assert config["max_scripts"] == 30 and config["observer"]["max_side"] == 512  # the rest is the preset's


def test_a_preset_given_tasks_outside_its_set_is_refused_in_one_line(tmp_path: Path) -> None:
    """`eval llm-aai-exp1 --tasks aai-level-01` once swapped the children's 40 tasks for 90 others
    and the report showed "–" everywhere (issue 30 item 4): a preset is narrowed, never swapped."""
    db = tmp_path / "e.db"
    done = _agentkit(
        "eval", "llm-aai-exp1", "--tasks", "aai-level-01,02-02-01", "--db", f"sqlite:///{db}", cwd=tmp_path
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        "error: --tasks: 01-01-01, 01-01-02, 01-01-03, 01-02-01, 01-02-02 and 81 more are not among the "
        "40 tasks of preset llm-aai-exp1 (suite aai-children40); --tasks narrows a preset to some of its "
        "tasks; for others use `agentkit run --task` or an experiment file of your own"
    )
    one = _agentkit(
        "eval", "llm-aai-exp2", "--tasks", "03-09-01,09-03-01", "--db", f"sqlite:///{db}", cwd=tmp_path
    )
    assert (
        one.returncode == 2
        and "--tasks: 09-03-01 is not among the 12 tasks of preset llm-aai-exp2 (its task list)" in one.stderr
    )
    assert len(one.stderr.strip().splitlines()) == 1 and not db.exists()  # refused before any database
    # a file of one's own is the user's to change: --tasks replaces its tasks, as before
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        "name: mine\nenv: gridworld\ntasks: [BabyAI-GoToLocal-v0]\nmodel: reference\n", encoding="utf-8"
    )
    other = _agentkit(
        "eval", str(mine), "--tasks", "BabyAI-PickupLoc-v0", "--db", f"sqlite:///{db}", "--json", cwd=tmp_path
    )
    assert other.returncode == 0, other.stderr
    assert json.loads(other.stdout)["tasks"] == ["BabyAI-PickupLoc-v0"]


def test_list_presets_names_every_packaged_preset(tmp_path: Path) -> None:
    done = _agentkit("eval", "--list-presets", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = [p["name"] for p in json.loads(done.stdout)["presets"]]
    assert names == ["causalworld", "llm-aai-exp1", "llm-aai-exp2"]
    text = _agentkit("eval", "--list-presets", cwd=tmp_path).stdout
    assert "llm-aai-exp1  LLM-AAI Experiment 1" in text


def test_an_unknown_experiment_is_one_line_naming_the_presets(tmp_path: Path) -> None:
    done = _agentkit("eval", "llm-aai-exp9", "--db", f"sqlite:///{tmp_path / 'e.db'}", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: llm-aai-exp9: no such experiment file, and no preset of that name "
        "(presets: causalworld, llm-aai-exp1, llm-aai-exp2)"
    )


def test_narrowing_a_resumed_run_is_refused(tmp_path: Path) -> None:
    done = _agentkit(
        "eval", "--resume", "abc", "--trials", "2", "--db", f"sqlite:///{tmp_path / 'e.db'}", cwd=tmp_path
    )
    assert done.returncode == 2 and done.stderr.strip() == (
        "error: --trials: a resumed run plays the episodes it was started with"
    )


def test_overrides_replace_the_files_tasks_and_trials() -> None:
    path = experiment_path("llm-aai-exp2")
    _, (config,) = load_experiment(
        path, {"tasks": ["03-09-01", "aai-level-01", "01-04-03"], "episodes": 5, "limit": 3}
    )
    assert config.tasks == ["03-09-01", "01-01-01", "01-01-02"] and config.episodes == 5
    assert config.templates_dir == "aai-arena-incontext"  # the file's prompt is kept
    _, (whole,) = load_experiment(path)
    assert len(whole.tasks) == 12 and whole.episodes == 3


def test_a_catalogue_refuses_tasks_and_trials_and_limits_its_plan() -> None:
    experiment = Experiment.model_validate({"env": "gridworld", "catalogue": {"seeds_per_pair": 1}})
    with pytest.raises(ExperimentError, match="--trials"):
        experiment.run_configs(None, {"episodes": 2})
    with pytest.raises(ExperimentError, match="--tasks"):
        experiment.run_configs(None, {"tasks": ["BabyAI-GoToLocal-v0"]})
    (config,) = experiment.run_configs(None, {"limit": 4})
    assert len(config.plan) == 4 and config.tasks == list(dict.fromkeys(t for t, _ in config.plan))


def test_presets_are_package_data() -> None:
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "agentkit"
    ]
    files = [p.path.relative_to(REPO / "agentkit").as_posix() for p in presets()]
    assert files and all(any(fnmatch.fnmatch(f, pattern) for pattern in patterns) for f in files)
    assert not (REPO / "presets").exists()  # one copy, in the package


def test_the_python_api_finds_a_preset_by_name_and_narrows_it(tmp_path: Path) -> None:
    import agentkit

    result = agentkit.evaluate(
        "llm-aai-exp1", db=tmp_path / "api.db", tasks=["01-04-03"], episodes=1, max_scripts=2
    )
    (summary,) = result.runs
    assert result.name == "llm-aai-exp1" and [e.task for e in summary.episodes] == ["01-04-03"]
