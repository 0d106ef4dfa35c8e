"""Output that reads at 80 columns (issue 30 item 3): every command's help, `transcripts list` and
`show`, each run as a real subprocess with COLUMNS=80, has no line longer than 80 characters, no
word cut with "…" or broken mid-way, every id whole; `run` and `eval` have a short help that points
to `--help-all` and docs/cli.md, which names every option they take.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentkit.testing.cli_runner import cli_env, run_cli, run_json

ROOT = Path(__file__).resolve().parents[1]
NARROW = cli_env(COLUMNS="80")
COMMANDS = [
    [],
    ["run"],
    ["eval"],
    ["tasks"],
    ["view"],
    ["rerender"],
    ["replay"],
    ["play"],
    ["transcripts"],
    ["transcripts", "list"],
    ["transcripts", "show"],
    ["transcripts", "export"],
    ["report"],
    ["report", "aai"],
    ["templates"],
    ["db"],
]


def _check_narrow(text: str) -> None:
    lines = text.splitlines()
    too_long = [line for line in lines if len(line) > 80]
    assert too_long == [] and "…" not in text, "\n".join(too_long) or text


def _options(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", text))


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "agentkit")
def test_every_help_reads_at_80_columns(command, tmp_path):
    text = run_cli([*command, "--help"], tmp_path, env=NARROW).stdout
    _check_narrow(text)
    assert text.startswith("Usage: ")
    words = re.findall(r"[\w-]+-$", text, re.MULTILINE)  # a word broken after its hyphen
    assert words == [], words


@pytest.mark.parametrize("command", ["run", "eval"])
def test_run_and_eval_have_a_short_help_and_the_rest_on_demand(command, tmp_path):
    short = run_cli([command, "--help"], tmp_path, env=NARROW).stdout
    whole = run_cli([command, "--help-all"], tmp_path, env=NARROW).stdout
    _check_narrow(whole)
    assert len(short.splitlines()) <= 50, short  # was 355 lines at 80 columns
    assert f"More options: `agentkit {command} --help-all`, and docs/cli.md." in short
    assert _options(short) < _options(whole) and len(_options(whole)) > 40
    for flag in ("--model", "--db", "--json", "--resume", "--api-base"):
        assert flag in _options(short)
    documented = _options((ROOT / "docs" / "cli.md").read_text(encoding="utf-8"))
    missing = sorted(_options(whole) - documented - {"--help", "--help-all", "--no-cache"})
    assert missing == [], f"docs/cli.md does not name {missing}"


def test_transcripts_list_and_show_read_at_80_columns(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    grid = run_json(
        ["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--episodes", "2", "--db", db],
        tmp_path,
    )
    arena = run_json(["run", "--env", "aai-arena", "--task", "01-04-03", "--db", db], tmp_path)
    listed = run_cli(["transcripts", "list", "--db", db], tmp_path, env=NARROW).stdout
    _check_narrow(listed)
    for data in (grid, arena):
        assert f"run {data['run_id']}  {data['env']}  model reference" in listed
        for episode in data["episodes"]:
            row = next(line for line in listed.splitlines() if line.startswith(episode["episode_id"]))
            assert f"  {episode['task']}  " in row, row  # the task whole, on the episode's line
    headers = next(line for line in listed.splitlines() if line.startswith("episode "))
    assert headers.split()[:4] == ["episode", "task", "seed", "outcome"]  # never "statu s"
    shown = run_cli(
        ["transcripts", "show", arena["episodes"][0]["episode_id"], "--db", db], tmp_path, env=NARROW
    )
    _check_narrow(shown.stdout)
    assert shown.stdout.startswith(f"episode {arena['episodes'][0]['episode_id']}  run {arena['run_id']}")


def test_a_narrower_listing_leaves_out_columns_and_says_which(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = run_json(["run", "--env", "gridworld", "--task", "BabyAI-GoToLocal-v0", "--db", db], tmp_path)
    listed = run_cli(["transcripts", "list", "--db", db], tmp_path, env=cli_env(COLUMNS="50")).stdout
    assert max(map(len, listed.splitlines())) <= 50
    assert data["episodes"][0]["episode_id"] in listed and "BabyAI-GoToLocal-v0" in listed
    assert "not shown at 50 columns: scripts, end" in " ".join(listed.split())


def test_the_report_table_reads_at_80_columns(tmp_path):
    """`report aai` piped keeps its wide table; with COLUMNS=80 its cells wrap between words."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    data = run_json(["run", "--env", "aai-arena", "--task", "01-04-03", "--db", db], tmp_path)
    args = ["report", "aai", "--runs", data["run_id"], "--db", db, "--out", str(tmp_path / "report")]
    narrow = run_cli(args, tmp_path, env=NARROW).stdout
    _check_narrow(narrow)
    assert "L1 Food" in narrow and "53/59" in narrow  # a level's name, the children's count whole
    assert "compared: 1 of 40 tasks; level 1." in narrow  # what the table covers (issue 30 item 4)
    wide = run_cli(args, tmp_path, env={k: v for k, v in cli_env().items() if k != "COLUMNS"}).stdout
    assert max(map(len, wide.splitlines())) > 80  # piped without COLUMNS: one row per level, as before


def test_run_and_eval_episode_lines_wrap_between_fields(tmp_path):
    """Each episode's line of `run` and `eval` wraps between its fields at 80 columns, ids whole;
    so does the run's summary (its continuation lines indented), words whole."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    task = "BabyAI-GoToLocal-v0"
    ran = run_cli(["run", "--env", "gridworld", "--task", task, "--db", db], tmp_path, env=NARROW).stdout
    experiment = tmp_path / "exp.yaml"
    experiment.write_text(
        f"env: gridworld\ntasks: ['{task}']\ntrials: 1\nmodel: reference\n", encoding="utf-8"
    )
    evaluated = run_cli(["eval", str(experiment), "--db", db], tmp_path, env=NARROW).stdout
    for text in (ran, evaluated):
        assert all(len(line) <= 80 for line in text.splitlines()), text
        summary = text[text.index("\nrun ") + 1 :]
        assert "pass rate" in summary and "before the step limit" in " ".join(summary.split()), summary
        lines = [line for line in text.splitlines() if not line.startswith(("run ", "  "))]
        assert lines, text
        first = next(line for line in lines if f"  {task}  " in line)
        assert re.match(r"[0-9a-f]{16}  ", first), first  # the episode id whole at the start


def test_a_protocols_draws_read_at_80_columns(tmp_path):
    """`tasks trifinger --protocol P10`: variable names whole (they were folded mid-name), lines <= 80."""
    args = ["tasks", "trifinger", "--protocol", "P10", "--sample", "2", "--task", "pushing"]
    text = run_cli(args, tmp_path, env=NARROW).stdout
    _check_narrow(text)
    assert "tool_block.cylindrical_position" in text and "pushing" in text


def test_the_preset_list_reads_at_80_columns(tmp_path):
    text = run_cli(["eval", "--list-presets"], tmp_path, env=NARROW).stdout
    _check_narrow(text)
    assert [line.split()[0] for line in text.splitlines() if not line.startswith(" ")] == [
        "causalworld",
        "llm-aai-exp1",
        "llm-aai-exp2",
    ]
