"""Hostile and broken arena files give one error line naming the file, in bounded time and memory.

Each file is loaded by the real loader in a child process (``[`` x 50,000 once crashed the
interpreter inside libyaml, and an anchor bomb once ate 2.6 GB), which must exit cleanly and print
one ``ArenaConfigError`` line. The grid that makes item placement near-linear is checked against the
old all-pairs test on a sample of Testbed files: the layouts must be identical.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentkit.envs.animalai_common import tasks as arena_tasks
from agentkit.envs.animalai_common.box_grid import BoxGrid
from agentkit.envs.animalai_common.geometry import boxes_overlap
from agentkit.envs.animalai_common.layout import build_layout
from agentkit.envs.arena import ArenaConfigError, parse_arena_config
from agentkit.testing.cli_runner import run_cli, run_json

CHILD = textwrap.dedent(
    """
    import resource, sys
    limit = 1 << 30  # 1 GB of heap: an anchor bomb must be refused, not expanded
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    from agentkit.envs.arena import ArenaConfigError, load_arena_config
    from agentkit.envs.animalai_common.layout import build_layout
    try:
        config = load_arena_config(sys.argv[1])
    except ArenaConfigError as exc:
        print("ERROR", exc)
    else:
        layout = build_layout(config.first(), 0)
        print("LOADED", len(layout.items), layout.skipped)
    """
)
HEAD = "!ArenaConfig\narenas:\n  0: !Arena\n    t: 250\n"


def load_in_child(tmp_path: Path, text: str, name: str = "hostile.yaml") -> str:
    """The one line a child process prints after loading ``text`` from a file (it must not crash)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout[:2000]
    assert len(lines[0]) < 400, lines[0][:2000]
    return lines[0]


def items(count: int) -> str:
    entry = (
        "    - !Item\n      name: Wall\n      positions: [!Vector3 {{x: {x}, y: 0, z: {z}}}]\n"
        "      sizes: [!Vector3 {{x: 0.9, y: 1, z: 0.9}}]\n"
    )
    return "    items:\n" + "".join(entry.format(x=1 + (i % 38), z=1 + (i // 38) % 38) for i in range(count))


def billion_laughs() -> str:
    """Nine levels of nine aliases each: 9^9 scalars once expanded, from under 1 KB of text."""
    lines = ['lol0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        refs = ", ".join([f"*l{level - 1}"] * 9)
        lines.append(f"lol{level}: &l{level} [{refs}]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[" * 50_000, "YAML error at line 1, column"),
        ("[" * 50_000, "nested too deep (at most 64 levels)"),
        ("[" * 1_000 + "]" * 1_000, "nested too deep (at most 64 levels)"),
        ("- " * 50_000 + "x\n", "nested too deep (at most 64 levels)"),
        ("{a: " * 50_000, "nested too deep (at most 64 levels)"),
        (HEAD + "    ? !Vector3 {x: 1}\n    : 3\n", "line 5, column 7: a key must be a plain name or number"),
        (
            HEAD.replace("250", "1" * 400),
            "arena 0: YAML error at line 4, column 8: a number written with 400 char",
        ),
        (
            HEAD.replace("250", "1" * 30),
            "arena 0: 't' is out of range (at most 1e+15 in size), got <a 97-bit numb",
        ),
        (
            HEAD.replace("250", "1" * 5000),
            "line 4, column 8: a number written with 5,000 characters (at most 40)",
        ),
        ("!ArenaConfig\narenas:\n  " + "1" * 5000 + ": !Arena\n    t: 250\n", "YAML syntax error at line 3"),
        ("!ArenaConfig\narenas:\n  '" + "1" * 500 + "': !Arena\n    t: 250\n", "is not a number (or is too"),
        (billion_laughs(), "more than 250,000 values (aliases counted as what they repeat)"),
        (
            HEAD + "    t: 300\n",
            "arena 0: YAML error at line 5, column 5: duplicate key 't' (first given at line 4)",
        ),
        (
            HEAD + "    items:\n    - !Item\n      name: Wall\n      positions: [!Vector3 {x: 1, x: 2}]\n",
            "duplicate key 'x'",
        ),
        (HEAD + items(10_000), "arena 0: 10,000 items; an arena may spawn at most 2,000 objects"),
        (
            HEAD + "    items:\n    - !Item\n      name: Wall\n      rotations: [" + "0, " * 2500 + "]\n",
            "arena 0: the items spawn 2,500 objects; an arena may spawn at most 2,000",
        ),
    ],
    ids=[
        "flow-50000",
        "flow-50000-problem",
        "flow-1000",
        "block-50000",
        "mapping-50000",
        "tagged-key",
        "400-digits",
        "30-digits",
        "5000-digits",
        "5000-digit-arena-key",
        "500-digit-quoted-arena-key",
        "billion-laughs",
        "duplicate-key",
        "duplicate-flow-key",
        "10000-items",
        "2500-objects",
    ],
)
def test_a_hostile_file_gives_one_line_naming_the_file(tmp_path: Path, text: str, expected: str) -> None:
    line = load_in_child(tmp_path, text)
    assert line.startswith("ERROR hostile.yaml: "), line
    assert expected in line, line


def test_an_alias_bomb_below_the_node_limit_is_quoted_briefly() -> None:
    """Aliases repeating each other, 9^5 values: loadable, but the error must not print them all."""
    levels = ['&l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [f"&l{k} [" + ", ".join([f"*l{k - 1}"] * 9) + "]" for k in range(1, 5)]
    text = HEAD + "    items:\n    - !Item\n      name: Wall\n      colors: [" + ", ".join(levels) + "]\n"
    text += "      delays: *l4\n"  # delays are read before colours: a list of lists where numbers belong
    with pytest.raises(ArenaConfigError) as caught:
        parse_arena_config(text, source="bomb.yaml")
    message = str(caught.value)
    assert message.startswith("bomb.yaml: arena 0, item 0 'Wall': 'delays' must hold numbers, got [[[[")
    assert len(message) < 300 and message.endswith("...")


def test_two_thousand_items_load_and_lay_out(tmp_path: Path) -> None:
    line = load_in_child(tmp_path, HEAD + items(2000), name="crowded.yaml")
    assert line.startswith("LOADED "), line
    placed, skipped = map(int, line.split()[1:])
    assert placed + skipped == 2000 and placed >= 38 * 38 - 38


def all_pairs_overlaps(self: BoxGrid, box) -> bool:
    """The test before the grid: the new box against every box placed before it."""
    return any(boxes_overlap(box, other) for other in self.boxes)


def test_the_grid_lays_out_testbed_files_exactly_as_testing_every_pair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tasks = arena_tasks.packaged_task_ids()[::18]  # 50 tasks across all ten levels
    assert len(tasks) == 50
    arenas = [arena_tasks.load_task(task).first() for task in tasks]
    runs = [(spec, seed, version) for spec in arenas for seed in (0, 5) for version in ("3.1.3", "4.1.0")]
    with_grid = [build_layout(spec, seed, version) for spec, seed, version in runs]
    monkeypatch.setattr(BoxGrid, "overlaps", all_pairs_overlaps)
    every_pair = [build_layout(spec, seed, version) for spec, seed, version in runs]
    assert with_grid == every_pair


def _in_child(code: str, path: Path) -> subprocess.CompletedProcess[str]:
    """``code`` run with ``sys.argv[1] = path`` in a child: a regression that blocks ends in the timeout."""
    return subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
def test_an_arena_path_that_is_not_a_regular_file_says_what_it_is(tmp_path: Path, kind: str) -> None:
    """Before: a FIFO or /dev/zero said "arena file not found" (and the loader blocked or read for ever)."""
    if kind == "fifo":
        path = tmp_path / "arena.yaml"
        os.mkfifo(path)
        what = "a FIFO"
    elif kind == "dev-zero":
        path, what = Path("/dev/zero"), "a character device"
    else:
        path = tmp_path / "arena.yaml"
        path.mkdir()
        what = "a folder"
    task = _in_child(
        "import sys\nfrom agentkit.envs.animalai_common.tasks import load_task\n"
        "try:\n    load_task(sys.argv[1])\nexcept ValueError as exc:\n    print('ERROR', exc)\n",
        path,
    )
    assert task.stdout.strip() == f"ERROR arena file {path} is {what}, not a regular file", task.stderr
    loader = _in_child(CHILD, path)  # the loader itself, given the path directly
    assert loader.stdout.strip() == f"ERROR {path.name}: the path is {what}, not a regular file", (
        loader.stderr
    )


def _lone_agent(t: str, pass_mark: float = -0.5) -> str:
    """An arena with only the agent in it (no goal to reach) and the time limit ``t``, as written."""
    return (
        f"!ArenaConfig\narenas:\n  0: !Arena\n    t: {t}\n    pass_mark: {pass_mark}\n    items:\n"
        "    - !Item\n      name: Agent\n      positions: [!Vector3 {x: 20, y: 0, z: 20}]\n"
        "      rotations: [0]\n"
    )


def test_a_time_limit_larger_than_animal_ais_int_is_refused_by_run_in_one_line(tmp_path: Path) -> None:
    """Before: ``t: 1000000000000`` was accepted and ``run`` never ended (the clock was run out step by
    step). Animal-AI reads the limit into a C# int (YAMLclasses.cs), which refuses it; so does the loader."""
    path = tmp_path / "endless.yaml"
    path.write_text(_lone_agent("1000000000000"))
    done = run_cli(
        ["run", "--env", "aai-arena", "--task", str(path), "--db", f"sqlite:///{tmp_path / 'r.db'}"],
        tmp_path,
        check=False,
        timeout=120,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].lower().startswith("error: "), lines
    assert (
        lines[0][len("error: ") :]
        == "endless.yaml: arena 0: 't' must be at most 2,147,483,647, got 1000000000000"
    )


def test_max_wall_s_bounds_running_out_a_clock_of_two_billion_steps(tmp_path: Path) -> None:
    """Before: at the script limit the arena's clock (2e9 steps, allowed) was run out in full and
    ``--max-wall-s`` never stopped it. Now the run-out stops at the wall limit, the episode ends for
    wall time, and it is not judged a pass on a clock that was not run out (the pass mark of -0.5
    is above the reward so far, so judging the state as it stands would pass it)."""
    path = tmp_path / "long.yaml"
    path.write_text(_lone_agent("2000000000"))
    args = ["run", "--env", "aai-arena", "--task", str(path), "--max-scripts", "1", "--max-wall-s", "3"]
    data = run_json([*args, "--db", f"sqlite:///{tmp_path / 'r.db'}"], tmp_path)  # 300 s bound
    (episode,) = data["episodes"]
    assert (episode["end_reason"], episode["pass"], episode["success"]) == ("wall_time", False, False)
    clock = episode["clock_run_out"]
    assert clock["stopped"] == "wall_time" and clock["ended"] is False and clock["idle_steps"] > 0
    assert episode["reward"] > -0.5  # the reward so far would have passed
