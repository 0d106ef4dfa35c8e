"""`agentkit report aai` polish: zero bars seen, levels named, runs labelled by name, and intervals
clustered by participant (children, Olympics entrants) and by task (runs) beside Wilson's."""

from __future__ import annotations

import io
import math

import pytest

from agentkit.reports.aai_report import build_report
from agentkit.reports.baselines import shipped_baselines
from agentkit.reports.clustered import CLUSTER_METHOD, cluster_robust_interval, t_quantile_975
from agentkit.reports.figure import STUB, bars, figure_of, render_html, render_png
from agentkit.reports.levels import LEVEL_NAMES, level_title
from agentkit.reports.proportions import Proportion
from agentkit.reports.run_results import RunResults
from agentkit.reports.task_sets import resolve_task_set

LEVEL_4 = [t for t in resolve_task_set("aai-children40") if t.startswith("04-")]


def _run(run_id: str, by_task: dict[str, Proportion], name: str | None = None) -> RunResults:
    return RunResults(run_id=run_id, model="openai/some-model", env="aai-arena", by_task=by_task, name=name)


@pytest.fixture(scope="module")
def report():
    """A model run with 3 trials of each children's task: none passed at level 4 (0/12), all at level 1."""
    tasks = resolve_task_set("aai-children40")
    by_task = {t: Proportion(0 if t in LEVEL_4 else (3 if t.startswith("01-") else 1), 3) for t in tasks}
    return build_report(
        shipped_baselines(),
        tasks,
        [_run("r-model", by_task, name="gpt-4o plain prompt"), _run("r-other", by_task)],
        task_set="aai-children40",
    )


def test_a_zero_bar_is_a_visible_stub_labelled_with_its_count(report):
    model = next(row for row in bars(report) if row and row[0].column == "gpt-4o plain prompt")
    zero = next(b for b in model if b.p == 0)
    assert zero.height == STUB > 0 and zero.text == "0/12"
    fig = figure_of(report)
    ax = fig.axes[0]
    assert "0/12" in [t.get_text() for t in ax.texts]
    stubs = [p for p in ax.patches if math.isclose(p.get_height(), STUB)]
    assert stubs and all(p.get_edgecolor()[:3] == (0.0, 0.0, 0.0) for p in stubs)  # outlined, so seen
    # the PNG renders (no "'yerr' must not contain negative values"), and it is a real image
    from matplotlib.image import imread

    image = imread(io.BytesIO(render_png(report)), format="png")
    assert image.shape[0] > 400 and image.shape[1] > 800


def test_levels_carry_their_olympics_category_names(report):
    assert (
        LEVEL_NAMES[1] == "Food retrieval"
        and LEVEL_NAMES[10] == "Causal reasoning"
        and len(LEVEL_NAMES) == 10
    )
    ticks = [t.get_text() for t in figure_of(report).axes[0].get_xticklabels()]
    assert ticks[:2] == ["L1 Food retrieval", "L2 Preferences"] and ticks[-1] == "all"
    data = report.to_json()
    assert [(row["level"], row["name"]) for row in data["levels"]][3] == (4, "Avoidance")
    assert level_title(4) in render_html(report, b"")


def test_runs_are_labelled_by_their_name(report):
    data = report.to_json()
    assert (
        data["labels"]["r-model"] == "gpt-4o plain prompt"
        and data["run_names"]["r-model"] == "gpt-4o plain prompt"
    )
    assert data["labels"]["r-other"] == "r-other (openai/some-model)" and data["run_names"]["r-other"] is None
    legend = [t.get_text() for t in figure_of(report).axes[0].get_legend().get_texts()]
    assert "gpt-4o plain prompt" in legend
    twins = build_report(
        shipped_baselines(),
        LEVEL_4,
        [
            _run("a1", {LEVEL_4[0]: Proportion(1, 1)}, name="same"),
            _run("b2", {LEVEL_4[0]: Proportion(0, 1)}, name="same"),
        ],
    )
    assert [c.label for c in twins.columns if c.is_run] == ["same [a1]", "same [b2]"]


def test_cluster_robust_interval_by_hand():
    # 4 tasks, 3 trials each, two always passed and two never: p = 0.5, residuals +-1.5
    lo, hi = cluster_robust_interval([(3, 3), (0, 3), (3, 3), (0, 3)])
    se = math.sqrt(4 / 3 * 4 * 1.5**2) / 12
    assert (lo, hi) == (max(0.0, 0.5 - 3.182 * se), min(1.0, 0.5 + 3.182 * se))
    lo, hi = cluster_robust_interval([(2, 3), (1, 3), (2, 3), (1, 3), (3, 3), (0, 3), (2, 3), (1, 3)])
    se = math.sqrt(8 / 7 * (6 * 0.5**2 + 2 * 1.5**2)) / 24
    assert lo == pytest.approx(0.5 - 2.365 * se) and hi == pytest.approx(0.5 + 2.365 * se)
    assert cluster_robust_interval([(3, 3)]) is None  # one cluster: no spread to measure
    assert cluster_robust_interval([(0, 3), (0, 3)]) == (0.0, 0.0)  # every cluster agrees: the point
    with pytest.raises(ValueError):
        cluster_robust_interval([(4, 3), (0, 3)])
    # the t quantile: the table, then the expansion (t(40) = 2.0211, t(120) = 1.9799 to 4 decimals)
    assert t_quantile_975(1) == 12.706 and t_quantile_975(30) == 2.042
    assert t_quantile_975(40) == pytest.approx(2.0211, abs=2e-4) and t_quantile_975(120) == pytest.approx(
        1.9799, abs=2e-4
    )


def test_children_cluster_by_child_and_runs_by_task(report):
    baselines = shipped_baselines()
    children = next(c for c in report.columns if c.key == "children")
    # by hand: each complete child is a cluster of its level-4 tasks
    per_child = [
        (sum(bool(baselines.children[c][t]) for t in LEVEL_4), len(LEVEL_4))
        for c in baselines.complete_children()
    ]
    assert children.clustered(LEVEL_4) == cluster_robust_interval(per_child)
    # children who pass many tasks pass many: clustering by child widens the interval over all tasks
    wilson, clustered = children.over(report.tasks).ci95, children.clustered(report.tasks)
    assert clustered[1] - clustered[0] > 1.5 * (wilson[1] - wilson[0])
    model = next(c for c in report.columns if c.key == "r-model")
    assert model.clustered(report.tasks) == cluster_robust_interval(
        (model.by_task[t].passed, model.by_task[t].n) for t in report.tasks
    )
    data = report.to_json()
    assert data["clustered_by"] == {
        "children": "participant",
        "olympics_top10": "participant",
        "r-model": "task",
        "r-other": "task",
    }
    assert data["ci_clustered_method"] == CLUSTER_METHOD and "cluster-robust" in CLUSTER_METHOD
    level4 = data["levels"][3]
    assert (
        level4["ci95_clustered"]["runs"]["r-model"] == [0.0, 0.0] and level4["passed"]["runs"]["r-model"] == 0
    )
    assert level4["ci95_clustered"]["children"] == list(children.clustered(LEVEL_4))
    # the figure states both methods
    title = figure_of(report).axes[0].get_legend().get_title().get_text()
    assert "Wilson" in title and "cluster-robust" in title and "by participant" in title


def test_a_named_run_with_none_passed_at_a_level_end_to_end(tmp_path):
    """`agentkit eval --name` stores the name; `report aai` labels the run by it and shows its 0/3 at
    level 4 in the table, the --json and the PNG; the viewer lists the run by its name."""
    import json
    import re
    import urllib.request

    from agentkit.testing.cli_runner import run_cli, run_json
    from agentkit.viewer import ViewerServer, open_readonly

    spec = tmp_path / "exp.yaml"
    spec.write_text(
        "name: zero\nenv: aai-arena\ntasks: [04-03-01]\nmodel: reference\ntrials: 3\nmax_scripts: 6\n"
        "include_images: false\n",
        encoding="utf-8",
    )
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    run = run_json(["eval", str(spec), "--name", "reference, six scripts", "--db", db], tmp_path)
    # (`agentkit run --name` reaches the stored config too: tests/test_run_flags.py)
    assert open_readonly(db).get_run(run["run_id"]).config["name"] == "reference, six scripts"
    assert run["pass_rate"] == 0.0 and len(run["episodes"]) == 3
    args = [
        "report",
        "aai",
        "--runs",
        run["run_id"],
        "--tasks",
        "aai-level-04",
        "--db",
        db,
        "--out",
        str(tmp_path / "out"),
    ]
    data = json.loads(run_cli([*args, "--json"], tmp_path).stdout)
    level = data["levels"][0]
    assert (level["level"], level["name"]) == (4, "Avoidance")
    assert (level["passed"]["runs"][run["run_id"]], level["n"]["runs"][run["run_id"]]) == (0, 3)
    assert data["labels"][run["run_id"]] == "reference, six scripts"
    assert (
        level["ci95_clustered"]["runs"][run["run_id"]] is None
    )  # one task: one cluster, no clustered interval
    from matplotlib.image import imread

    assert imread(data["files"]["png"]).shape[0] > 400
    table = run_cli(args + ["--no-figure"], tmp_path).stdout
    assert "L4 Avoidance" in table and "reference, six scripts" in table and "0/3" in table
    assert "cluster-robust" in table
    with ViewerServer(open_readonly(db), port=0) as server:
        with urllib.request.urlopen(server.url, timeout=20) as resp:
            index = resp.read().decode("utf-8")
    assert re.search(rf'{run["run_id"]}</a> <span class="run-name">reference, six scripts</span>', index)
