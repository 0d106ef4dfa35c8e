"""Where arenas come from: the packaged Animal-AI Testbed (by task id) or any YAML file on disk.

Why both: the Testbed's 900 tasks are the benchmark ("01-04-03" names level 1, task 4, variant 3),
and researchers write their own arenas, so ``reset(task)`` takes either an id or a path.

A file may hold several arenas. Animal-AI plays them one per episode, in the order of their numbers
(``TrainingArena.ResetArena``), so the backend does the same: successive resets of the same task
cycle through its arenas. A task may also name one arena: ``"path/to/file.yaml#2"`` plays arena 2
of the file at every reset (``arena_task_ids`` lists them, to run each as a task of its own).
"""

from __future__ import annotations

import re
import stat
from functools import lru_cache
from importlib import resources
from pathlib import Path

from agentkit.envs.animalai_common.config import ArenaConfig
from agentkit.envs.animalai_common.config_loader import (
    file_kind,
    load_arena_config,
    parse_arena_config,
    read_arena_text,
)
from agentkit.envs.animalai_common.testbed_listing import packaged_task_ids, testbed_rows
from agentkit.envs.base import TaskInfo

TASK_ID = re.compile(r"^(\d{2})-(\d{2})-(\d{2})$")
ARENA_SUFFIX = re.compile(r"^(.+)#(-?\d+)$")


def split_arena(task: str) -> tuple[str, int | None]:
    """``"file.yaml#2"`` -> ("file.yaml", 2); a task without ``#n`` -> (task, None)."""
    match = ARENA_SUFFIX.match(task)
    if match:
        return match.group(1), int(match.group(2))
    return task, None


def arena_task_ids(task: str) -> list[str]:
    """One task per arena of a file (or Testbed id): ``["file.yaml#0", "file.yaml#1", ...]``."""
    base, _ = split_arena(task)
    return [f"{base}#{index}" for index in load_task(base).arena_order]


def _testbed() -> resources.abc.Traversable:
    return resources.files("agentkit.envs.arena").joinpath("data").joinpath("testbed")


def task_infos() -> list[TaskInfo]:
    """Every Testbed task with its level as category (``"level 01"`` .. ``"level 10"``)."""
    return [
        TaskInfo(name=name, description=description, category=category)
        for name, category, description in testbed_rows()
    ]


def task_level(task: str) -> int | None:
    """The level of a Testbed id, None for a file path."""
    match = TASK_ID.match(task)
    return int(match.group(1)) if match else None


@lru_cache(maxsize=64)
def _load_testbed(task: str) -> ArenaConfig:
    text = _testbed().joinpath(f"{task}.yaml").read_text(encoding="utf-8")
    return parse_arena_config(text, source=f"{task}.yaml")


def load_task(task: str, text: str | None = None) -> ArenaConfig:
    """The arenas of a Testbed id or a YAML path (an arena suffix ``#n`` is checked, then ignored: the
    backend picks the arena); a clear ``ValueError`` when it is neither. ``text``: the file's text,
    read before (``arena_file_text``) or stored with an episode, parsed instead of reading the path."""
    base, index = split_arena(task)
    config = _load(base) if text is None else parse_arena_config(text, source=Path(base).name)
    if index is not None and index not in config.arenas:
        raise ValueError(
            f"{base} has no arena {index} (its arenas: {', '.join(map(str, config.arena_order))})"
        )
    return config


def arena_file_text(task: str) -> str | None:
    """The text of the file a task names (``#n`` ignored), None for a Testbed id; ``ValueError``
    (naming the task) when it is neither, or the file is missing or unreadable."""
    base, _ = split_arena(task)
    if TASK_ID.match(base):
        return None
    path = _file_path(base)
    return read_arena_text(path)


def _file_path(task: str) -> Path:
    path = Path(task).expanduser()
    if path.suffix.lower() in (".yaml", ".yml") or path.exists():
        if not path.exists():
            raise ValueError(f"arena file not found: {task}")
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):  # a FIFO, /dev/zero, a folder: not "not found", but what it is
            raise ValueError(f"arena file {task} is {file_kind(mode)}, not a regular file")
        return path
    raise ValueError(
        f"unknown arena task {task!r}: give a Testbed id such as '01-04-03' or a path to an arena YAML file"
    )


def _load(task: str) -> ArenaConfig:
    if TASK_ID.match(task):
        if task not in packaged_task_ids():
            raise ValueError(f"unknown Animal-AI Testbed task {task!r}; see `agentkit tasks aai-arena`")
        return _load_testbed(task)
    return load_arena_config(_file_path(task))
