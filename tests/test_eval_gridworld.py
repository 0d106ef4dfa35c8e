"""`agentkit eval --env gridworld`: the catalogue as one run, scored as a leaderboard with ONS."""

from __future__ import annotations

from agentkit.runs.experiment import load_experiment
from agentkit.testing.cli_runner import run_json


def test_catalogue_eval_of_the_reference_agent_prints_the_leaderboard(tmp_path):
    figure = tmp_path / "ons.png"
    data = run_json(
        [
            "eval",
            "--env",
            "gridworld",
            "--difficulties",
            "easy",
            "--categories",
            "navigation,memory",
            "--seeds-per-pair",
            "1",
            "--db",
            f"sqlite:///{tmp_path / 'g.db'}",
            "--figure",
            str(figure),
        ],
        tmp_path,
    )
    assert {"run_id", "overall_ons", "overall_ci", "categories"} <= set(data)
    assert set(data["categories"]) == {"navigation", "memory"}
    assert data["overall_ons"] >= 0.9 and data["model"] == "reference"
    assert all(e["task"].startswith("gridworld/") and e["task"].endswith("-easy") for e in data["episodes"])
    assert (
        figure.stat().st_size > 1000 and (tmp_path / ".agentkit").is_dir()
    )  # baselines cached beside the run


def test_experiment_file_with_a_catalogue_block_becomes_an_explicit_seed_plan(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text(
        "env: gridworld\nmodel: openai/x\ncatalogue:\n  difficulties: [easy, hard]\n"
        "  categories: [planning]\n  seeds_per_pair: 3\n  modality: ascii\n  harness: window-2\n"
    )
    _, (config,) = load_experiment(path)
    assert config.plan and len(config.plan) == 3 * len(config.tasks)
    assert all(task.endswith(("-easy", "-hard")) for task, _ in config.plan)
    assert config.memory == "window:2" and config.observer.views == ["ascii"]
    again = load_experiment(path)[1][0]
    assert again.plan == config.plan  # hashed seeds: the same episodes every time
    assert config.evaluation["seeds_per_pair"] == 3
    bad = tmp_path / "bad.yaml"
    bad.write_text("env: aai-arena\ncatalogue: {}\n")
    try:
        load_experiment(bad)
    except ValueError as exc:
        assert "has no task catalogue" in str(exc) and str(bad) in str(exc)
    else:
        raise AssertionError("a catalogue block on an env without one must be refused")
