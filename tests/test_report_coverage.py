"""`report aai` says what it covers on the figure itself, and never sets a partial run's bar beside
the children's over other tasks (issue 30 item 4): a run of 4 of the 40 tasks once got an "all"
bar of 1.00 beside the children's 0.56 over all 40, with only a stderr line saying so."""

from __future__ import annotations

import pytest

from agentkit.records import EndReason, EpisodeResult
from agentkit.reports.aai_report import CHILDREN, OLYMPICS, build_report
from agentkit.reports.baselines import shipped_baselines
from agentkit.reports.figure import bars, figure_of, render_html
from agentkit.reports.proportions import Proportion
from agentkit.reports.run_results import RunResults
from agentkit.reports.task_sets import resolve_task_set
from agentkit.testing.cli_runner import run_cli
from agentkit.transcripts import TranscriptStore

CHILDREN_40 = resolve_task_set("aai-children40")
PLAYED = ["01-04-03", "01-06-02", "03-09-01", "03-11-01"]  # two tasks of level 1, two of level 3


def _run(run_id: str, tasks: list[str]) -> RunResults:
    return RunResults(
        run_id=run_id, model="reference", env="aai-arena", by_task={t: Proportion(1, 1) for t in tasks}
    )


def test_a_partial_run_is_compared_over_its_tasks_and_the_figure_says_so():
    report = build_report(shipped_baselines(), CHILDREN_40, [_run("r4", PLAYED)], task_set="aai-children40")
    assert report.tasks == PLAYED and report.levels == [1, 3]
    title = figure_of(report).axes[0].get_title()
    assert title.startswith("Animal-AI Testbed, aai-children40: 4 of 40 tasks; levels 1, 3\n")
    assert "the other 36 are left out of every column, baselines included." in " ".join(title.split())
    # the "all" bars: every column over the same 4 tasks (children: 59 x 4 pairs, entrants 10 x 4)
    children = shipped_baselines().children_by_task()
    expected = sum((children[t] for t in PLAYED), Proportion(0, 0))
    cells = report.cells(report.tasks)
    assert (cells[CHILDREN].passed, cells[CHILDREN].n) == (expected.passed, expected.n) == (198, 236)
    assert cells[OLYMPICS].n == 40 and cells["r4"].n == 4
    all_bars = [row[-1] for row in bars(report)]
    assert [b.text.split("/")[1] for b in all_bars] == ["236", "40", "4"]
    assert all_bars[0].p == pytest.approx(198 / 236) and all_bars[-1].p == 1.0
    page = render_html(report, b"")
    assert "<h1>Animal-AI comparison: aai-children40 (4 of 40 tasks; levels 1, 3)</h1>" in page
    assert "that every run played; the other 36 are left out" in page
    coverage = report.to_json()["coverage"]
    assert coverage["compared"] == 4 and coverage["left_out"] == [t for t in CHILDREN_40 if t not in PLAYED]


def test_a_whole_run_keeps_every_task_and_says_how_many():
    report = build_report(
        shipped_baselines(), CHILDREN_40, [_run("all", CHILDREN_40)], task_set="aai-children40"
    )
    assert report.tasks == CHILDREN_40
    assert figure_of(report).axes[0].get_title() == "Animal-AI Testbed, aai-children40: 40 tasks; levels 1-10"
    # two runs: the tasks both played
    both = build_report(
        shipped_baselines(),
        CHILDREN_40,
        [_run("a", PLAYED), _run("b", PLAYED[1:] + ["10-03-01"])],
        task_set="x",
    )
    assert both.tasks == PLAYED[1:] and both.coverage is not None
    assert (  # 10-03-01 is no children's task
        both.coverage.played == {"a": 4, "b": 3} and both.coverage.summary() == "3 of 40 tasks; levels 1, 3"
    )


def _stored_run(store: TranscriptStore, tasks: list[str]) -> str:
    run_id = store.create_run("aai-arena", tasks, "reference", {"pass_rule": "aai"}, {})
    for task in tasks:
        episode_id = store.start_episode(run_id, task, seed=0)
        store.finish_episode(
            episode_id,
            EpisodeResult(
                episode_id=episode_id,
                task=task,
                seed=0,
                success=True,
                reward=1.0,
                end_reason=EndReason.GOAL,
                scripts=1,
                turns=1,
                metrics={"pass": True},
            ),
        )
    return run_id


def test_the_command_prints_the_coverage_and_refuses_runs_that_share_no_task(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    store = TranscriptStore(db)
    first, second = _stored_run(store, PLAYED[:2]), _stored_run(store, PLAYED[2:])
    store.close()
    one = run_cli(["report", "aai", "--runs", first, "--db", db, "--no-figure"], tmp_path)
    assert one.stdout.startswith("compared: 2 of 40 tasks; level 1. Every column over the 2 of the 40 tasks")
    refused = run_cli(
        ["report", "aai", "--runs", f"{first},{second}", "--db", db, "--json"], tmp_path, check=False
    )
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.strip().splitlines()[-1] == (
        f"error: no task of aai-children40 (40 tasks) was played by every run (run {first}: 2, run {second}: 2); "
        "report the runs one at a time, or name tasks they share with --tasks"
    )
