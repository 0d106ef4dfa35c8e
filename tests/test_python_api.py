"""The Python API: agentkit.run / evaluate / open_store from a notebook or script, typed results,
the same store the CLI writes, and a light `import agentkit`."""

from __future__ import annotations

import subprocess
import sys

import pytest

import agentkit
from agentkit.records import EpisodeResult
from agentkit.runs.runner import RunSummary


def test_run_returns_a_summary_with_the_episode_and_its_pass_and_the_store_lists_it(tmp_path, capsys):
    db = tmp_path / "runs.db"
    summary = agentkit.run(env="aai-arena", tasks=["01-04-03"], db=db)
    assert isinstance(summary, RunSummary)
    [episode] = summary.episodes
    assert isinstance(episode, EpisodeResult)
    assert episode.task == "01-04-03" and episode.metrics["pass"] is True and summary.success_rate == 1.0
    assert capsys.readouterr().out == ""  # nothing printed into the notebook's cell
    with agentkit.open_store(db, read_only=True) as store:
        assert [r.id for r in store.list_runs()] == [summary.run_id]
        [stored] = store.list_episodes(run_id=summary.run_id)
        assert stored.id == episode.episode_id and stored.task == "01-04-03" and stored.success is True


def test_run_takes_backend_options_and_refuses_unknown_ones(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    summary = agentkit.run("aai-arena", "01-04-03", db=db, aai_version="4.1.0", max_scripts=30)
    assert summary.config.backend_options["aai_version"] == "4.1.0"
    assert summary.episodes[0].metrics["aai_version"] == "4.1.0"
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        agentkit.run("aai-arena", "01-04-03", db=db, colour="red")
    with pytest.raises(ValueError, match="invalid option max_scripts"):
        agentkit.run("aai-arena", "01-04-03", db=db, max_scripts=0)
    with pytest.raises(ValueError, match="name tasks or a suite"):
        agentkit.run("aai-arena", db=db)


def test_evaluate_takes_an_experiment_dict_or_file(tmp_path):
    db = tmp_path / "runs.db"
    result = agentkit.evaluate({"name": "two", "env": "aai-arena", "tasks": ["01-04-03", "01-01-01"]}, db=db)
    assert result.name == "two"
    [run] = result.runs
    assert [e.task for e in run.episodes] == ["01-04-03", "01-01-01"]
    assert all(e.metrics["pass"] for e in run.episodes)
    path = tmp_path / "exp.yaml"
    path.write_text("name: file\nenv: aai-arena\ntasks: [01-04-03]\ntrials: 2\n")
    again = agentkit.evaluate(path, db=db)
    assert again.name == "file" and len(again.runs[0].episodes) == 2
    with agentkit.open_store(db) as store:
        assert {r.id for r in store.list_runs()} == {run.run_id, again.runs[0].run_id}
    with pytest.raises(ValueError, match="experiment: unknown field 'colour'"):
        agentkit.evaluate({"env": "aai-arena", "tasks": ["01-04-03"], "colour": "red"}, db=db)


def test_import_agentkit_stays_light():
    code = (
        "import sys, agentkit; heavy = [m for m in ('agentkit.api', 'agentkit.runs.runner', 'sqlalchemy', 'litellm', "
        "'pydantic', 'typer') if m in sys.modules]; print(heavy); print(callable(agentkit.run))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "True"
