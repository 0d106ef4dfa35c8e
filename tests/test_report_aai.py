"""`agentkit report aai`: baselines recomputed from the shipped raw data, run outcomes from the store, outputs.

The baseline checks recompute figures independently from the CSV files with the csv module (no
code of ``agentkit.reports``), and compare with figures checked by hand on the raw data.
"""

from __future__ import annotations

import csv
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

import agentkit.reports
from agentkit.records import EndReason, EpisodeResult
from agentkit.reports.aai_report import build_report
from agentkit.reports.baselines import BaselineDataError, read_baselines, shipped_baselines
from agentkit.reports.proportions import Proportion, wilson_interval
from agentkit.reports.run_results import RunResultsError, read_run
from agentkit.reports.task_ids import canonical_task_id, child_column_task, level_of
from agentkit.reports.task_sets import resolve_task_set
from agentkit.testing.cli_runner import run_cli, run_json
from agentkit.transcripts import TranscriptStore

DATA = Path(agentkit.reports.__file__).parent / "data"
CHILDREN_40 = [
    "01-04-03",
    "01-06-02",
    "01-21-01",
    "01-23-01",
    "02-02-01",
    "02-10-01",
    "02-17-01",
    "02-29-01",
    "03-09-01",
    "03-11-01",
    "03-18-01",
    "03-21-01",
    "04-03-01",
    "04-13-01",
    "04-16-01",
    "04-22-01",
    "05-09-01",
    "05-15-01",
    "05-24-01",
    "05-26-01",
    "06-09-01",
    "06-11-01",
    "06-12-02",
    "06-29-02",
    "07-16-01",
    "07-17-01",
    "07-22-01",
    "07-25-01",
    "08-03-03",
    "08-11-01",
    "08-19-01",
    "08-30-01",
    "09-03-01",
    "09-08-01",
    "09-21-01",
    "09-24-01",
    "10-07-01",
    "10-16-01",
    "10-21-01",
    "10-22-03",
]


# --- independent readings of the raw files ----------------------------------------------------------


def _raw_children() -> list[dict[str, str]]:
    with open(DATA / "children_voudouris2022.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _raw_pass_marks() -> dict[str, float]:
    with open(DATA / "passmarks.csv", newline="", encoding="utf-8") as f:
        return {row["episode"].removesuffix(".yaml"): float(row["passMark"]) for row in csv.DictReader(f)}


def _raw_olympics_passes() -> dict[str, dict[str, bool]]:
    marks = _raw_pass_marks()
    passes: dict[str, dict[str, bool]] = defaultdict(dict)
    with open(DATA / "olympics2019_scores.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            passes[row["Agent"]][row["episode"]] = float(row["finalReward"]) >= marks[row["episode"]]
    return passes


def _pass_columns(row: dict[str, str]) -> list[str]:
    return [c for c in row if c.startswith("L")]


# --- the shipped data and the baseline computations -------------------------------------------------


def test_the_shipped_data_is_whole_and_documented():
    for name in (
        "children_voudouris2022.csv",
        "olympics2019_scores.csv",
        "passmarks.csv",
        "README.md",
        "LICENSE-animal-ai.txt",
    ):
        assert (DATA / name).is_file(), name
    readme = (DATA / "README.md").read_text()
    assert "Voudouris" in readme and "Crosby" in readme and "osf.io/g8u26" in readme
    # The report must never reach outside the project for its data.
    for source in Path(agentkit.reports.__file__).parent.glob("*.py"):
        text = source.read_text()
        assert "shared/data" not in text and "../shared" not in text, source


def test_one_child_by_hand_and_the_59_complete_children():
    rows = _raw_children()
    assert len(rows) == 107
    # TU-aql-76 failed 9 of the 40 tasks (counted by hand in the raw row).
    (child,) = [r for r in rows if r["User"] == "TU-aql-76"]
    assert sum(child[c] == "1" for c in _pass_columns(child)) == 31
    baselines = shipped_baselines()
    assert sum(baselines.children["TU-aql-76"].values()) == 31
    complete = [r for r in rows if all(r[c] != "NA" for c in _pass_columns(r))]
    assert len(complete) == 59
    assert sorted(baselines.complete_children()) == sorted(r["User"] for r in complete)
    assert "TU-aql-76" in baselines.complete_children()
    assert baselines.children_tasks == CHILDREN_40


def test_children_column_per_level_matches_the_raw_file_and_the_hand_checked_figures():
    complete = [r for r in _raw_children() if all(r[c] != "NA" for c in _pass_columns(r))]
    expected: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for row in complete:
        for column in _pass_columns(row):
            level = int(column[1:].split(".")[0])
            expected[level][0] += row[column] == "1"
            expected[level][1] += 1
    report = build_report(shipped_baselines(), CHILDREN_40, task_set="aai-children40").to_json()
    for entry in report["levels"]:
        assert [entry["passed"]["children"], entry["n"]["children"]] == expected[entry["level"]]
    # Hand-checked on the raw data: level 1 142/236, level 10 43/236, all 1320/2360.
    assert report["levels"][0]["passed"]["children"] == 142 and report["levels"][0]["n"]["children"] == 236
    assert report["levels"][9]["passed"]["children"] == 43
    assert report["overall"]["passed"]["children"] == 1320 and report["overall"]["n"]["children"] == 2360
    assert report["overall"]["children"] == pytest.approx(1320 / 2360)
    # Every child played all 40 tasks, so pooling pairs equals the mean of the children's own proportions.
    mean = sum(sum(r[c] == "1" for c in _pass_columns(r)) / 40 for r in complete) / len(complete)
    assert report["overall"]["children"] == pytest.approx(mean)


def test_children_pass_flags_agree_with_final_reward_and_pass_mark():
    marks = _raw_pass_marks()
    played = 0
    for row in _raw_children():
        for column in _pass_columns(row):
            if row[column] == "NA":
                continue
            played += 1
            task = canonical_task_id(
                f"{int(column[1:].split('.')[0]):02d}-"
                + "-".join(f"{int(x):02d}" for x in column[1:].split(".")[1:])
            )
            assert (float(row["P" + column[1:]]) >= marks[task]) == (row[column] == "1"), (
                row["User"],
                column,
            )
    assert played == 3812


def test_olympics_top_ten_ranked_over_all_900_tasks():
    raw = _raw_olympics_passes()
    assert len(raw) == 60 and all(len(tasks) == 900 for tasks in raw.values())
    ranked = sorted(raw, key=lambda a: (-sum(raw[a].values()), a))
    top = shipped_baselines().top_entrants()
    assert [e.name for e in top] == ranked[:10]
    # Hand-checked: the winner Trrrrr passed 396 of 900, ironbar 394.
    assert (top[0].name, top[0].passed, top[0].tasks) == ("Trrrrr", 396, 900)
    assert (top[1].name, top[1].passed) == ("ironbar", 394)
    report = build_report(shipped_baselines(), CHILDREN_40).to_json()
    for entry in report["levels"]:
        tasks = [t for t in CHILDREN_40 if int(t[:2]) == entry["level"]]
        assert entry["passed"]["olympics_top10"] == sum(raw[a][t] for a in ranked[:10] for t in tasks)
        assert entry["n"]["olympics_top10"] == 40
    # Hand-checked: level 1 31/40, level 3 6/40, level 10 0/40, all 139/400.
    assert [report["levels"][i]["passed"]["olympics_top10"] for i in (0, 2, 9)] == [31, 6, 0]
    assert report["overall"]["olympics_top10"] == pytest.approx(139 / 400)


def test_olympics_on_a_whole_level_of_the_testbed():
    tasks = resolve_task_set("aai-level-03")
    assert len(tasks) == 90
    raw = _raw_olympics_passes()
    top = [e.name for e in shipped_baselines().top_entrants()]
    report = build_report(shipped_baselines(), tasks, task_set="aai-level-03").to_json()
    (level,) = report["levels"]
    assert level["n"]["olympics_top10"] == 900
    assert level["passed"]["olympics_top10"] == sum(raw[a][t] for a in top for t in tasks)
    assert level["n"]["children"] == 4 * 59  # children played 4 of these 90 tasks


def test_a_broken_baseline_file_names_file_line_and_field(tmp_path):
    for name in ("children_voudouris2022.csv", "olympics2019_scores.csv", "passmarks.csv"):
        shutil.copy(DATA / name, tmp_path / name)
    lines = (tmp_path / "passmarks.csv").read_text().splitlines()
    lines[3] = "01-01-03.yaml,high"
    (tmp_path / "passmarks.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(BaselineDataError, match=r"passmarks.csv line 4 field passMark: not a number"):
        read_baselines(tmp_path)
    shutil.copy(DATA / "passmarks.csv", tmp_path / "passmarks.csv")
    text = (tmp_path / "children_voudouris2022.csv").read_text().splitlines()
    text[1] = text[1].replace(",1,", ",yes,", 1)
    (tmp_path / "children_voudouris2022.csv").write_text("\n".join(text) + "\n")
    with pytest.raises(
        BaselineDataError, match=r"children_voudouris2022.csv line 2 field L\S+: expected 0, 1 or NA"
    ):
        read_baselines(tmp_path)
    (tmp_path / "children_voudouris2022.csv").unlink()
    with pytest.raises(BaselineDataError, match="children_voudouris2022.csv: baseline file not found"):
        read_baselines(tmp_path)


# --- task naming, intervals --------------------------------------------------------------------------


def test_every_spelling_of_a_task_maps_to_one_id():
    assert canonical_task_id("01-06-02") == "01-06-02"
    assert canonical_task_id("01-06-02.yaml") == "01-06-02"
    assert canonical_task_id("configs/competition/01-06-02.yaml") == "01-06-02"
    assert child_column_task("L1.6.2") == ("pass", "01-06-02")
    assert child_column_task("P10.22.3") == ("reward", "10-22-03")
    assert child_column_task("User") is None
    assert level_of("10-22-03") == 10
    for bad in ("BabyAI-GoToLocal-v0", "11-01-01", "01-31-01", "01-01-04"):
        with pytest.raises(ValueError):
            canonical_task_id(bad)
    assert resolve_task_set(None) == CHILDREN_40
    assert resolve_task_set("01-06-02, 01-04-03.yaml 01-06-02") == ["01-04-03", "01-06-02"]
    with pytest.raises(ValueError, match="'foo' is neither a suite"):
        resolve_task_set("01-01-01,foo")


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    assert wilson_interval(0, 4)[0] == 0.0 and wilson_interval(0, 4)[1] == pytest.approx(0.4899, abs=1e-4)
    assert wilson_interval(4, 4)[1] == 1.0 and wilson_interval(4, 4)[0] == pytest.approx(0.5101, abs=1e-4)
    assert Proportion(0, 0).p is None and Proportion(0, 0).ci95 is None
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


# --- run outcomes from the transcript store ----------------------------------------------------------


def _episode(
    store: TranscriptStore,
    run_id: str,
    task: str,
    ok: bool | None,
    trial: int = 0,
    attempt: int = 0,
    metrics: dict | None = None,
) -> str:
    episode_id = store.start_episode(run_id, task, seed=trial, trial=trial, attempt=attempt)
    if ok is not None or metrics is not None:
        store.finish_episode(
            episode_id,
            EpisodeResult(
                episode_id=episode_id,
                task=task,
                seed=trial,
                success=bool(ok),
                reward=1.0 if ok else -1.0,
                end_reason=EndReason.GOAL if ok else EndReason.TIME_LIMIT,
                scripts=1,
                turns=1,
                trial=trial,
                metrics=metrics if metrics is not None else {"pass": ok, "level": level_of(task)},
            ),
        )
    return episode_id


def test_trials_attempts_paths_and_unfinished_episodes(tmp_path):
    store = TranscriptStore(f"sqlite:///{tmp_path / 'written.db'}")
    run_id = store.create_run("aai-arena", ["01-04-03", "03-09-01"], "reference", {}, {})
    _episode(store, run_id, "01-04-03", True, trial=0)
    _episode(store, run_id, "01-04-03", False, trial=1)
    _episode(store, run_id, "01-04-03", False, trial=2, attempt=0)  # relaunched: only attempt 1 counts
    _episode(store, run_id, "01-04-03", True, trial=2, attempt=1)
    _episode(store, run_id, "some/folder/03-09-01.yaml", True)
    _episode(store, run_id, "03-09-01", None, trial=1)  # never finished
    results = read_run(store, run_id)
    assert results.by_task == {"01-04-03": Proportion(2, 3), "03-09-01": Proportion(1, 1)}
    assert results.not_counted == 1
    data = build_report(shipped_baselines(), CHILDREN_40, [results]).to_json(detail=True)
    levels = {entry["level"]: entry for entry in data["levels"]}
    assert levels[1]["runs"][run_id] == pytest.approx(2 / 3) and levels[1]["n"]["runs"][run_id] == 3
    assert levels[3]["runs"][run_id] == 1.0
    # every column over the two tasks the run played: level 2 is not compared at all
    assert sorted(levels) == [1, 3] and data["coverage"]["summary"] == "2 of 40 tasks; levels 1, 3"
    assert data["overall"]["runs"][run_id] == pytest.approx(3 / 4)
    assert data["not_counted_episodes"] == {run_id: 1}
    detail = {row["task"]: row for row in data["task_detail"]}
    assert sorted(detail) == ["01-04-03", "03-09-01"] and detail["01-04-03"]["passed"]["runs"][run_id] == 2

    grid = store.create_run("gridworld", ["BabyAI-GoToLocal-v0"], "reference", {}, {})
    _episode(store, grid, "BabyAI-GoToLocal-v0", None, metrics={})
    with pytest.raises(RunResultsError, match="has no 'pass' metric"):
        read_run(store, grid)
    with pytest.raises(RunResultsError, match="no run 'missing'"):
        read_run(store, "missing")


# --- the command, on a real reference-agent run --------------------------------------------------------


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory) -> tuple[Path, str, str]:
    """A reference-agent run of three children tasks, two trials each, made by `agentkit run`."""
    folder = tmp_path_factory.mktemp("report")
    db = f"sqlite:///{folder / 'runs.db'}"
    data = run_json(
        [
            "run",
            "--env",
            "aai-arena",
            "--task",
            "01-04-03",
            "--task",
            "01-06-02",
            "--task",
            "02-10-01",
            "--episodes",
            "2",
            "--db",
            db,
        ],
        folder,
    )
    return folder, db, data["run_id"]


def test_report_json_has_the_asked_shape_and_the_run_figures(reference_run):
    folder, db, run_id = reference_run
    data = run_json(
        [
            "report",
            "aai",
            "--runs",
            run_id,
            "--reference",
            run_id,
            "--db",
            db,
            "--out",
            str(folder / "out"),
            "--detail",
        ],
        folder,
    )
    played = ["01-04-03", "01-06-02", "02-10-01"]
    # every column over the three tasks the run played (issue 30 item 4), said in the JSON
    assert [entry["level"] for entry in data["levels"]] == [1, 2]
    assert data["coverage"] == {
        "task_set": "aai-children40",
        "selected": 40,
        "compared": 3,
        "levels": [1, 2],
        "left_out": [t for t in CHILDREN_40 if t not in played],
        "played": {run_id: 3},
        "summary": "3 of 40 tasks; levels 1, 2",
    }
    for entry in data["levels"]:
        assert {"level", "children", "olympics_top10", "runs"} <= set(entry)
        assert set(entry["runs"]) == {run_id}
    assert set(data["overall"]) >= {"children", "olympics_top10", "runs"}
    store = TranscriptStore(db)
    episodes = store.list_episodes(run_id=run_id)
    assert len(episodes) == 6  # 3 tasks x 2 trials, each trial one pair
    by_level: dict[int, list[bool]] = defaultdict(list)
    for e in episodes:
        by_level[e.metrics["level"]].append(e.metrics["pass"])
    for level, passes in by_level.items():
        entry = data["levels"][level - 1]
        assert entry["runs"][run_id] == pytest.approx(sum(passes) / len(passes))
        assert entry["n"]["runs"][run_id] == len(passes)
        assert entry["reference"] == entry["runs"][run_id]
    assert data["overall"]["n"]["runs"][run_id] == 6
    baselines = shipped_baselines()
    children, olympics = (
        baselines.children_by_task(),
        baselines.olympics_by_task(e.name for e in baselines.top_entrants(10)),
    )
    level_one = sum((children[t] for t in played[:2]), Proportion(0, 0))
    assert (data["levels"][0]["passed"]["children"], data["levels"][0]["n"]["children"]) == (
        level_one.passed,
        level_one.n,
    )
    top = sum((olympics[t] for t in played), Proportion(0, 0))
    assert data["overall"]["olympics_top10"] == pytest.approx(top.passed / top.n) and top.n == 30
    assert len(data["task_detail"]) == 3
    png, page = Path(data["files"]["png"]), Path(data["files"]["html"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    html = page.read_text()
    assert "data:image/png;base64," in html and run_id in html and 'src="http' not in html


def test_report_table_and_errors(reference_run):
    folder, db, run_id = reference_run
    out_dir = folder / "table-out"
    proc = run_cli(["report", "aai", "--runs", run_id, "--db", db, "--out", str(out_dir)], folder)
    assert "children (n=59)" in proc.stdout and "Olympics top 10" in proc.stdout and run_id in proc.stdout
    assert "compared: 3 of 40 tasks; levels 1, 2. Every column over the 3 of the 40 tasks" in proc.stdout
    assert "(3 of 40 tasks; levels 1, 2)" in proc.stdout  # the table's title
    assert "1320/2360" not in proc.stdout  # the children's 40 tasks are not set beside the run's 3
    assert (out_dir / "aai_report.png").is_file() and (out_dir / "aai_report.html").is_file()
    # named with --runs and as the reference, a run is one column (the reference), not two
    both = run_cli(
        ["report", "aai", "--runs", run_id, "--reference", run_id, "--db", db, "--no-figure"], folder
    )
    header = next(line for line in both.stdout.splitlines() if "children (n=59)" in line)
    assert header.count(run_id) == 1 and f"reference ({run_id})" in header

    level = run_json(
        ["report", "aai", "--runs", run_id, "--db", db, "--tasks", "aai-level-01", "--no-figure"], folder
    )
    assert [e["level"] for e in level["levels"]] == [1] and level["levels"][0]["tasks"] == 2
    assert level["coverage"]["summary"] == "2 of 90 tasks; level 1"
    assert level["files"] == {}

    for args, message in [
        (["--runs", "nope", "--db", db], "no run 'nope'"),
        (["--runs", run_id, "--db", f"sqlite:///{folder / 'absent.db'}"], "no transcript database"),
        (["--runs", run_id, "--db", db, "--tasks", "01-01-01,foo"], "'foo' is neither a suite"),
        (["--db", db], "name at least one run"),
    ]:
        failed = run_cli(["report", "aai", *args, "--json"], folder, check=False)
        assert failed.returncode == 2 and failed.stdout == ""
        assert message in failed.stderr and len(failed.stderr.strip().splitlines()) == 1, failed.stderr
    assert not (folder / "absent.db").exists()


def test_a_column_with_no_pass_at_a_level_gives_table_figure_and_json(tmp_path):
    """0/12 at a level (the 3-trial preset's normal case) once crashed the figure with a negative error bar."""
    assert wilson_interval(0, 12) == (0.0, pytest.approx(0.2425, abs=1e-4))
    assert all(wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0 for n in range(1, 200))
    db = f"sqlite:///{tmp_path / 'zero.db'}"
    store = TranscriptStore(db)
    level_one = [task for task in CHILDREN_40 if task.startswith("01-")]
    run_id = store.create_run("aai-arena", level_one, "reference", {}, {})
    for task in level_one:
        for trial in range(3):
            _episode(store, run_id, task, False, trial=trial)
    _episode(store, run_id, "02-02-01", True)
    store.close()

    proc = run_cli(["report", "aai", "--runs", run_id, "--db", db, "--out", str(tmp_path / "out")], tmp_path)
    assert "Traceback" not in proc.stderr and "0/12" in proc.stdout
    assert (tmp_path / "out" / "aai_report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = run_json(
        ["report", "aai", "--runs", run_id, "--db", db, "--out", str(tmp_path / "json")], tmp_path
    )
    level = data["levels"][0]
    assert level["runs"][run_id] == 0.0 and level["n"]["runs"][run_id] == 12
    assert level["ci95"]["runs"][run_id][0] == 0.0
    assert Path(data["files"]["png"]).is_file()
