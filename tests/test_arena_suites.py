"""The Testbed suites have the published sizes, match the data folder, and are scored per level."""

from __future__ import annotations

import importlib.util

import pytest

from agentkit.envs.animalai_common import suites as s
from agentkit.records import EndReason, EpisodeResult


def test_suite_sizes_and_names():
    named = s.suites()
    assert len(named["aai-testbed"]) == 900 and len(set(named["aai-testbed"])) == 900
    assert len(named["aai-children40"]) == 40 and len(set(named["aai-children40"])) == 40
    for level in range(1, 11):
        tasks = named[f"aai-level-{level:02d}"]
        assert len(tasks) == 90 and all(s.level_of(t) == level for t in tasks)
    assert set(named["aai-children40"]) <= set(named["aai-testbed"])
    assert sorted(named) == sorted(
        ["aai-testbed", "aai-children40", *[f"aai-level-{k:02d}" for k in range(1, 11)]]
    )


def test_children40_has_four_tasks_per_level():
    levels = [s.level_of(t) for t in s.CHILDREN_40]
    assert all(levels.count(level) == 4 for level in range(1, 11))


def test_every_suite_task_has_its_arena_file():
    assert s.missing_task_files() == []


@pytest.mark.parametrize("bad", ["1-01-01", "11-01-01", "00-01-01", "01-01", "abc", "01-01-01.yaml"])
def test_level_of_rejects_what_is_not_a_task_id(bad):
    with pytest.raises(ValueError):
        s.level_of(bad)


def test_level_of_reads_the_first_field():
    assert s.level_of("01-04-03") == 1 and s.level_of("10-22-03") == 10


def test_pass_criterion_uses_the_pass_mark():
    assert s.passed(0.5, 0.5) and not s.passed(0.49, 0.5)
    assert s.passed(-0.2, -0.5)
    # no pass mark: Unity's YAMLclasses.cs Arena.pass_mark defaults to 0, judged with >= (TrainingAgent.cs)
    assert s.passed(0.1, None) and s.passed(0.0, None) and not s.passed(-0.001, None)


def _result(task: str, ok: bool) -> EpisodeResult:
    return EpisodeResult(
        episode_id=task,
        task=task,
        seed=0,
        success=ok,
        reward=1.0 if ok else -1.0,
        end_reason=EndReason.GOAL if ok else EndReason.FAILED,
        scripts=1,
        turns=1,
        metrics={"pass": ok, "level": s.level_of(task)},
    )


def test_pass_proportions_per_level_from_episode_results_pairs_and_dicts():
    results = [_result("01-01-01", True), _result("01-02-01", False), _result("03-01-01", True)]
    assert s.pass_proportions(results) == {1: 0.5, 3: 1.0}
    assert s.pass_counts(results) == {1: (1, 2), 3: (1, 1)}
    assert s.pass_proportions([("02-01-01", True), ("02-01-02", True)]) == {2: 1.0}
    assert s.pass_proportions([{"task": "04-01-01", "pass": False}]) == {4: 0.0}
    assert s.overall_pass_proportion(results) == pytest.approx(2 / 3)
    table = s.format_pass_table(results)
    assert "1/2" in table and "all" in table


def test_result_without_pass_metric_is_an_error():
    with pytest.raises(ValueError, match="pass"):
        s.pass_proportions([{"task": "01-01-01"}])


@pytest.mark.skipif(
    importlib.util.find_spec("agentkit.envs.arena.backend") is None, reason="arena backend not built yet"
)
def test_backend_exposes_the_suites():
    from agentkit.envs.arena.backend import ArenaBackend

    assert ArenaBackend.suites() == s.suites()
