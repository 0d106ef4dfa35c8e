"""A person plays from `eval` as from `run`, and never shares the terminal with another episode.

Before: ``--human-frames`` existed on ``run`` only, and ``--model human`` with worker processes or
several episodes at once started anyway (two prompts interleaved on one terminal, or a worker
process with no terminal at all). These tests drive the real CLI in subprocesses (the arena's
pybullet world, a real SQLite store) and the Python API.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import agentkit
from agentkit.transcripts import TranscriptStore

AGENTKIT = Path(sys.executable).with_name("agentkit")
TASK = "01-04-03"  # one of the 40 tasks the children played (envs/animalai_common/suites.py CHILDREN_40)


def _agentkit(args: list[str], cwd: Path, typed: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(AGENTKIT), *args], input=typed, capture_output=True, text=True, cwd=cwd, timeout=120
    )


def _experiment(tmp_path: Path) -> Path:
    path = tmp_path / "exp.yaml"
    path.write_text(f'env: aai-arena\ntasks: ["{TASK}"]\nmax_scripts: 1\n')
    return path


def test_eval_human_frames_files_shows_the_frames_and_records_the_mode(tmp_path: Path) -> None:
    _experiment(tmp_path)
    db = f"sqlite:///{tmp_path / 'h.db'}"
    done = _agentkit(
        ["eval", "exp.yaml", "--model", "human", "--human-frames", "files", "--db", db],
        tmp_path,
        typed="Go(2);\n\n",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    paths = re.findall(r"frame saved: (\S+\.png)", done.stderr)
    assert paths and all(Path(p).read_bytes().startswith(b"\x89PNG") for p in paths)
    store = TranscriptStore(db)
    try:
        (run,) = store.list_runs()
        assert store.get_run(run.id).config["human_frames"] == "files"
    finally:
        store.close()


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--human-frames", "popup", "--model", "human"],
            "--human-frames: 'popup' is not one of auto, window, page, files",
        ),
        (
            ["--human-frames", "page"],
            "--human-frames: only --model human shows frames to a person (the model is 'reference')",
        ),
    ],
)
def test_eval_refuses_a_frame_mode_that_cannot_work_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    _experiment(tmp_path)
    done = _agentkit(["eval", "exp.yaml", *args, "--db", f"sqlite:///{tmp_path / 'h.db'}"], tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == f"error: {message}"
    assert not (tmp_path / "h.db").exists()


@pytest.mark.parametrize("command", ["run", "eval"])
@pytest.mark.parametrize(
    "args, message",
    [
        (["--max-concurrency", "2"], "--max-concurrency 2: --model human plays one episode at a time"),
        (["--workers", "processes"], "--workers processes: --model human answers at this terminal"),
    ],
)
def test_a_human_with_parallel_episodes_or_worker_processes_is_refused_in_one_line(
    tmp_path: Path, command: str, args: list[str], message: str
) -> None:
    _experiment(tmp_path)
    where = ["exp.yaml"] if command == "eval" else ["--env", "aai-arena", "--task", TASK]
    done = _agentkit(
        [command, *where, "--model", "human", *args, "--db", f"sqlite:///{tmp_path / 'h.db'}"], tmp_path
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {message}")
    assert "Traceback" not in done.stderr and not (tmp_path / "h.db").exists()


@pytest.mark.parametrize(
    "options, message",
    [
        ({"max_concurrency": 2}, "--max-concurrency 2: --model human plays one episode at a time"),
        ({"workers": "processes"}, "--workers processes: --model human answers at this terminal"),
    ],
)
def test_the_python_api_refuses_the_same_with_run_setup_error(
    tmp_path: Path, options: dict, message: str
) -> None:
    db = tmp_path / "h.db"
    with pytest.raises(agentkit.RunSetupError, match=re.escape(message)):
        agentkit.run("aai-arena", TASK, model="human", db=db, **options)
    with pytest.raises(agentkit.RunSetupError, match=re.escape(message)):
        agentkit.evaluate({"env": "aai-arena", "tasks": [TASK]}, model="human", db=db, **options)
    assert not db.exists()
